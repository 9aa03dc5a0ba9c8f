#include "job.hpp"

#include "command.hpp"

#include <ctrl/errors.hpp>

#include <fmt/format.h>

#include <cstdio>

namespace ctrl::tool {

namespace {

// An exit_error that every rank raises together (rank 0's, shared by from_root).
struct agreed_exit_error : exit_error, loop::Agreed {
  using exit_error::exit_error;
};

}  // namespace

void PlatformArgs::add_to(CLI::App* cmd) {
  cmd->add_option("--selection", selection,
                  "A device-selection file: run on every rank of the MPI job that started ctrl, each with its devices "
                  "(docs/distributed.md)");
  cmd->add_option("--rank-timeout", rank_timeout, "In an MPI job: the longest wait for another rank at any step, s")
      ->capture_default_str();
}

bool PlatformArgs::distributed(bool devices_given) const {
  if (!selection.empty() && devices_given)
    throw exit_error(exit_bad_input, "give the processors either with --device or with --selection, not both");
  if (!loop::built_with_mpi()) {
    if (!selection.empty())
      throw exit_error(exit_bad_input, "--selection: this ctrl was built without MPI (install OpenMPI and rebuild)");
    return false;
  }
  const int world = loop::launcher_ranks();
  if (selection.empty() && loop::started_by_mpi_launcher() && world > 1)
    throw exit_error(exit_bad_input,
                     fmt::format("started by an MPI launcher with {} ranks: give --selection FILE (each "
                                 "rank's devices; `ctrl devices --write-selection FILE` writes one)",
                                 world));
  return !selection.empty();
}

loop::ProcessGroup& Job::open(std::unique_ptr<loop::ProcessGroup> group) {
  group_ = std::move(group);
  // One report per job: the other ranks keep stderr for their errors only.
  if (!group_->is_root() && std::freopen("/dev/null", "w", stdout) == nullptr)
    std::fputs("ctrl: cannot silence stdout\n", stderr);
  return *group_;
}

loop::ProcessGroup& Job::group(const PlatformArgs& args, bool distributed) {
  if (group_) return *group_;
  if (!(args.rank_timeout > 0 && args.rank_timeout <= loop::max_rank_timeout_s))  // given, used or not
    throw exit_error(exit_bad_input, fmt::format("--rank-timeout {}: give seconds above 0, at most {:g} (a week)",
                                                 args.rank_timeout, loop::max_rank_timeout_s));
  if (!distributed) return open(loop::this_process());
  return open(loop::mpi_job(args.rank_timeout));
}

loop::ProcessGroup& Job::launcher_group(double timeout_s) {
  if (group_) return *group_;
  PlatformArgs args;
  args.rank_timeout = timeout_s;
  return group(args, loop::built_with_mpi() && loop::started_by_mpi_launcher() && loop::launcher_ranks() > 1);
}

std::unique_ptr<loop::Platform> Job::platform(const PlatformArgs& args, bool distributed,
                                              const std::vector<DeviceSpec>& devices, const loop::TeamOptions& options,
                                              const std::vector<std::string>* order) {
  loop::ProcessGroup& g = group(args, distributed);
  if (distributed) return loop::selection_platform(g, args.selection, options, order);
  return g.platform(devices, options);
}

std::string Job::from_root(const std::function<std::string()>& make) {
  if (!group_ || group_->size() == 1) return make();
  std::string text, error = "0";
  if (group_->is_root()) {
    try {
      text = make();
    } catch (const std::exception& e) {
      error = fmt::format("{}{}", exit_code_of(e), e.what());
    }
  }
  group_->broadcast(error, "sharing rank 0's plan");
  if (error != "0") throw agreed_exit_error(error.front() - '0', error.substr(1));
  group_->broadcast(text, "sharing rank 0's plan");
  return text;
}

std::string Job::prefix() const { return group_ && group_->size() > 1 ? group_->who() + ": " : std::string(); }

void Job::before(const std::exception& e, int code) {
  // An error this rank alone has ends the whole job, so that no rank waits for this one; an
  // Agreed error is every rank's, and they leave together.
  if (group_ && group_->size() > 1 && dynamic_cast<const loop::Agreed*>(&e) == nullptr) group_->abort(code, e.what());
}

}  // namespace ctrl::tool
