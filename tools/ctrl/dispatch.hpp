// Parses the command line and runs the chosen subcommand, mapping errors to the documented exit
// codes (docs/tool.md). Shared by the tool and the test drivers that carry a subset of commands.
#pragma once
#include "command.hpp"

#include <exception>
#include <string>

namespace ctrl::tool {

int dispatch(CLI::App& app, const action& run, int argc, char** argv);

// Set by the MPI platform (platform_choice.cpp) while a job runs: the prefix of this process's
// error messages ("rank 1 of 2 (node2): "), and what to do with an error before it is reported
// (end the whole job when this rank alone has it). Null outside an MPI job.
inline std::string (*error_prefix)() = nullptr;
inline void (*before_error)(const std::exception& e, int code) = nullptr;

}  // namespace ctrl::tool
