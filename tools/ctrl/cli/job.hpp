// The processes a command runs on: this process, or, with --selection FILE, every rank of the MPI
// job that started the tool (docs/distributed.md). main() owns one Job; the commands that measure
// open its process group, and dispatch() reports errors through it. In an MPI job rank 0 reads and
// writes the files and prints; the other ranks print errors only.
#pragma once
#include "dispatch.hpp"

#include <ctrl/loop/platform.hpp>
#include <ctrl/loop/process_group.hpp>
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

class Job final : public ErrorReport {
 public:
  // The group a command runs on: the MPI job's when `distributed`, else this process. Opened on
  // the first call (MPI starts then) and kept until the Job ends (MPI ends then).
  loop::ProcessGroup& group(const PlatformArgs& args, bool distributed);
  // Every rank that an MPI launcher started (this process alone without one): `ctrl devices
  // --write-selection`.
  loop::ProcessGroup& launcher_group(double timeout_s);

  // The platform of `devices` (one process) or of the selection's devices on every rank; with
  // `order`, only the processors named there, in that order.
  std::unique_ptr<loop::Platform> platform(const PlatformArgs& args, bool distributed,
                                           const std::vector<DeviceSpec>& devices, const loop::TeamOptions& options,
                                           const std::vector<std::string>* order = nullptr);

  // `make()`'s text, computed once: by the root and sent to every rank; an error there is raised
  // on every rank with its exit status.
  std::string from_root(const std::function<std::string()>& make);

  std::string prefix() const override;
  void before(const std::exception& e, int code) override;

 private:
  loop::ProcessGroup& open(std::unique_ptr<loop::ProcessGroup> group);
  std::unique_ptr<loop::ProcessGroup> group_;
};

}  // namespace ctrl::tool
