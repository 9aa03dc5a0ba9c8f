// Where `ctrl profile` and `ctrl run` measure: the controllers of this process, or, with
// --selection FILE, those of every rank of the MPI job that started the tool (docs/distributed.md).
// In an MPI job, rank 0 reads and writes the files and prints; the other ranks print errors only.
#pragma once
#include <ctrl/loop/platform.hpp>
#include <ctrl/loop/team.hpp>

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ctrl::tool {

struct PlatformArgs {
  std::string selection;        // the device-selection file; empty: this process's --device list
  double rank_timeout = 600.0;  // the longest wait for another rank at any step, s

  void add_to(CLI::App* cmd);
  // Whether the measurement spans MPI ranks (--selection). exit_bad_input when started by an MPI
  // launcher with several ranks but without --selection, and when both `devices_given` and
  // --selection are.
  bool distributed(bool devices_given) const;
};

// A Team of `devices`, or the ranks' platform: each rank's devices are its line of the selection
// (with `order`, only the processors named there, which are then the platform's order).
std::unique_ptr<loop::Platform> open_platform(const PlatformArgs& args, const std::vector<DeviceSpec>& devices,
                                                   const loop::TeamOptions& options,
                                                   const std::vector<std::string>* order = nullptr);

// In an MPI job (`distributed`), that every rank was started on the same problem: `problem` is this
// rank's text of what decides it (application, N, sizes or distribution, seed). Ranks that differ
// from rank 0 are named in an agreed error (exit 2 on every rank): otherwise one rank would
// measure or compute another application than the one its rows are reported as.
void agree_on_problem(const PlatformArgs& args, bool distributed, const std::string& problem);

// Every rank's `mine`, in rank order, when started by an MPI launcher with several ranks (`ctrl
// devices --write-selection`); {mine} otherwise. Errors name the rank.
std::vector<std::string> gather_across_ranks(const std::string& mine, double timeout_s);
// This process's MPI rank (0 outside an MPI job).
int this_rank();

// `make()`'s text, computed once: in an MPI job (`distributed`) by rank 0 and sent to every rank;
// an error there is raised on every rank with its exit status.
std::string from_root(const PlatformArgs& args, bool distributed, const std::function<std::string()>& make);

// Ends MPI, where it was started, after the command is done (main()).
void finish_distributed();

}  // namespace ctrl::tool
