// The (1 + epsilon)-approximate front: for platforms where the exact front is too slow (ten
// thousand processors), a front with a proven guarantee. Every exact Pareto point (T, E) has a
// reported point (T', E') with T' <= (1 + epsilon) T and E' <= (1 + epsilon) E; every reported
// point is a valid distribution whose objectives are exactly those reported.
//
// How (docs/partition.md, "The approximate front"): the time thresholds are the profile's times
// thinned so that consecutive ones are at most a factor 1 + epsilon apart. At each threshold the
// least energy of a distribution within it is bounded from below by the Lagrangian relaxation of
// the workload constraint (the lower convex hulls of the processors' (size, energy) points, merged
// by slope), and a distribution is built from the relaxation's choice by re-optimising exactly the
// few processors at its margin. It is kept once its energy is within 1 + epsilon of the bound;
// otherwise more processors are re-optimised, up to all of them (then the threshold's least energy
// is exact). Identical processors (classes.hpp) are one hull with a multiplicity. Thresholds are
// independent: they are shared between threads and the front is the same for any thread count.
#pragma once
#include <ctrl/partition/front.hpp>
#include <ctrl/partition/profile.hpp>

#include <cstddef>

namespace ctrl::partition {

struct ApproxOptions {
  unsigned threads = 0;  // 0: every core this process may use; more than those is a ctrl::UsageError
};

struct ApproxStats {
  std::size_t thresholds = 0;  // thresholds examined (feasible ones)
  std::size_t classes = 0;     // processor classes
  std::size_t widened = 0;     // re-optimisations beyond the first (the margin was too small)
  std::size_t exact = 0;       // thresholds solved exactly over every processor
  unsigned threads = 1;
};

// The (1 + epsilon)-approximate (time, dynamic energy) front, sorted by time, one distribution
// per point; empty when the workload cannot be split. Throws ctrl::UsageError for an empty
// profile, a workload that is not positive, an epsilon that is not a positive finite number, or
// more threads than cores; ctrl::DeviceError where the system will not start a thread.
Front approximate_front(const Profile& profile, Size workload, double epsilon, const ApproxOptions& options = {},
                        ApproxStats* stats = nullptr);

}  // namespace ctrl::partition
