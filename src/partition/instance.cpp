#include "instance.hpp"

#include <ctrl/errors.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>

namespace ctrl::partition::detail {

std::uint32_t Instance::rank_of(double t) const noexcept {
  return static_cast<std::uint32_t>(std::lower_bound(times.begin(), times.end(), t) - times.begin());
}

double Instance::same_time_limit(double t) const noexcept {
  std::size_t r = rank_of(t);
  while (r + 1 < times.size() && same_value(times[r + 1], t)) ++r;
  return r < times.size() ? times[r] : t;
}

Distribution Instance::to_distribution(const std::vector<std::int32_t>& parts) const {
  Distribution d(parts.size());
  for (std::size_t i = 0; i < parts.size(); ++i) d[i] = static_cast<Size>(parts[i]) * unit;
  return d;
}

std::optional<Instance> make_instance(const Profile& profile, Size workload, bool table_limit) {
  if (profile.empty()) throw UsageError("the profile has no processors");
  if (workload <= 0) throw UsageError("the workload must be a positive integer, not " + std::to_string(workload));

  Size unit = 0;
  Size reach = 0;  // the largest workload any distribution can have
  for (const ProcessorProfile& proc : profile) {
    Size largest = 0;
    for (const ProfilePoint& pt : proc.points())
      if (pt.size <= workload) {
        unit = std::gcd(unit, pt.size);
        largest = pt.size;
      }
    reach += largest;
    if (reach >= workload) reach = workload;  // no overflow: only whether n is reachable matters
  }
  if (unit == 0 || reach < workload || workload % unit != 0) return std::nullopt;

  Instance in;
  in.p = static_cast<int>(profile.size());
  in.unit = unit;
  const Size n = workload / unit;
  if (table_limit && static_cast<double>(n + 1) * static_cast<double>(in.p + 1) > static_cast<double>(max_table_cells))
    throw TooLargeError("the workload " + std::to_string(workload) +
                        " is too large for the exact algorithms: " + std::to_string(n) + " units of " +
                        std::to_string(unit) + " on " + std::to_string(in.p) + " processors exceed the table limit");
  if (n > INT32_MAX - 1)
    throw UsageError("the workload " + std::to_string(workload) + " is too large: " + std::to_string(n) + " units of " +
                     std::to_string(unit));
  in.n = static_cast<std::int32_t>(n);
  in.times.push_back(0.0);
  in.items.resize(profile.size());
  for (std::size_t i = 0; i < profile.size(); ++i) {
    for (const ProfilePoint& pt : profile[i].points()) {
      if (pt.size > workload) break;
      in.items[i].push_back(Item{static_cast<std::int32_t>(pt.size / unit), pt.time, pt.energy, 0});
      in.times.push_back(pt.time);
    }
  }
  std::sort(in.times.begin(), in.times.end());
  in.times.erase(std::unique(in.times.begin(), in.times.end()), in.times.end());
  for (auto& items : in.items)
    for (Item& it : items) it.rank = in.rank_of(it.time);
  return in;
}

}  // namespace ctrl::partition::detail
