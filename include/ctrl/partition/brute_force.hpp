// The reference: every distribution enumerated, for tests and for tiny instances. It shares no
// code with the optimisers beyond the definitions in front.hpp (evaluation order, tolerance).
#pragma once
#include <ctrl/partition/front.hpp>
#include <ctrl/partition/profile.hpp>

#include <cstddef>
#include <optional>

namespace ctrl::partition {

// Default cap on the distributions one enumeration may visit.
inline constexpr std::size_t brute_force_limit = 20'000'000;

// The exact Pareto front by enumeration; empty when the workload cannot be split. Throws
// ctrl::UsageError when more than `limit` distributions would be visited.
Front brute_force_front(const Profile& profile, Size workload, const EnergyModel& model = {},
                        std::size_t limit = brute_force_limit);

// The time-optimal distribution of least dynamic energy (HPOPTA's answer) by enumeration.
std::optional<Solution> brute_force_time_optimal(const Profile& profile, Size workload,
                                                 std::size_t limit = brute_force_limit);

}  // namespace ctrl::partition
