// HPOPTA: the workload distribution that minimises the parallel time (the HEPOPTA paper cites
// it as [32]; here it is solved exactly by a dynamic programme over processors).
//
// Among all distributions x_0 + ... + x_{p-1} = n, where each non-zero x_i is a size of processor
// i's profile (any x_i may be 0), it returns one that minimises max_i t_i(x_i) and, among those
// (times the same to a relative 1e-12 count as equal), has the least dynamic energy.
//
// Cost: O(p * m * n) time and O(p * n) memory, with m sizes per processor and n the workload in
// units of the gcd of the sizes.
#pragma once
#include <ctrl/partition/front.hpp>
#include <ctrl/partition/profile.hpp>

#include <optional>

namespace ctrl::partition {

// The time-optimal distribution of least dynamic energy (Solution::energy is dynamic energy), or
// nullopt when the workload cannot be split exactly with the profile's sizes.
// Throws ctrl::UsageError for an empty profile or a workload that is not positive.
std::optional<Solution> hpopta(const Profile& profile, Size workload);

}  // namespace ctrl::partition
