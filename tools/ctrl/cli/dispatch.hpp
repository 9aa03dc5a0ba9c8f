// Parses the command line and runs the chosen subcommand, mapping errors to the documented exit
// codes (docs/tool.md). Shared by the tool and the test drivers that carry a subset of commands.
#pragma once
#include "command.hpp"

#include <exception>
#include <string>

namespace ctrl::tool {

// How a failing command's error is reported beyond "ctrl: <message>" on stderr: a command that
// runs on several processes names this one and ends the others first (job.hpp).
class ErrorReport {
 public:
  virtual ~ErrorReport() = default;
  virtual std::string prefix() const = 0;                      // "rank 1 of 2 (node2): "
  virtual void before(const std::exception& e, int code) = 0;  // e.g. end the whole MPI job
};

// The documented exit status of an error a command throws: exit_error's own; 3 for a workload
// that cannot be split (loop::InfeasibleError); 2 for other bad input (UsageError); else 1.
int exit_code_of(const std::exception& e);

// Adds `ctrl help [SUBCOMMAND]`, parses, and runs what the command line chose, with the
// conventions of docs/tool.md: --help, --version and `ctrl help` print on stdout and exit 0; `ctrl`
// alone prints the usage on stderr and exits 2; an unknown subcommand is named with the known ones;
// every error is one "ctrl: " line on stderr (a parse error adds where to read more) and its exit
// code. Call after every subcommand is added.
int dispatch(CLI::App& app, const action& run, int argc, char** argv, ErrorReport* report = nullptr);

}  // namespace ctrl::tool
