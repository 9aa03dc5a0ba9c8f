// Who runs the loop: this process alone, or every rank of an MPI job. The loop is given a group
// and asks it for the platform to measure on; everything after that (run_profile,
// run_distribution) is the same code for one process and for a cluster (docs/distributed.md).
//
//   auto group = ctrl::loop::this_process();          // or ctrl::loop::mpi_job() under mpirun
//   auto platform = group->platform({ctrl::parse_device("cpu:0-7"), ctrl::parse_device("cuda:0")});
//   ctrl::loop::run_profile(workload, request, *platform, observer);
//
// Every member of a group calls the collective members (those taking `what`, and the free
// functions below) in the same order; `what` names the step in the error a rank that does not
// answer causes ("no answer from the other ranks ... while <what>").
#pragma once
#include <ctrl/loop/platform.hpp>
#include <ctrl/loop/team.hpp>

#include <ctrl/device_spec.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ctrl::loop {

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;

  virtual int rank() const = 0;  // 0 .. size()-1; the root, which reads and writes files, is 0
  virtual int size() const = 0;
  bool is_root() const { return rank() == 0; }
  virtual const std::string& host() const = 0;
  // "rank 1 of 2 (node2)", for messages; empty for a group of one process made by this_process().
  virtual std::string who() const = 0;

  // The processors of every member as one platform: this member contributes `mine` (possibly
  // none). With `order` (processor names, HOST/DEVICE across ranks), only the named ones, in that
  // order (a front's processors).
  virtual std::unique_ptr<Platform> platform(const std::vector<DeviceSpec>& mine, const TeamOptions& options = {},
                                             const std::vector<std::string>* order = nullptr) = 0;

  // The root's `text` on every member.
  virtual void broadcast(std::string& text, const char* what) = 0;
  // Every member's `mine`, in rank order, on every member.
  virtual std::vector<std::string> allgather(const std::string& mine, const char* what) = 0;
  // Ends every member after an error that this member alone has, so that none waits for it:
  // prints "ctrl: <who>: <message>" and stops the job with `code`. Returns at once, doing nothing,
  // in a group of one process (the caller reports its error as usual).
  virtual void abort(int code, const std::string& message) = 0;
};

// This process alone: platform() is a Team of its devices.
std::unique_ptr<ProcessGroup> this_process();

// Every rank of the MPI job that started this process (mpirun, srun): MPI is started here and
// ended when the group is destroyed. `timeout_s` bounds every wait for another rank (start and
// end of MPI included): a rank that hangs stops the others with a message naming the step
// (exit_other_rank). The launcher's SIGTERM (another rank died) ends this rank with a message.
// UsageError when ctrl was built without MPI, or for a timeout that is not positive or is above
// max_rank_timeout_s.
std::unique_ptr<ProcessGroup> mpi_job(double timeout_s = 600.0);
inline constexpr double max_rank_timeout_s = 7 * 24 * 3600.0;
// Exit status of a rank stopped because of another rank (docs/tool.md lists every exit status).
inline constexpr int exit_other_rank = 4;

bool built_with_mpi();
// Whether an MPI launcher started this process (its environment says so), and with how many ranks
// (1 without one): known before MPI starts.
bool started_by_mpi_launcher();
int launcher_ranks();

// Raises `error` (when not empty on some member) on every member, naming the members that have
// it, as an AgreedUsageError: the members leave together.
void raise_if_any(ProcessGroup& group, const std::string& error, const char* what);

// The platform of a device-selection file (docs/distributed.md): the root reads `path` (the
// nodes need not share a file system) and every member takes the devices of its line; with
// `order`, only those named there. Errors in the file are every member's (AgreedUsageError).
std::unique_ptr<Platform> selection_platform(ProcessGroup& group, const std::string& path,
                                             const TeamOptions& options = {},
                                             const std::vector<std::string>* order = nullptr);

// That every member was started on the same problem: `problem` is this member's text of what
// decides it (application, sizes, seed). Members that differ from the root are named in an
// AgreedUsageError on every member: otherwise one would measure another application than the
// one its rows are reported as.
void agree_on_problem(ProcessGroup& group, const std::string& problem);

}  // namespace ctrl::loop
