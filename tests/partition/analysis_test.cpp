// The paper's analysis of a front (ctrl/partition/analysis.hpp): gains against the load-balanced
// solution, load imbalance, time budgets and the dynamic- against the total-energy optimum, on the
// paper's worked example (every number by hand) and against enumeration.
#include "test_support.hpp"

#include <ctrl/errors.hpp>

#include <cmath>
#include <limits>
#include <random>

namespace ctrl::partition {
namespace {

using testing::random_profile;
using testing::Values;

// The worked example of the paper's section IV (paper_example_test.cpp): its front is
// (2 s, 5 J) {2,0,2,0}, (3 s, 4 J) {2,1,0,1}, (6 s, 2 J) {2,2,0,0}; its load-balanced solution
// {1,1,1,1} takes 3 s and 10 J.
Profile example() { return read_profile_csv(std::string(CTRL_PARTITION_DATA) + "/paper_example.csv"); }

TEST(Analysis, RelativeExcessAndItsZeros) {
  EXPECT_EQ(relative_excess(3.0, 2.0), 0.5);
  EXPECT_EQ(relative_excess(1.0, 2.0), -0.5);
  EXPECT_EQ(relative_excess(0.0, 0.0), 0.0);
  EXPECT_FALSE(relative_excess(1.0, 0.0));
}

TEST(Analysis, ClassifiesAgainstTheBalancedDistribution) {
  const Distribution lb{1, 1, 1, 1};
  EXPECT_EQ(classify({1, 1, 1, 1}, lb), Imbalance::balanced);
  EXPECT_EQ(classify({2, 1, 0, 1}, lb), Imbalance::strong);  // P2 idles
  EXPECT_EQ(classify({2, 1, 1, 0}, lb), Imbalance::strong);
  EXPECT_EQ(classify({1, 1, 1, 2}, {1, 1, 1, 1}), Imbalance::weak);  // every processor works, differently
  EXPECT_EQ(to_string(Imbalance::strong), "strong");
  EXPECT_EQ(to_string(Imbalance::weak), "weak");
  EXPECT_EQ(to_string(Imbalance::balanced), "balanced");
}

TEST(Analysis, ThePaperExampleByHand) {
  const Profile p = example();
  const Front front = hepopta(p, 4);
  ASSERT_EQ(front.size(), 3u);
  const auto lb = load_balanced(p, 4);
  ASSERT_TRUE(lb);
  const FrontAnalysis a = analyse_front(front, lb, {0.05, 0.5, 2.0});
  EXPECT_EQ(a.front_size, 3u);
  // The fastest point: the load-balanced solution takes (3 - 2) / 2 = 50 % more time and
  // (10 - 5) / 5 = 100 % more energy; the cheapest: it is 50 % faster, and 400 % dearer.
  EXPECT_EQ(a.time_optimal_gain.time, 0.5);
  EXPECT_EQ(a.time_optimal_gain.energy, 1.0);
  EXPECT_EQ(a.energy_optimal_gain.time, -0.5);
  EXPECT_EQ(a.energy_optimal_gain.energy, 4.0);
  // Every point leaves a processor idle: strong, with LIR T / 3.
  ASSERT_EQ(a.points.size(), 3u);
  const double lir[] = {2.0 / 3.0, 1.0, 2.0};
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(a.points[k].kind, Imbalance::strong);
    EXPECT_EQ(a.points[k].lir, lir[k]);
  }
  EXPECT_EQ(a.imbalance.strong.points, 3u);
  EXPECT_EQ(a.imbalance.strong.lir_min, 2.0 / 3.0);
  EXPECT_EQ(a.imbalance.strong.lir_max, 2.0);
  EXPECT_EQ(a.imbalance.weak.points + a.imbalance.balanced.points, 0u);
  // Budgets: 5 % keeps the fastest; 50 % reaches 3 s (exactly at the limit), 20 % less energy;
  // 200 % reaches the cheapest point.
  ASSERT_EQ(a.budgets.size(), 3u);
  EXPECT_EQ(a.budgets[0].index, 0u);
  EXPECT_EQ(a.budgets[0].time_limit, 2.1);
  EXPECT_EQ(a.budgets[0].energy_saving, 0.0);
  EXPECT_EQ(a.budgets[1].index, 1u);
  EXPECT_EQ(a.budgets[1].slowdown, 0.5);
  EXPECT_DOUBLE_EQ(*a.budgets[1].energy_saving, 0.2);
  EXPECT_EQ(a.budgets[2].index, 2u);
  EXPECT_DOUBLE_EQ(*a.budgets[2].energy_saving, 0.6);
}

TEST(Analysis, WithoutALoadBalancedSolutionOnlyBudgets) {
  const Front front{{1.0, 4.0, {1, 0}}, {2.0, 1.0, {0, 1}}};
  const FrontAnalysis a = analyse_front(front, std::nullopt);
  EXPECT_FALSE(a.load_balanced);
  EXPECT_TRUE(a.points.empty());
  EXPECT_FALSE(a.time_optimal_gain.time);
  ASSERT_EQ(a.budgets.size(), 1u);  // the default: 5 %
  EXPECT_EQ(a.budgets[0].budget, 0.05);
  EXPECT_EQ(a.budgets[0].index, 0u);
}

TEST(Analysis, WeakPointsAndZeroEnergies) {
  // Every processor works in the middle point, as in the balanced one: weak. No energy measured:
  // energy gains of 0 J against 0 J are 0, and the saving within a budget too.
  const Front front{{1.0, 0.0, {4, 0}}};
  const FrontAnalysis none = analyse_front(front, Solution{2.0, 0.0, {2, 2}});
  EXPECT_EQ(none.time_optimal_gain.time, 1.0);
  EXPECT_EQ(none.time_optimal_gain.energy, 0.0);
  EXPECT_EQ(none.budgets[0].energy_saving, 0.0);
  const Front three{{1.0, 9.0, {4, 0}}, {1.5, 6.0, {3, 1}}, {3.0, 2.0, {0, 4}}};
  const FrontAnalysis a = analyse_front(three, Solution{2.0, 8.0, {2, 2}});
  EXPECT_EQ(a.points[1].kind, Imbalance::weak);
  EXPECT_EQ(a.imbalance.weak.points, 1u);
  EXPECT_EQ(a.imbalance.weak.lir_min, 0.75);
  EXPECT_EQ(a.imbalance.strong.points, 2u);
  EXPECT_EQ(a.imbalance.strong.lir_min, 0.5);
  EXPECT_EQ(a.imbalance.strong.lir_max, 1.5);
}

TEST(Analysis, BadInputIsRefused) {
  const Front front{{1.0, 4.0, {1}}};
  EXPECT_THROW(analyse_front({}, std::nullopt), ctrl::UsageError);
  EXPECT_THROW(least_energy_within(front, -0.01), ctrl::UsageError);
  EXPECT_THROW(least_energy_within(front, std::nan("")), ctrl::UsageError);
  EXPECT_THROW(least_energy_within(front, std::numeric_limits<double>::infinity()), ctrl::UsageError);
  EXPECT_THROW(energy_optima({}, 1.0), ctrl::UsageError);
  EXPECT_THROW(energy_optima(front, -1.0), ctrl::UsageError);
}

// A budget's point is the least energy among every distribution within the time limit: checked
// against enumeration.
TEST(Analysis, BudgetsMatchEnumeration) {
  std::mt19937_64 rng(41);
  for (int i = 0; i < 200; ++i) {
    const Profile profile = random_profile(rng, 2 + i % 3, 6, 0.8, i % 2 ? Values::fine : Values::coarse);
    const Size n = 4 + static_cast<Size>(rng() % 8);
    const Front front = hepopta(profile, n);
    if (front.empty()) continue;
    SCOPED_TRACE("instance " + std::to_string(i));
    const Front all = brute_force_front(profile, n);  // by an independent algorithm
    for (const double budget : {0.0, 0.05, 0.3, 1.0}) {
      const BudgetPoint b = least_energy_within(front, budget);
      double least = std::numeric_limits<double>::infinity();
      for (const Solution& s : all)
        if (no_worse(s.time, b.time_limit)) least = std::min(least, s.energy);
      EXPECT_TRUE(same_value(front[b.index].energy, least));
      EXPECT_TRUE(no_worse(front[b.index].time, b.time_limit));
    }
  }
}

TEST(Analysis, EnergyOptimaOfThePaperExample) {
  const Front front = hepopta(example(), 4);
  const EnergyOptima zero = energy_optima(front, 0.0);
  EXPECT_TRUE(zero.same());
  EXPECT_EQ(zero.total_excess(), 0.0);
  // 1 W: totals 7, 7 and 8 J; of the two at 7 J the faster, {2,0,2,0}.
  const EnergyOptima one = energy_optima(front, 1.0);
  EXPECT_FALSE(one.same());
  EXPECT_EQ(one.dynamic_optimum.distribution, (Distribution{2, 2, 0, 0}));
  EXPECT_EQ(one.dynamic_optimum.total_energy, 8.0);
  EXPECT_EQ(one.total_optimum.distribution, (Distribution{2, 0, 2, 0}));
  EXPECT_EQ(one.total_optimum.total_energy, 7.0);
  EXPECT_EQ(one.total_excess(), 8.0 / 7.0 - 1.0);
  EXPECT_EQ(one.dynamic_excess(), 1.5);
}

// The total-energy optimum from the dynamic front is HTPOPTA's cheapest point.
TEST(Analysis, TotalOptimumIsHtpoptasLastPoint) {
  std::mt19937_64 rng(43);
  for (int i = 0; i < 200; ++i) {
    const Profile profile = random_profile(rng, 2 + i % 4, 8, 0.8, i % 2 ? Values::fine : Values::coarse);
    const Size n = 4 + static_cast<Size>(rng() % 12);
    const Front dynamic = hepopta(profile, n);
    if (dynamic.empty()) continue;
    SCOPED_TRACE("instance " + std::to_string(i));
    for (const double base : {0.0, 0.7, 5.0}) {
      const EnergyOptima o = energy_optima(dynamic, base);
      const Front total = htpopta(profile, n, base);
      const Solution& cheapest = total.back();
      EXPECT_TRUE(same_value(o.total_optimum.total_energy, cheapest.energy));
      EXPECT_EQ(o.total_optimum.time, cheapest.time);
      EXPECT_EQ(o.dynamic_optimum.dynamic_energy, dynamic.back().energy);
    }
  }
}

}  // namespace
}  // namespace ctrl::partition
