// `ctrl profile`: measure every processor at its sizes, all processors at the same time, and
// append the results to a profile file that an interrupted run resumes (docs/loop.md).
//
// A profile is a sequence of steps: at step k every processor runs its k-th size, all at once.
// Each processor has sizes of its own (a slow CPU group fine ones, a GPU coarse ones), given, or
// chosen by a short calibration so that the processors' sizes cover the same range of times.
// A workload with halos is measured as it runs: the processors' blocks side by side, exchanging
// halos after every sweep; each processor's time is its own (its waits for slower neighbours
// left out) and records the part spent exchanging (profile_file.hpp, exchange_time).
#pragma once
#include <ctrl/loop/measure.hpp>
#include <ctrl/loop/profile_file.hpp>
#include <ctrl/loop/team.hpp>
#include <ctrl/partition/front.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ctrl::loop {

// How sizes are chosen when none are given: a calibration doubles each processor's block until a
// run takes largest_run_s (or the problem would pass its share of memory), then picks `steps`
// sizes per processor whose times are spaced geometrically from the slowest processor's smallest
// block up to largest_run_s (fine steps on a slow processor, coarse ones on a fast one).
struct SizeCalibration {
  int steps = 12;
  double largest_run_s = 0.1;
  double memory_fraction = 0.25;  // of the memory this process may use (available_memory())
  // UsageError for steps below 2, a time or a fraction not positive and finite (a fraction > 1).
  void validate() const;
};

// One step: a size per processor.
using Step = std::vector<index_t>;

// A processor's calibration: the seconds per run of its block at sizes that double.
struct CalibrationPoint {
  index_t size = 0;
  double seconds = 0.0;
};
// Each processor's `cal.steps` sizes from its calibration points (ascending sizes): the times
// tau_k = t_lo (t_hi / t_lo)^(k / (steps - 1)), t_lo the slowest processor's time at its smallest
// size and t_hi cal.largest_run_s (or the longest time measured, when no processor reached it),
// each turned into the size whose time it is (linear between the points, on their running
// maximum; a processor's largest calibrated size at most), as multiples of `granularity` from
// `min_rows`, strictly rising. UsageError naming a processor that cannot take `steps` distinct
// sizes.
std::vector<std::vector<index_t>> sizes_for_times(const std::vector<std::vector<CalibrationPoint>>& points,
                                                  const std::vector<std::string>& names, const SizeCalibration& cal,
                                                  index_t granularity, index_t min_rows);

// The sizes of a refinement (`ctrl profile --refine FRONT.json`): for each processor of the front,
// in its order, the sizes the front's points give it and their neighbours (± the larger of the
// granularity and 2 % of the size, in whole granules, at least min_rows) that `existing` (the
// profile being refined) has not measured, ascending. Every processor gets as many: a shorter list
// continues above its largest size by the same step (a step measures one size of each). Empty
// when every such size is measured.
std::vector<std::pair<std::string, std::vector<index_t>>> refine_sizes(const partition::Front& front,
                                                                       const std::vector<std::string>& processors,
                                                                       const ProfileFile& existing, index_t granularity,
                                                                       index_t min_rows);

struct ProfileRequest {
  index_t cols = 0;  // N; 0: the file's (when resuming) or the app's default
  std::vector<DeviceSpec> devices;
  // Sizes: `sizes` for every processor, `sizes_of` for the processors it names (by name, over
  // `sizes`); every processor needs as many sizes as the others. Neither: calibrated.
  std::vector<index_t> sizes;
  std::vector<std::pair<std::string, std::vector<index_t>>> sizes_of;
  SizeCalibration calibration;
  std::string out;  // the profile file
  // Where out's file system cannot lock it (ProfileWriter): write it unlocked (`--no-lock`).
  bool unlocked_ok = false;
  StopRule rule;
  TeamOptions team;
  std::vector<std::pair<std::string, double>> base_power;  // given base powers, W, by processor name
  double idle_seconds = 2.0;                               // idle window for the others (0: none)
  std::uint64_t seed = 1;
};

class ProfileObserver {
 public:
  virtual ~ProfileObserver() = default;
  virtual void note(const std::string& /*line*/) {}
  // The steps to measure now (those complete in the file left out), and how many were there.
  virtual void plan(const std::vector<Step>& /*to_measure*/, std::size_t /*already_done*/) {}
  virtual void size_begin(const Step& /*step*/, std::size_t /*k*/) {}
  virtual void round(const Step& /*step*/, const RoundProgress& /*p*/) {}
  virtual void size_end(const Step& /*step*/, const MeasureResult& /*m*/, const std::vector<ProfileRow>& /*rows*/) {}
};

struct ProfileOutcome {
  std::size_t measured = 0;                 // steps measured now
  std::size_t resumed = 0;                  // steps found complete in the file
  std::size_t unconverged = 0;              // steps whose intervals stayed wider than asked
  std::vector<std::vector<index_t>> sizes;  // each processor's sizes, as planned
  index_t capacity = 0;                     // the largest workload the processors' largest sizes hold together
  bool interrupted = false;
  index_t cols = 0;
  std::vector<ProcessorInfo> processors;
  std::optional<double> platform_base_power;  // sum over processors with energy, W
};

// On the processors of request.devices (a Team of this process).
ProfileOutcome run_profile(const Workload& app, const ProfileRequest& request, ProfileObserver& observer,
                           const StopFlag* stop = nullptr);
// On a platform made by the caller (request.devices unused): a Team, or the ranks of an MPI job,
// where the root reads and writes the profile file and every member measures its processors.
ProfileOutcome run_profile(const Workload& app, const ProfileRequest& request, Platform& platform,
                           ProfileObserver& observer, const StopFlag* stop = nullptr);

}  // namespace ctrl::loop
