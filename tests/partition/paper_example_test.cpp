// The worked example of section IV of the HEPOPTA paper: four processors, workload 4.
//
// Figure 10's functions are not in the text; these are rebuilt from every value the text gives:
// the edges (2,1,2) of P0, (2,1,6) and (1,2,3) of P1, the saved sets of nodes 2(b), 3(c) and 4(d),
// the energy order {0,2,1,3,4} of P0, the threshold eps = 5 and sigma = {8,5,3,1} (so P3 has one
// point within eps, P2 and P1 two, P0 three), and the final front.
#include "test_support.hpp"

#include <algorithm>

namespace ctrl::partition {
namespace {

using testing::same_front;

//                                 size  time  energy
Profile example() {
  return Profile({ProcessorProfile("P0", {{1, 1, 2}, {2, 2, 1}, {3, 3, 4}, {4, 4, 7}}),
                  ProcessorProfile("P1", {{1, 3, 2}, {2, 6, 1}, {3, 9, 6}, {4, 12, 8}}),
                  ProcessorProfile("P2", {{1, 1, 5}, {2, 2, 4}, {3, 3, 6}, {4, 4, 8}}),
                  ProcessorProfile("P3", {{1, 1, 1}, {2, 2, 6}, {3, 3, 7}, {4, 4, 8}})});
}

// <eng, time, part, P#, key> as the paper writes the quintuples; key < 0 stands for the empty set.
struct Quintuple {
  double energy, time;
  Size part;
  int active;
  double key;
};

void expect_saved(const PaperTrace& trace, int level, Size w, std::vector<Quintuple> expected) {
  SCOPED_TRACE("node of level " + std::to_string(level) + ", workload " + std::to_string(w));
  const auto* saved = trace.saved(level, w);
  ASSERT_NE(saved, nullptr);
  ASSERT_EQ(saved->size(), expected.size());
  std::sort(expected.begin(), expected.end(),
            [](const Quintuple& a, const Quintuple& b) { return a.energy < b.energy; });
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const PaperMemoEntry& e = (*saved)[i];
    EXPECT_EQ(e.energy, expected[i].energy);
    EXPECT_EQ(e.time, expected[i].time);
    EXPECT_EQ(e.part, expected[i].part);
    EXPECT_EQ(e.active, expected[i].active);
    if (expected[i].key < 0) {
      EXPECT_FALSE(e.key.has_value());
    } else {
      ASSERT_TRUE(e.key.has_value());
      EXPECT_EQ(*e.key, expected[i].key);
    }
  }
}

TEST(PaperExample, TimeOptimalDistribution) {
  const auto best = hpopta(example(), 4);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->distribution, (Distribution{2, 0, 2, 0}));  // X_topt = {2,0,2,0}
  EXPECT_EQ(best->time, 2.0);                                 // t_opt = 2
  EXPECT_EQ(best->energy, 5.0);
}

TEST(PaperExample, ThresholdsAndSavedSets) {
  PaperTrace trace;
  const Front front = hepopta_paper(example(), 4, &trace);
  EXPECT_EQ(trace.epsilon, 5.0);  // "eps in this example is set to 5"
  EXPECT_EQ(trace.time_optimal.distribution, (Distribution{2, 0, 2, 0}));
  EXPECT_EQ(trace.size_thresholds, (std::vector<Size>{8, 5, 3, 1}));  // sigma = {8,5,3,1}

  // 2(b): P0 and P1 got 0 and 2; workload 2 left for P2, P3.
  expect_saved(trace, 2, 2, {{4, 2, 2, 1, -1}, {6, 1, 1, 2, -1}});
  // 3(c): workload 3 left for P2, P3.
  expect_saved(trace, 2, 3, {{5, 2, 2, 2, -1}});
  // 4(d): P0 got 0; merged from 2(b) through the edge (2,1,6) and from 3(c) through (1,2,3).
  expect_saved(trace, 1, 4, {{7, 3, 1, 3, 5}, {5, 6, 2, 2, 4}});
  // 4(a), workload 4 at level 2, exceeds sigma_2 = 3: cut, never saved.
  EXPECT_EQ(trace.saved(2, 4), nullptr);
  EXPECT_GT(trace.cuts, 0u);
  EXPECT_GT(trace.saves, 0u);
  EXPECT_GT(trace.reads, 0u);  // 2(e) is read from PMem

  // The globally Pareto-optimal set: {(<2,6>,{2,2,0,0}), (<4,3>,{2,1,0,1}), (<5,2>,{2,0,2,0})}.
  ASSERT_EQ(front.size(), 3u);
  EXPECT_EQ(front[0].time, 2.0);
  EXPECT_EQ(front[0].energy, 5.0);
  EXPECT_EQ(front[0].distribution, (Distribution{2, 0, 2, 0}));
  EXPECT_EQ(front[1].time, 3.0);
  EXPECT_EQ(front[1].energy, 4.0);
  EXPECT_EQ(front[1].distribution, (Distribution{2, 1, 0, 1}));
  EXPECT_EQ(front[2].time, 6.0);
  EXPECT_EQ(front[2].energy, 2.0);
  EXPECT_EQ(front[2].distribution, (Distribution{2, 2, 0, 0}));
}

TEST(PaperExample, EveryAlgorithmAgrees) {
  const Profile p = example();
  const Front paper = hepopta_paper(p, 4);
  EXPECT_TRUE(same_front(paper, pareto_front_dp(p, 4)));
  EXPECT_TRUE(same_front(paper, brute_force_front(p, 4)));
  EXPECT_TRUE(same_front(paper, hepopta(p, 4)));
  // The blue path of Figure 11: {(2,1,2),(2,1,6)} is the solution <2, 6>.
  const auto blue = evaluate(p, {2, 2, 0, 0}, 4);
  ASSERT_TRUE(blue);
  EXPECT_EQ(blue->dynamic_energy, 2.0);
  EXPECT_EQ(blue->time, 6.0);
}

TEST(PaperExample, TotalEnergyFrontIsASubsetOfTheDynamicOne) {
  const Profile p = example();
  const Front dynamic = hepopta(p, 4);
  for (const double base : {0.0, 0.5, 1.0, 3.0, 100.0}) {
    const Front total = htpopta(p, 4, base);
    EXPECT_TRUE(same_front(brute_force_front(p, 4, {EnergyKind::total, base}), total)) << base;
    for (const Solution& s : total)
      EXPECT_TRUE(std::any_of(dynamic.begin(), dynamic.end(),
                              [&](const Solution& d) { return d.distribution == s.distribution; }));
  }
  // With a large base power only the fastest distribution is left.
  ASSERT_EQ(htpopta(p, 4, 100.0).size(), 1u);
  EXPECT_EQ(htpopta(p, 4, 100.0)[0].energy, 5.0 + 100.0 * 2.0);
}

// Four units on four processors: the only distribution that gives every processor work is both
// the load-balanced solution (times 1, 3, 1, 1: the least spread there is) and the even split.
TEST(PaperExample, LoadBalancedGivesEveryProcessorOneUnit) {
  for (const auto& lb : {load_balanced(example(), 4), even_split(example(), 4)}) {
    ASSERT_TRUE(lb);
    EXPECT_EQ(lb->distribution, (Distribution{1, 1, 1, 1}));
    EXPECT_EQ(lb->time, 3.0);
    EXPECT_EQ(lb->energy, 2.0 + 2.0 + 5.0 + 1.0);
  }
  const TimeSpread spread = time_spread(example(), {1, 1, 1, 1}, 4);
  EXPECT_EQ(spread.fastest, 1.0);
  EXPECT_EQ(spread.slowest, 3.0);
}

}  // namespace
}  // namespace ctrl::partition
