#include <ctrl/partition/analysis.hpp>

#include <ctrl/errors.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace ctrl::partition {

namespace {

void check_front(const Front& front, const char* what) {
  if (front.empty()) throw UsageError(std::string(what) + ": the front is empty");
}

ImbalanceClass& class_of(ImbalanceSummary& s, Imbalance kind) {
  switch (kind) {
    case Imbalance::balanced:
      return s.balanced;
    case Imbalance::weak:
      return s.weak;
    case Imbalance::strong:
      break;
  }
  return s.strong;
}

void add_to(ImbalanceClass& c, const std::optional<double>& lir) {
  if (lir) {
    const bool first = c.points == 0;  // every point has an LIR, or none has (T(LB) = 0)
    c.lir_min = first ? *lir : std::min(c.lir_min, *lir);
    c.lir_max = first ? *lir : std::max(c.lir_max, *lir);
  }
  ++c.points;
}

EnergyOptimum optimum(const Solution& s, double base_power) {
  return {s.distribution, s.time, s.energy, s.energy + base_power * s.time};
}

}  // namespace

std::optional<double> relative_excess(double value, double reference) noexcept {
  if (reference == 0.0) return value == 0.0 ? std::optional<double>(0.0) : std::nullopt;
  return value / reference - 1.0;
}

std::string_view to_string(Imbalance kind) noexcept {
  switch (kind) {
    case Imbalance::balanced:
      return "balanced";
    case Imbalance::weak:
      return "weak";
    case Imbalance::strong:
      return "strong";
  }
  return "?";
}

Imbalance classify(const Distribution& x, const Distribution& balanced) noexcept {
  if (x == balanced) return Imbalance::balanced;
  for (std::size_t i = 0; i < x.size() && i < balanced.size(); ++i)
    if (x[i] == 0 && balanced[i] != 0) return Imbalance::strong;
  return Imbalance::weak;
}

Gain gain_against(const Solution& x, const Solution& balanced) noexcept {
  return {relative_excess(balanced.time, x.time), relative_excess(balanced.energy, x.energy)};
}

BudgetPoint least_energy_within(const Front& front, double budget) {
  check_front(front, "least_energy_within");
  if (!std::isfinite(budget) || budget < 0)
    throw UsageError("a time budget must be a finite, non-negative fraction, not " + std::to_string(budget));
  BudgetPoint b;
  b.budget = budget;
  b.time_limit = (1.0 + budget) * front.front().time;
  // Sorted by time, so by falling energy: the last point within the limit is the cheapest.
  for (std::size_t k = 1; k < front.size() && no_worse(front[k].time, b.time_limit); ++k) b.index = k;
  const Solution& s = front[b.index];
  b.slowdown = relative_excess(s.time, front.front().time).value_or(0.0);  // the fastest time 0: every point's is
  if (const auto more = relative_excess(s.energy, front.front().energy)) b.energy_saving = 0.0 - *more;  // never -0
  return b;
}

FrontAnalysis analyse_front(const Front& front, const std::optional<Solution>& balanced,
                            const std::vector<double>& budgets) {
  check_front(front, "analyse_front");
  FrontAnalysis a;
  a.front_size = front.size();
  for (const double b : budgets) a.budgets.push_back(least_energy_within(front, b));
  if (!balanced) return a;
  a.load_balanced = balanced;
  a.time_optimal_gain = gain_against(front.front(), *balanced);
  a.energy_optimal_gain = gain_against(front.back(), *balanced);
  for (const Solution& s : front) {
    const Imbalance kind = classify(s.distribution, balanced->distribution);
    const auto lir = balanced->time > 0.0 ? std::optional<double>(s.time / balanced->time) : std::nullopt;
    a.points.push_back({kind, lir});
    add_to(class_of(a.imbalance, kind), lir);
  }
  return a;
}

std::optional<double> EnergyOptima::total_excess() const noexcept {
  return relative_excess(dynamic_optimum.total_energy, total_optimum.total_energy);
}

std::optional<double> EnergyOptima::dynamic_excess() const noexcept {
  return relative_excess(total_optimum.dynamic_energy, dynamic_optimum.dynamic_energy);
}

EnergyOptima energy_optima(const Front& dynamic_front, double base_power) {
  check_front(dynamic_front, "energy_optima");
  EnergyModel{EnergyKind::total, base_power}.validate();
  // The least total energy; among totals that are the same, the first in time order (the least
  // time), as the (time, total energy) front keeps it.
  const auto total = [&](const Solution& s) { return s.energy + base_power * s.time; };
  const Solution* best = &dynamic_front.front();
  for (const Solution& s : dynamic_front)
    if (total(s) < total(*best) && !same_value(total(s), total(*best))) best = &s;
  return {base_power, optimum(dynamic_front.back(), base_power), optimum(*best, base_power)};
}

}  // namespace ctrl::partition
