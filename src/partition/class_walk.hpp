// Private: the exact (time, dynamic energy) front of a platform made of a few classes of
// identical processors, without enumerating the copies one by one (issue #16; the idea of the
// HEPOPTA authors' work on clusters of hybrid nodes: a cluster is many copies of few node kinds).
//
// The front is walked over time thresholds. At a threshold T, a class of k copies can take a
// workload w at the least energy G_T(w), the k-fold (min, +) power of its items within T (an idle
// copy costs nothing); the least energy of the whole platform within T, E(T), is the (min, +)
// combination of the classes' G_T at n. E only falls as T grows, and every fall is a front point
// at time T. Going from one threshold to the next adds one item (x, e) to one class, and the
// k-fold power is updated in place, copy count by copy count,
//   H_j(w) = min(H_j(w), H_{j-1}(w - x) + e),   j = 1 .. k   (H_0 = 0 at w = 0),
// instead of being recomputed: k (n + 1) operations an item. The classes are combined in a
// balanced tree whose nodes on the changed class's path are recomputed. The walk starts at the
// least feasible time (found with reachability bitsets) and stops where E reaches the least
// energy of any distribution. Distributions come back by following the least choices down the
// tree and the copy counts.
#pragma once
#include "instance.hpp"

#include <ctrl/partition/classes.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace ctrl::partition::detail {

struct ClassWalkStats {
  std::size_t thresholds = 0;   // thresholds at which E was computed
  std::size_t table_bytes = 0;  // the copy-count tables and the tree
  double bound_seconds = 0.0;   // least feasible time and least energy
  double walk_seconds = 0.0;    // the walk and the distributions
};

// The bytes the walk's tables would take, or nullopt when they exceed `memory_cap`.
std::optional<std::size_t> class_walk_bytes(const Instance& in, const ProcessorClasses& classes,
                                            std::size_t memory_cap);

// Whether the walk is expected to beat the sweep over processors: it pays per threshold, which
// grow with the classes and their sizes, where the sweep pays per processor. Measured: 5 classes
// of 200 (m = 64) 1 s against 41 s; 4 classes of 8 (m = 2000) 2.0 s against 6.4 s; 8 classes of
// 4, 12.5 s against 7.0 s; 16 of 2, 64 s against 9.7 s.
bool class_walk_pays(const Instance& in, const ProcessorClasses& classes);

class Pool;

// The parts (normalised, per processor) of one distribution per point where the least energy
// falls: a superset of the exact front (pareto_filter keeps the front). Empty when no distribution
// exists. The floors and the combinations run on the pool's threads.
std::vector<std::vector<std::int32_t>> class_walk(const Instance& in, const ProcessorClasses& classes, Pool& pool,
                                                  ClassWalkStats* stats = nullptr);

}  // namespace ctrl::partition::detail
