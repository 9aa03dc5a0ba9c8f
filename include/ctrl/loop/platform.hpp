// The abstract processors that a profile or a run measures together: the controllers of this
// process (Team), or those of every MPI rank (a ProcessGroup's platform, process_group.hpp). measure() and
// run_profile() see only this interface, so one loop serves one machine and a cluster.
//
// Every member of a platform made of several processes calls the same methods in the same order
// with the same arguments (collective calls); results (RoundResult, Check, infos) are the same on
// every member. Work that only one member does (files, printing) is the root's.
#pragma once
#include <ctrl/loop/workload.hpp>

#include <ctrl/errors.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ctrl::loop {

struct ProcessorInfo;
struct RoundResult;

// An error that every member of a platform raises at the same point, decided from shared data (a
// rank's failed round, the root's verdict on a file): the members can leave together, normally.
// Any other error leaves one member alone, and a platform of several processes must then be
// aborted (the tool does it). Told apart with dynamic_cast<const Agreed*>.
struct Agreed {
  virtual ~Agreed() = default;
};
struct AgreedUsageError : UsageError, Agreed {
  using UsageError::UsageError;
};
struct AgreedDeviceError : DeviceError, Agreed {
  using DeviceError::DeviceError;
};

class Platform {
 public:
  virtual ~Platform() = default;

  virtual std::size_t size() const = 0;
  virtual const ProcessorInfo& info(std::size_t i) const = 0;
  std::vector<ProcessorInfo> processors() const;
  bool any_energy() const;
  // The devices of this member's own controllers (all of them for one process; an MPI rank's
  // own), for choosing code that runs on them (a GPU build of an application).
  virtual std::vector<DeviceSpec> local_devices() const;

  // Runs per round so that a round lasts long enough to be timed and metered (Team::batch_for).
  virtual int batch_for(double run_s) const = 0;
  // The length of a fill round.
  virtual double round_seconds() const = 0;
  // One round, all processors starting together: `blocks[i]` on processor i, `batch` times back to
  // back (run) or repeated until `seconds` have passed (fill). Blocks are in the problem's rows.
  virtual RoundResult run(Problem& problem, const std::vector<Block>& blocks, int batch) = 0;
  virtual RoundResult fill(Problem& problem, const std::vector<Block>& blocks, double seconds) = 0;

  virtual void set_base_power(std::size_t i, double watts, std::string origin) = 0;
  // Measures the idle power of every metered device without one, all at once; a line per device.
  virtual std::vector<std::string> measure_base_power(double seconds) = 0;
  // Held power (ProcessorInfo::held_power_w): set, or measured over an idle window of `seconds`
  // right after a round. By default a platform does not know it (0 W is used): a platform of
  // several processes does not measure it yet.
  virtual void set_held_power(std::size_t /*i*/, double /*watts*/, std::string /*origin*/) {}
  virtual std::vector<std::string> measure_held_power(double /*seconds*/) { return {}; }

  // The host arrays this member needs for blocks up to `extent` (extent[i]: the largest block
  // processor i will run): every row for one process, the rows of its own processors for a rank.
  virtual std::unique_ptr<Problem> make_problem(const Workload& app, const std::vector<Block>& extent, index_t cols,
                                                std::uint64_t seed) = 0;
  // Checks the outputs of these blocks, wherever they ran.
  virtual Check verify(const Problem& problem, const std::vector<Block>& blocks) = 0;
  // Writes the outputs of these blocks, in order, as one .npy file (written by the root only,
  // atomically: a file that exists is complete).
  virtual void write_output(const Problem& problem, const std::vector<Block>& blocks, const std::string& path) = 0;

  // True on every member when `local` is true on any: decisions that depend on a member's own
  // clock or signals (time limits, Ctrl-C) are made together.
  virtual bool any(bool local) { return local; }
  // The member that reads and writes files and reports to the user.
  virtual bool is_root() const { return true; }
  // Replaces `text` on every member with the root's.
  virtual void share(std::string& /*text*/) {}
};

// Held power for every metered device with a base power and none yet: one fill round of `blocks`
// (every device busy, as in a profile's rounds), then an idle window of one round
// (Platform::measure_held_power). A line per device measured, for the user.
std::vector<std::string> settle_held_power(Platform& platform, Problem& problem, const std::vector<Block>& blocks);

// The end of the last of these blocks: the rows an instance needs for them.
index_t rows_spanned(const std::vector<Block>& blocks);
// Writes rows x cols elements of `dtype` as one .npy file, atomically. `data`: the output rows of
// `blocks` (a run's consecutive blocks), gathered in block order; put in instance order first
// where the problem deals its rows (Problem::dealing).
void save_rows(const std::string& path, const Problem& problem, const std::vector<Block>& blocks, index_t rows,
               std::span<const std::byte> data);

}  // namespace ctrl::loop
