// Which distribution of a front to run: a point by name or number, a balanced distribution, or
// the best point within a budget on the other objective ("the least energy within 5 % of the
// fastest time").
//
//   const ctrl::loop::Pick pick = ctrl::loop::Pick::parse("energy@time+5%");
//   const ctrl::loop::PointChoice c = ctrl::loop::choose_point(pick, front, "the front of p.csv");
//   run(front[c.index]);   // c.reason: why that point, in words
#pragma once
#include <ctrl/partition/front.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace ctrl::loop {

// A bound on one objective; a pick by budget minimises the other within it.
struct Bound {
  enum Quantity { time, energy } on = time;
  // relative: `value` is the change allowed over the fastest point's time or energy (+0.05: up to
  // 5 % more; -0.2: at least 20 % less); else it is the bound itself, in s or J.
  bool relative = true;
  double value = 0.0;
};

// A point of a front: the fastest, the least energy, the k-th point by time (1-based), or the best
// within a budget; or, computed from the profile (ctrl/partition/load_balanced.hpp), the
// load-balanced distribution (the HEPOPTA paper's: every processor works, times as equal as
// possible) or the even split (every processor works, rows as equal as possible).
struct Pick {
  // all: every point of the front (plan_front; plan_run refuses it).
  enum Kind { fastest, least_energy, load_balanced, even, point, all, budget } kind = fastest;
  std::size_t k = 0;  // for point
  Bound bound;        // for budget

  constexpr Pick(Kind kind_ = fastest, std::size_t k_ = 0, Bound bound_ = {}) : kind(kind_), k(k_), bound(bound_) {}

  // "fastest" (or "time-optimal"), "least-energy" (or "energy-optimal"), "load-balanced", "even"
  // (or "even-split"), "all", K, or a budget:
  //   energy@time+5%      the least energy within 5 % of the fastest time
  //   time@energy-20%     the fastest using at most 80 % of the fastest point's energy
  //   energy@time<=2.5s   the least energy within 2.5 s (s, ms, us)
  //   time@energy<=300J   the fastest within 300 J (J, kJ, mJ)
  // UsageError naming the text otherwise.
  static Pick parse(std::string_view text);
  static Pick within(Bound bound) { return {budget, 0, bound}; }
  std::string name() const;
  // Whether the pick compares energies (least-energy, K and budgets do; fastest and the
  // balanced distributions do not).
  bool by_energy() const;
};

// The point of a front (sorted by time, as every optimiser returns it) a pick names, and why.
struct PointChoice {
  std::size_t index = 0;  // 0-based
  std::string reason;     // for a budget: the bound, the point and what it gives up and saves
};
// `where` names the front in messages ("the front of p.csv"). UsageError for a point the front
// does not have or a pick that is not a point (balanced, all); InfeasibleError for a budget no point
// meets, naming the bound and the nearest point.
PointChoice choose_point(const Pick& pick, const partition::Front& front, const std::string& where);

}  // namespace ctrl::loop
