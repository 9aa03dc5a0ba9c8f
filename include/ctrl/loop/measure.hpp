// Repeated rounds of one distribution until the means are known well enough (docs/loop.md).
// Rounds are executions of the distribution, `batch` of them back to back (Team::run: what
// `ctrl run` measures), or fill rounds in which every processor repeats its block for the whole
// round (Team::fill: what `ctrl profile` measures). After warm-up (one round of one execution;
// for executions, another one that sizes the batch), rounds are
// repeated until the 95 % confidence interval of the mean time — and of the mean dynamic energy,
// for processors with a sensor — is within `precision` of the mean for every processor with work,
// with at least min_reps and at most max_reps rounds (and, when max_seconds > 0, no new round
// once that much time has passed after min_reps).
#pragma once
#include <ctrl/loop/stats.hpp>
#include <ctrl/loop/platform.hpp>
#include <ctrl/loop/team.hpp>

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ctrl::loop {

struct StopRule {
  int min_reps = 3;
  int max_reps = 30;
  double precision = 0.025;  // CI half-width / mean
  double max_seconds = 0.0;  // 0: no limit
  // Throws UsageError for inconsistent values.
  void validate() const;
};

struct ProcessorResult {
  Estimate time;                   // seconds per run
  std::optional<Estimate> energy;  // dynamic joules per run (nullopt: no energy of its own)
  std::optional<Estimate> held;    // executions: the part of `energy` after its block (RoundResult::held_j)
  double runs_per_round = 0.0;     // mean
  double exchange_s = 0.0;         // mean seconds per run spent exchanging halos (part of time)
  double cores_taken = 0.0;        // mean RoundResult::cores_taken: its cores' time other work took
};

// A processor whose cores other work took this share of or more was measured beside another job:
// its times are those of a busy machine, and the loop says so.
inline constexpr double contended_share = 0.10;

enum class RoundMode { executions, fill };

struct MeasureResult {
  int reps = 0;
  int batch = 1;      // executions per round (RoundMode::executions)
  int discarded = 0;  // rounds dropped (and reported) when one fell well short and the batch grew
  bool converged = false;
  bool interrupted = false;
  std::vector<ProcessorResult> processors;
  Estimate wall;           // seconds per run, common start to last completion
  double window_s = 0.0;   // mean energy window
  double elapsed_s = 0.0;  // everything, warm-up included
  std::string limiting;    // what kept the rule from being met, when not converged
};

struct RoundProgress {
  int rep = 0;  // rounds done (measured ones)
  int max_reps = 0;
  int batch = 1;
  double worst_relative_ci = 0.0;  // the largest relative CI among the stopping rule's quantities
};

// Checked after the warm-up and after each round; a set flag ends the measurement (interrupted).
using StopFlag = std::atomic<bool>;

// On a platform of several processes every member calls it together; stopping decisions that
// depend on a member's clock or flag are taken together (Platform::any).
MeasureResult measure(Platform& team, Problem& problem, const std::vector<Block>& blocks, const StopRule& rule,
                      RoundMode mode, const std::function<void(const RoundProgress&)>& progress = {},
                      const StopFlag* stop = nullptr);

// One line per such processor of a measurement: "cpu:0-1: other work took 34 % of its cores' time
// <where> (...)"; where: "at sizes 256/1024", "in this run".
std::vector<std::string> contention_notes(const Platform& team, const MeasureResult& m, const std::string& where);

}  // namespace ctrl::loop
