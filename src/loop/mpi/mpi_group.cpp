// mpi_job(): a ProcessGroup over MPI_COMM_WORLD, built where MPI is found.
#include <ctrl/loop/process_group.hpp>

#include "mpi/communicator.hpp"
#include "mpi/distributed_team.hpp"

#include <fmt/format.h>

namespace ctrl::loop {

namespace {

class MpiJob final : public ProcessGroup {
 public:
  explicit MpiJob(double timeout_s) : comm_(timeout_s) {}
  int rank() const override { return comm_.rank(); }
  int size() const override { return comm_.size(); }
  const std::string& host() const override { return comm_.host(); }
  std::string who() const override { return comm_.who(); }
  std::unique_ptr<Platform> platform(const std::vector<DeviceSpec>& mine, const TeamOptions& options,
                                     const std::vector<std::string>* order) override {
    return std::make_unique<mpi::DistributedTeam>(comm_, mine, options, order);
  }
  void broadcast(std::string& text, const char* what) override { comm_.broadcast(text, what); }
  std::vector<std::string> allgather(const std::string& mine, const char* what) override {
    return comm_.allgather(mine, what);
  }
  void abort(int code, const std::string& message) override {
    if (comm_.size() > 1) comm_.abort(code, message);
  }

 private:
  mpi::Communicator comm_;
};

}  // namespace

bool built_with_mpi() { return true; }

std::unique_ptr<ProcessGroup> mpi_job(double timeout_s) {
  // At most a week: the deadlines are steady_clock time points, which an infinite or huge wait
  // would overflow (undefined behaviour, then a wait that ends at once).
  if (!(timeout_s > 0 && timeout_s <= max_rank_timeout_s))
    throw UsageError(fmt::format("a rank timeout of {} s: give seconds above 0, at most {:g} (a week)", timeout_s,
                                 max_rank_timeout_s));
  return std::make_unique<MpiJob>(timeout_s);
}

}  // namespace ctrl::loop
