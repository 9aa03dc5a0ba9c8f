// The controllers of every rank of an MPI job as one platform of abstract processors
// (docs/distributed.md). Each rank owns a Team of its own devices; a round starts on every rank
// at a barrier, each rank runs its processors' blocks, and the results are gathered so that every
// rank holds the same RoundResult. The distribution is computed once from them (the profile and
// the front are the root's files); each rank runs its share on its own sub-tiles, of a Problem
// that holds only its processors' rows; outputs are gathered to the root.
//
// Failures: an error on one rank inside a collective step (a device that fails in a round, a
// wrong result) is shared and raised on every rank as an Agreed error naming the rank. A rank
// that dies or hangs is handled by the Communicator (launcher's SIGTERM, deadlines).
#pragma once
#include "mpi/communicator.hpp"
#include <ctrl/loop/platform.hpp>
#include <ctrl/loop/team.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ctrl::loop::mpi {

class DistributedTeam final : public loop::Platform {
 public:
  // Collective. `mine`: this rank's devices (possibly none). Processors are named HOST/DEVICE
  // and ordered by rank, then as each rank lists them; with `order`, in that order of names
  // instead (a front's processors), every name having to be some rank's.
  DistributedTeam(Communicator& comm, const std::vector<DeviceSpec>& mine, loop::TeamOptions options,
                  const std::vector<std::string>* order = nullptr);
  ~DistributedTeam() override;

  std::size_t size() const override { return infos_.size(); }
  const loop::ProcessorInfo& info(std::size_t i) const override { return infos_.at(i); }
  int owner(std::size_t i) const { return owner_.at(i); }
  std::vector<DeviceSpec> local_devices() const override;

  int batch_for(double run_s) const override;
  double round_seconds() const override { return round_s_; }
  loop::RoundResult run(loop::Problem& problem, const std::vector<loop::Block>& blocks, int batch) override;
  loop::RoundResult fill(loop::Problem& problem, const std::vector<loop::Block>& blocks, double seconds) override;

  void set_base_power(std::size_t i, double watts, std::string origin) override;
  std::vector<std::string> measure_base_power(double seconds) override;

  std::unique_ptr<loop::Problem> make_problem(const loop::Workload& app, const std::vector<loop::Block>& extent,
                                              index_t cols, std::uint64_t seed) override;
  loop::Check verify(const loop::Problem& problem, const std::vector<loop::Block>& blocks) override;
  void write_output(const loop::Problem& problem, const std::vector<loop::Block>& blocks,
                    const std::string& path) override;

  bool any(bool local) override { return comm_.any(local, "agreeing whether to stop"); }
  bool is_root() const override { return comm_.rank() == 0; }
  void share(std::string& text) override { comm_.broadcast(text, "sharing the root's decision"); }

 private:
  loop::RoundResult round(loop::Problem& problem, const std::vector<loop::Block>& blocks, int batch, double seconds);
  // Raises on every rank the errors that some ranks report (empty strings: none), as an Agreed
  // error naming each failing rank; `usage`: a UsageError rather than a DeviceError.
  void raise_if_any(const std::vector<std::string>& errors, bool usage) const;
  void require_one_block_each(const std::vector<loop::Block>& blocks) const;
  std::vector<loop::Block> local_blocks(const std::vector<loop::Block>& blocks) const;

  Communicator& comm_;
  std::unique_ptr<loop::Team> team_;  // this rank's processors (null when it has none)
  std::vector<loop::ProcessorInfo> infos_;
  std::vector<int> owner_;          // per processor: its rank
  std::vector<std::size_t> slot_;   // per processor: its index in its rank's Team
  std::vector<std::size_t> mine_;   // this rank's processors, in its Team's order
  std::vector<std::string> hosts_;  // per rank
  double round_s_ = 0.0;
};

}  // namespace ctrl::loop::mpi
