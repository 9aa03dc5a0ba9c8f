// The fast exact method for HEPOPT: a dynamic programme over processors whose state, for every
// partial workload w, is the Pareto set of (parallel time, dynamic energy) of the first k
// processors. See docs/partition.md for the algorithm, its bounds and its cost.
//
// In short, processor k is merged by a sweep over the distinct times in increasing order: when the
// sweep reaches a time, the items of processor k with that time become usable and the partial
// fronts of processors 0..k-1 that improve at that time are combined with every usable item. A
// target's energy only ever decreases during the sweep, so each decrease is a new Pareto point,
// already in time order: no sorting, and the inner loops are contiguous min-updates. Points are
// dropped when no completion can reach the front: completions are never faster than the least
// time of the remaining processors (times below it are merged), never beyond the time of an
// energy-optimal distribution, and never cheaper than exact lower bounds on the remaining
// processors' energy computed at a few time thresholds ("probes"), compared with the energies
// those probes achieve. Parent pointers (8 bytes a point) give the distributions back. Where
// they would pass DpOptions::memory_limit, the levels past it are kept only as checkpoints every
// few levels, and the segments between are swept again at the end, last first, to walk the
// front's points back through them: the same front, for up to one more sweep of those levels.
//
// Where processors repeat (processor_classes), the same front comes from a walk over time
// thresholds that combines whole classes (src/partition/class_walk.hpp; docs/partition.md,
// "Clusters"): a thousand processors of five kinds in about a second instead of 41.
#pragma once
#include <ctrl/partition/front.hpp>
#include <ctrl/partition/profile.hpp>

#include <cstddef>

namespace ctrl::partition {

// How the exact programme uses identical processors (processor_classes); the front is the same.
enum class ClassUse {
  automatic,  // the class walk where processors repeat enough for it to pay (at most 32 classes,
              // at least 8 copies a class on average) and its tables fit in 2 GiB; else the sweep
  walk,       // the class walk wherever its tables fit (any number of classes), else the sweep
  sweep,      // always the sweep over processors
};

struct DpOptions {
  // 0: every core this process may use (one for small instances); more than those cores is a
  // ctrl::UsageError.
  unsigned threads = 0;
  // Time thresholds for the energy bounds; 0 turns those bounds off. Negative (the default): 64,
  // or 128 on large instances (those swept on several threads), where the sweep's points cost more
  // than the thresholds' programmes (bench/results/partition-processors.md).
  int probes = -1;
  ClassUse classes = ClassUse::automatic;
  // Bytes the sweep over processors aims to stay within (DpStats::table_bytes). Every level's
  // parent pointers are kept while they fit; past that, levels are cut into segments whose
  // pointers are held only while the segment is swept: each finished segment's paths are then
  // summarised (about a byte a point) while the summaries fit, and the other segments are swept
  // again from checkpoints to recover the distributions (the same front, for up to one more
  // sweep of those levels). SIZE_MAX keeps every pointer whatever they need. The sweep's own
  // storage (two levels, their records, the probes' tables: about 800 MiB at p = 1000,
  // n = 16,000) and the checkpoints are held in any case, so a limit below them is passed. The
  // probes' tables take up to a quarter of the limit (at least 256 MiB, at most 1 GiB).
  std::size_t memory_limit = std::size_t{2} << 30;
};

// What one run did, for benchmarks and tests.
struct DpStats {
  std::size_t classes = 0;      // classes walked; 0 when the sweep over processors ran
  std::size_t thresholds = 0;   // the class walk's thresholds
  std::size_t states = 0;       // the sweep's partial Pareto points, summed over the processors
  std::size_t probes = 0;       // thresholds used
  unsigned threads = 1;         // threads used by the sweep
  std::size_t table_bytes = 0;  // largest memory held by the programme's tables at once
  // Levels kept as checkpoints (DpOptions::memory_limit); 0 when every parent pointer fitted.
  std::size_t checkpoints = 0;
  // Levels swept again from their checkpoints to give the distributions back.
  std::size_t recomputed_levels = 0;
  // Levels whose paths were summarised as the sweep passed them (a byte or so a point), so that
  // they are not swept again.
  std::size_t summarised_levels = 0;
  double bound_seconds = 0.0;  // time-optimal and energy-optimal solutions, probes
  double sweep_seconds = 0.0;  // the Pareto sweep and the distributions
  // Where the sweep over processors spends sweep_seconds (wall time of the calling thread):
  double level_bound_seconds = 0.0;  // the probes' bounds of each level (and rows between kept ones)
  double targets_seconds = 0.0;      // the threads' sweeps of the targets, every level
  double events_seconds = 0.0;       // of that, the threads' sources bucketed by time (a thread's mean)
  double collect_seconds = 0.0;      // the points and their parent pointers gathered, every level
  double recover_seconds = 0.0;      // the walk back to the distributions (segments swept again)
  // The busiest thread's sweep (its CPU time) against the threads' mean, summed over the levels
  // (1: even).
  double imbalance = 1.0;
};

// The exact (time, dynamic energy) Pareto front; empty when the workload cannot be split.
// Throws ctrl::UsageError for an empty profile, a workload that is not positive, or more threads
// than cores; ctrl::DeviceError where the system will not start a thread (ulimit -u).
Front pareto_front_dp(const Profile& profile, Size workload, const DpOptions& options = {}, DpStats* stats = nullptr);

}  // namespace ctrl::partition
