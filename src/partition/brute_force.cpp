#include <ctrl/errors.hpp>
#include <ctrl/partition/brute_force.hpp>

#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ctrl::partition {

namespace {

// Calls visit(x, time, dynamic energy) for every distribution of `workload`, with the energy
// summed in processor order.
template <class Visit>
void enumerate(const Profile& profile, Size workload, std::size_t limit, Visit&& visit) {
  if (profile.empty()) throw UsageError("the profile has no processors");
  if (workload <= 0) throw UsageError("the workload must be a positive integer");
  const std::size_t p = profile.size();
  Distribution x(p, 0);
  std::size_t visited = 0;
  std::function<void(std::size_t, Size, double, double)> rec = [&](std::size_t i, Size left, double time,
                                                                   double energy) {
    if (++visited > limit)
      throw UsageError("brute force: more than " + std::to_string(limit) + " distributions to visit");
    if (i + 1 == p) {  // the last processor takes what is left
      if (left == 0) {
        x[i] = 0;
        visit(x, time, energy + 0.0);
      } else if (const ProfilePoint* pt = profile[i].find(left)) {
        x[i] = left;
        visit(x, std::max(time, pt->time), energy + pt->energy);
      }
      return;
    }
    x[i] = 0;
    rec(i + 1, left, time, energy + 0.0);
    for (const ProfilePoint& pt : profile[i].points()) {
      if (pt.size > left) break;
      x[i] = pt.size;
      rec(i + 1, left - pt.size, std::max(time, pt.time), energy + pt.energy);
    }
    x[i] = 0;
  };
  rec(0, workload, 0.0, 0.0);
}

}  // namespace

Front brute_force_front(const Profile& profile, Size workload, const EnergyModel& model, std::size_t limit) {
  model.validate();
  std::vector<Solution> all;
  enumerate(profile, workload, limit, [&](const Distribution& x, double time, double energy) {
    Solution s{time, model.energy(time, energy), x};
    // Keep the candidate list small: drop what an already kept point dominates exactly.
    for (const Solution& kept : all)
      if (kept.time <= s.time && kept.energy <= s.energy) return;
    std::erase_if(all, [&](const Solution& kept) { return s.time <= kept.time && s.energy <= kept.energy; });
    all.push_back(std::move(s));
  });
  return pareto_filter(std::move(all));
}

std::optional<Solution> brute_force_time_optimal(const Profile& profile, Size workload, std::size_t limit) {
  std::vector<Solution> all;
  double best = 0.0;
  enumerate(profile, workload, limit, [&](const Distribution& x, double time, double energy) {
    if (all.empty() || time < best) best = time;
    all.push_back(Solution{time, energy, x});
    // Keep only those that can still be time-optimal.
    if (all.size() > 4096)
      std::erase_if(all, [&](const Solution& s) { return !same_value(s.time, best) && s.time > best; });
  });
  std::optional<Solution> out;
  for (Solution& s : all)
    if (same_value(s.time, best) && (!out || s.energy < out->energy)) out = std::move(s);
  return out;
}

}  // namespace ctrl::partition
