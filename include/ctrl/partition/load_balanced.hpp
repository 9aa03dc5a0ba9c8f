// The load-balanced distribution: the paper's blue circle, the split a load balancer would make.
//
// Definition (ours: the paper draws it without a formula). Every processor gets work, and the
// work is as even as the profiles' sizes allow:
//   1. every x_i > 0 is a size of processor i's profile and sum x_i = n;
//   2. the spread max_i x_i - min_i x_i is the least possible;
//   3. among those, the least parallel time, then the least dynamic energy.
// When every processor has every size up to ceil(n/p), this is the usual split: n mod p
// processors get ceil(n/p) and the others floor(n/p). It does not exist when no distribution
// gives every processor work (then the plot says so).
//
// Cost: windows [a, b] of sizes are tried with a two-pointer search, each checked by a subset-sum
// over bitsets (O(p * k * n / 64), k sizes in the window, or O(p) when the windows' sizes are
// contiguous); the chosen windows are then solved as HPOPTA restricted to them.
#pragma once
#include <ctrl/partition/front.hpp>
#include <ctrl/partition/profile.hpp>

#include <optional>

namespace ctrl::partition {

std::optional<Solution> load_balanced(const Profile& profile, Size workload, const EnergyModel& model = {});

}  // namespace ctrl::partition
