// The HEPOPTA paper's analysis of a front (its sections I and VIII): how much the front's ends
// gain against the load-balanced solution, how imbalanced its points are, what a small slowdown
// buys in energy, and whether minimising dynamic energy also minimises total energy.
//
//   namespace cp = ctrl::partition;
//   const cp::Front front = cp::hepopta(profile, n);                 // (time, dynamic energy)
//   const auto balanced = cp::load_balanced(profile, n);            // equal times (load_balanced.hpp)
//   const cp::FrontAnalysis a = cp::analyse_front(front, balanced, {0.05, 0.10});
//   if (a.time_optimal_gain.time) use(*a.time_optimal_gain.time);   // 0.26: the load-balanced one is 26 % slower
//   for (const cp::BudgetPoint& b : a.budgets) use(front[b.index], b.energy_saving);
//   const cp::EnergyOptima o = cp::energy_optima(front, /*base power W*/ 90);
//   if (!o.same()) use(o.total_excess());                           // what the dynamic optimum wastes in total
//
// Definitions (the paper's words, made precise where they leave room):
// - Gain of a point X against the load-balanced solution LB, per objective f (time or energy):
//   (f(LB) - f(X)) / f(X), the paper's "percentage reduction against load balanced" (it reports
//   130 % and 260 %: the reduction is relative to the optimised value, so it can pass 100 %).
//   Negative when X is worse than LB in that objective.
// - Load imbalance ratio LIR(X) = T(X) / T(LB): the ratio of the execution times of an imbalanced
//   solution and the load-balanced one (below 1 when X is faster).
// - A point is balanced when it is the load-balanced distribution; strong(ly load-imbalanced) when
//   some processor that works in LB (every processor does) gets no work; weak when every
//   processor works, with workloads other than LB's.
// - Budget b: the point of least energy among those no slower than (1 + b) times the fastest time
//   (times the same to a relative 1e-12 count as equal).
// - Energy optima: the least-dynamic-energy distribution against the least-total-energy one
//   (total = dynamic + base power x parallel time), both from the dynamic front, which holds the
//   total-energy front (the paper, VI).
#pragma once
#include <ctrl/partition/front.hpp>

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace ctrl::partition {

// value / reference - 1; nullopt when the reference is 0 and the value is not (0 against 0 is 0).
std::optional<double> relative_excess(double value, double reference) noexcept;

enum class Imbalance { balanced, weak, strong };
std::string_view to_string(Imbalance kind) noexcept;  // "balanced", "weak", "strong"

// `x` against the load-balanced distribution (both of one profile's processors).
Imbalance classify(const Distribution& x, const Distribution& balanced) noexcept;

// The paper's gains of a point against the load-balanced solution: (LB - X) / X per objective;
// nullopt where X's value is 0 and LB's is not (energy not measured).
struct Gain {
  std::optional<double> time;
  std::optional<double> energy;
};
Gain gain_against(const Solution& x, const Solution& balanced) noexcept;

// One point of a front against the load-balanced solution.
struct PointImbalance {
  Imbalance kind = Imbalance::weak;
  std::optional<double> lir;  // T(X) / T(LB); nullopt when T(LB) is 0
};

// The points of one class, and the range of their LIR (0 and 0 when there are none).
struct ImbalanceClass {
  std::size_t points = 0;
  double lir_min = 0.0, lir_max = 0.0;
};
struct ImbalanceSummary {
  ImbalanceClass balanced, weak, strong;
};

// The least energy within a time budget.
struct BudgetPoint {
  double budget = 0.0;                  // the slowdown allowed over the fastest time, a fraction (0.05: 5 %)
  double time_limit = 0.0;              // (1 + budget) x the fastest time, s
  std::size_t index = 0;                // the front's point (0-based)
  double slowdown = 0.0;                // its time / the fastest time - 1
  std::optional<double> energy_saving;  // 1 - its energy / the fastest point's (nullopt: that is 0 J)
};
// Throws ctrl::UsageError for an empty front or a budget that is negative or not finite.
BudgetPoint least_energy_within(const Front& front, double budget);

struct FrontAnalysis {
  std::size_t front_size = 0;
  // Against the load-balanced solution: gains, points and imbalance are empty without one.
  std::optional<Solution> load_balanced;
  Gain time_optimal_gain, energy_optimal_gain;
  std::vector<PointImbalance> points;  // one per front point (empty without a load-balanced solution)
  ImbalanceSummary imbalance;
  std::vector<BudgetPoint> budgets;  // in the order asked
};

// The analysis of `front` (sorted by time, as every optimiser returns it; energies as its model
// says) against `balanced` (load_balanced() under the same model) for each budget. Throws
// ctrl::UsageError for an empty front or a bad budget.
FrontAnalysis analyse_front(const Front& front, const std::optional<Solution>& balanced,
                            const std::vector<double>& budgets = {0.05});

// One optimum with both energies.
struct EnergyOptimum {
  Distribution distribution;
  double time = 0.0, dynamic_energy = 0.0, total_energy = 0.0;
};
struct EnergyOptima {
  double base_power = 0.0;
  EnergyOptimum dynamic_optimum;  // least dynamic energy, then least time
  EnergyOptimum total_optimum;    // least total energy, then least time
  bool same() const noexcept { return dynamic_optimum.distribution == total_optimum.distribution; }
  // What minimising dynamic energy costs in total energy: total of the dynamic optimum / least
  // total - 1 (the paper's "difference in total energy between the dynamic-energy optimal and
  // total-energy optimal solutions").
  std::optional<double> total_excess() const noexcept;
  // What minimising total energy costs in dynamic energy: its dynamic / least dynamic - 1.
  std::optional<double> dynamic_excess() const noexcept;
};
// From the (time, dynamic energy) front. Throws ctrl::UsageError for an empty front or a base
// power that is negative or not finite.
EnergyOptima energy_optima(const Front& dynamic_front, double base_power);

}  // namespace ctrl::partition
