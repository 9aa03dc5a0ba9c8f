// Load balancing, in the two senses a user meets: the HEPOPTA paper's load-balanced solution
// (equal execution times; the blue circle of its figures, and what every gain it reports is
// measured against) and the most even split of the workload (what a row-count balancer makes).
//
// load_balanced: the paper defines the load-balanced solution as the one "where all the processors
// involved in the parallel execution of a given workload have equal execution times". On measured,
// discrete time functions exact equality is rarely attainable, so here it is:
//   1. every processor works: every x_i > 0 is a size of processor i's profile and sum x_i = n (a
//      load balancer uses every processor; were idle ones allowed, one processor doing everything
//      would be trivially "balanced");
//   2. the spread of execution times, max_i t_i(x_i) - min_i t_i(x_i), is the least possible;
//   3. among those, the least parallel time, then the least energy.
// On profiles whose times grow with the size this is the split where the time functions cross:
// the paper's continuous load-balanced solution, to the resolution of the measured sizes.
//
// even_split: every processor works (as 1. above) and the work is as even as the sizes allow:
// the spread max_i x_i - min_i x_i is the least possible; among those, the least parallel time,
// then the least energy. When every processor has every size up to ceil(n/p), this is the usual
// split: n mod p processors get ceil(n/p) and the others floor(n/p).
//
// Both are nullopt when no distribution gives every processor work (fewer units than processors,
// or sizes that cannot add up to n). Solution::energy is dynamic or total as `model` says.
//
// Cost (p processors, m sizes each, n in units of the sizes' gcd, K <= p*m distinct times):
//   load_balanced: a two-pointer search over windows [t_lo, t_hi] of times, narrower than the
//   spread of the fastest all-working distribution (O(p*m*n), the search's first bound) and shrinking
//   with every better window found; at most 2K windows are checked, each in O(p log m) when the
//   sizes of each processor's times in the window are contiguous, else by a subset sum over bitsets
//   (O(p*k*n/64), k sizes in the window); then the least energy within the best window, O(p*m*n).
//   even_split: the same over windows [a, b] of sizes, then HPOPTA restricted to the best windows.
#pragma once
#include <ctrl/partition/front.hpp>
#include <ctrl/partition/profile.hpp>

#include <optional>

namespace ctrl::partition {

// The paper's load-balanced solution: every processor works, execution times as equal as possible.
std::optional<Solution> load_balanced(const Profile& profile, Size workload, const EnergyModel& model = {});

// The most even split of the workload over every processor.
std::optional<Solution> even_split(const Profile& profile, Size workload, const EnergyModel& model = {});

// The least and the greatest execution time among the processors that work in `x`.
struct TimeSpread {
  double fastest = 0.0;
  double slowest = 0.0;  // the parallel time
  // (slowest - fastest) / slowest: 0 for equal times (and for no work at all).
  double relative() const noexcept { return slowest > 0.0 ? (slowest - fastest) / slowest : 0.0; }
};
// Throws ctrl::UsageError when `x` is not a valid distribution of `workload` (as make_solution).
TimeSpread time_spread(const Profile& profile, const Distribution& x, Size workload);

}  // namespace ctrl::partition
