// The ctrl command-line tool: a thin layer over the library. Each subcommand lives in its own
// file and registers itself with add_<name>(); main.cpp lists them.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <stdexcept>
#include <string>

namespace ctrl::tool {

// Documented exit codes (docs/tool.md).
enum exit_code : int {
  exit_ok = 0,
  exit_failure = 1,     // a device or run-time failure
  exit_bad_input = 2,   // bad arguments or input files; the message names what and where
  exit_infeasible = 3,  // the workload cannot be split exactly with the sizes given
};

// Thrown by commands to leave with a given exit code and message.
struct exit_error : std::runtime_error {
  int code;
  exit_error(int c, const std::string& what) : std::runtime_error(what), code(c) {}
};

// A file option's check: an empty name is refused (exit 2) rather than taken as "no file".
inline const CLI::Validator file_name{
    [](std::string& s) { return s.empty() ? std::string("an empty file name") : std::string(); }, "FILE"};

using action = std::function<int()>;  // what a parsed subcommand runs; returns the exit code

class Job;  // the processes a command runs on (job.hpp)

void add_pareto(CLI::App& app, action& run);
void add_devices(CLI::App& app, action& run, Job& job);  // devices_command.cpp
void add_power(CLI::App& app, action& run);              // power_command.cpp
void add_profile(CLI::App& app, action& run, Job& job);  // profile_command.cpp
void add_run(CLI::App& app, action& run, Job& job);      // run_command.cpp

}  // namespace ctrl::tool
