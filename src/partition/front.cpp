#include <ctrl/errors.hpp>
#include <ctrl/partition/front.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace ctrl::partition {

bool same_value(double a, double b) noexcept {
  if (a == b) return true;
  return std::fabs(a - b) <= relative_tolerance * std::max(std::fabs(a), std::fabs(b));
}

bool no_worse(double a, double b) noexcept { return a <= b || same_value(a, b); }

void EnergyModel::validate() const {
  if (!std::isfinite(base_power) || base_power < 0.0)
    throw UsageError("the base power must be a finite, non-negative number of watts, not " +
                     std::to_string(base_power));
}

std::optional<Evaluation> evaluate(const Profile& profile, const Distribution& x, Size workload) {
  if (x.size() != profile.size()) return std::nullopt;
  Evaluation ev;
  Size sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] < 0) return std::nullopt;
    if (x[i] == 0) continue;  // e_i(0) = 0: adding it changes no sum
    const ProfilePoint* pt = profile[i].find(x[i]);
    if (pt == nullptr) return std::nullopt;
    ev.time = std::max(ev.time, pt->time);
    ev.dynamic_energy = ev.dynamic_energy + pt->energy;
    sum += x[i];
  }
  if (sum != workload) return std::nullopt;
  return ev;
}

Solution make_solution(const Profile& profile, const Distribution& x, Size workload, const EnergyModel& model) {
  const std::optional<Evaluation> ev = evaluate(profile, x, workload);
  if (!ev) throw UsageError("not a valid distribution of workload " + std::to_string(workload));
  return Solution{ev->time, model.energy(ev->time, ev->dynamic_energy), x};
}

bool same_point(const Solution& a, const Solution& b) noexcept {
  return same_value(a.time, b.time) && same_value(a.energy, b.energy);
}

bool dominates(const Solution& a, const Solution& b) noexcept {
  return no_worse(a.time, b.time) && no_worse(a.energy, b.energy) && !same_point(a, b);
}

Front pareto_filter(std::vector<Solution> candidates) {
  std::sort(candidates.begin(), candidates.end(), [](const Solution& a, const Solution& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.energy != b.energy) return a.energy < b.energy;
    return a.distribution < b.distribution;  // a fixed choice among equal points
  });
  Front front;
  for (Solution& c : candidates) {
    // Every kept point is no slower than c, and the last kept has the least energy so far.
    if (!front.empty() && no_worse(front.back().energy, c.energy)) continue;
    // c is strictly cheaper than every kept point: it dominates those whose time is the same.
    while (!front.empty() && same_value(front.back().time, c.time)) front.pop_back();
    front.push_back(std::move(c));
  }
  return front;
}

Front to_total_energy(const Profile& profile, const Front& dynamic_front, Size workload, double base_power) {
  const EnergyModel model{EnergyKind::total, base_power};
  model.validate();
  std::vector<Solution> candidates;
  candidates.reserve(dynamic_front.size());
  for (const Solution& s : dynamic_front) candidates.push_back(make_solution(profile, s.distribution, workload, model));
  return pareto_filter(std::move(candidates));
}

}  // namespace ctrl::partition
