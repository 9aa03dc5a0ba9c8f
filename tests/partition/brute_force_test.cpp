// Both HEPOPTA algorithms (the paper's and the dynamic programme), HTPOPTA and HPOPTA against
// the enumeration of every distribution, on thousands of small random instances.
#include "test_support.hpp"
#include "threads.hpp"

#include <ctrl/errors.hpp>

#include <random>

namespace ctrl::partition {
namespace {

using testing::random_profile;
using testing::same_front;
using testing::valid_front;
using testing::Values;

struct Case {
  Profile profile;
  Size n;
  std::string what;
};

// Instance number `i` of a family: p from 1 to 6, sparse and dense profiles, coarse values (many
// ties) and fine ones, workloads from 1 to a little past what the sizes can reach.
Case make_case(std::mt19937_64& rng, int i) {
  const int p = 1 + i % 6;
  const bool dense = (i / 6) % 2 == 0;
  const Values values = (i / 12) % 2 == 0 ? Values::coarse : Values::fine;
  const int max_size = 2 + static_cast<int>(rng() % (p <= 3 ? 10 : 7));
  Profile profile = random_profile(rng, p, max_size, dense ? 0.9 : 0.35, values);
  const Size n = 1 + static_cast<Size>(rng() % static_cast<std::uint64_t>(p * max_size + 2));
  return Case{std::move(profile), n,
              "case " + std::to_string(i) + ": p=" + std::to_string(p) + " n=" + std::to_string(n) +
                  (dense ? " dense" : " sparse") + (values == Values::coarse ? " coarse" : " fine")};
}

constexpr int cases = 6000;

TEST(BruteForce, DynamicProgrammeEqualsEnumeration) {
  const detail::RaisedThreadCap big_node(16);  // as many threads as a big node has, whatever the cores here
  std::mt19937_64 rng(20261203);
  int feasible = 0;
  for (int i = 0; i < cases; ++i) {
    const Case c = make_case(rng, i);
    SCOPED_TRACE(c.what);
    const Front expected = brute_force_front(c.profile, c.n);
    DpOptions opt;
    opt.probes = i % 5 == 0 ? 0 : 1 + i % 9;  // with and without the probe bounds
    opt.threads = 1 + static_cast<unsigned>(i % 2);
    const Front got = pareto_front_dp(c.profile, c.n, opt);
    ASSERT_TRUE(same_front(expected, got));
    ASSERT_TRUE(valid_front(c.profile, c.n, got));
    feasible += expected.empty() ? 0 : 1;
  }
  EXPECT_GT(feasible, cases / 2);  // the family is mostly feasible, and not trivially so
}

TEST(BruteForce, PaperAlgorithmEqualsEnumeration) {
  std::mt19937_64 rng(20261203);
  for (int i = 0; i < cases; ++i) {
    const Case c = make_case(rng, i);
    SCOPED_TRACE(c.what);
    const Front expected = brute_force_front(c.profile, c.n);
    const Front got = hepopta_paper(c.profile, c.n);
    ASSERT_TRUE(same_front(expected, got));
    ASSERT_TRUE(valid_front(c.profile, c.n, got));
  }
}

TEST(BruteForce, TotalEnergyFrontEqualsEnumeration) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < cases / 2; ++i) {
    const Case c = make_case(rng, i);
    SCOPED_TRACE(c.what);
    const double base = 0.5 * (i % 7);
    const EnergyModel model{EnergyKind::total, base};
    const Front expected = brute_force_front(c.profile, c.n, model);
    const Front dp = htpopta(c.profile, c.n, base);
    ASSERT_TRUE(same_front(expected, dp));
    ASSERT_TRUE(valid_front(c.profile, c.n, dp, model));
    ParetoOptions paper;
    paper.method = Method::paper;
    ASSERT_TRUE(same_front(expected, pareto_front(c.profile, c.n, model, paper)));
  }
}

TEST(BruteForce, HpoptaEqualsEnumeration) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < cases; ++i) {
    const Case c = make_case(rng, i);
    SCOPED_TRACE(c.what);
    const auto expected = brute_force_time_optimal(c.profile, c.n);
    const auto got = hpopta(c.profile, c.n);
    ASSERT_EQ(expected.has_value(), got.has_value());
    if (!got) continue;
    EXPECT_TRUE(same_point(*expected, *got));
    EXPECT_TRUE(evaluate(c.profile, got->distribution, c.n));
    // HPOPTA's answer is the first point of the front.
    EXPECT_TRUE(same_point(*got, pareto_front_dp(c.profile, c.n).front()));
  }
}

// Larger instances than enumeration allows: the two algorithms against each other.
TEST(BruteForce, AlgorithmsAgreeOnMediumInstances) {
  const detail::RaisedThreadCap big_node(16);  // as many threads as a big node has, whatever the cores here
  std::mt19937_64 rng(3);
  for (int i = 0; i < 60; ++i) {
    const int p = 2 + i % 6;
    const int m = 10 + static_cast<int>(rng() % 40);
    const Profile profile = random_profile(rng, p, m, i % 3 == 0 ? 0.3 : 0.95, i % 2 ? Values::fine : Values::coarse);
    const Size n = 1 + static_cast<Size>(rng() % static_cast<std::uint64_t>(p * m));
    SCOPED_TRACE("p=" + std::to_string(p) + " m=" + std::to_string(m) + " n=" + std::to_string(n));
    const Front paper = hepopta_paper(profile, n);
    DpOptions opt;
    opt.threads = 2;
    const Front dp = pareto_front_dp(profile, n, opt);
    ASSERT_TRUE(same_front(paper, dp));
    ASSERT_TRUE(valid_front(profile, n, dp));
  }
}

// Times and energies that differ only in the last bits: the tolerance decides, the same way in
// every algorithm.
TEST(BruteForce, NearlyEqualValuesFollowTheTolerance) {
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> ulps(0, 3);
  for (int i = 0; i < 300; ++i) {
    std::vector<ProcessorProfile> procs;
    const int p = 2 + i % 4;
    for (int k = 0; k < p; ++k) {
      std::vector<ProfilePoint> pts;
      for (int x = 1; x <= 5; ++x) {
        double t = 0.1 * (1 + static_cast<int>(rng() % 3)), e = 0.3 * (1 + static_cast<int>(rng() % 3));
        for (int u = ulps(rng); u > 0; --u) t = std::nextafter(t, 1.0);
        for (int u = ulps(rng); u > 0; --u) e = std::nextafter(e, 10.0);
        pts.push_back(ProfilePoint{x, t, e});
      }
      procs.emplace_back("P" + std::to_string(k), std::move(pts));
    }
    const Profile profile(std::move(procs));
    const Size n = 1 + static_cast<Size>(rng() % static_cast<std::uint64_t>(5 * p));
    SCOPED_TRACE("instance " + std::to_string(i));
    const Front expected = brute_force_front(profile, n);
    ASSERT_TRUE(same_front(expected, pareto_front_dp(profile, n)));
    ASSERT_TRUE(same_front(expected, hepopta_paper(profile, n)));
  }
}

TEST(BruteForce, InfeasibleWorkloadsGiveEmptyFronts) {
  // Only even sizes: no odd workload can be split; and no workload beyond the largest sizes.
  const Profile even({ProcessorProfile("a", {{2, 1.0, 1.0}, {4, 2.0, 2.0}}), ProcessorProfile("b", {{6, 1.0, 1.0}})});
  for (const Size n : {1, 3, 5, 7, 11, 13}) {
    EXPECT_TRUE(pareto_front_dp(even, n).empty()) << n;
    EXPECT_TRUE(hepopta_paper(even, n).empty()) << n;
    EXPECT_TRUE(brute_force_front(even, n).empty()) << n;
    EXPECT_FALSE(hpopta(even, n)) << n;
  }
  EXPECT_TRUE(pareto_front_dp(even, 12).empty());  // beyond 4 + 6
  EXPECT_EQ(pareto_front_dp(even, 10).size(), 1u);
  EXPECT_TRUE(htpopta(even, 12, 5.0).empty());
}

TEST(BruteForce, BadArgumentsAreUsageErrors) {
  const Profile one({ProcessorProfile("a", {{1, 1.0, 1.0}})});
  EXPECT_THROW(pareto_front_dp(one, 0), ctrl::UsageError);
  EXPECT_THROW(hepopta_paper(one, -3), ctrl::UsageError);
  EXPECT_THROW(hpopta(Profile{}, 3), ctrl::UsageError);
  EXPECT_THROW(htpopta(one, 1, -1.0), ctrl::UsageError);
  EXPECT_THROW(htpopta(one, 1, std::nan("")), ctrl::UsageError);
  EXPECT_THROW(brute_force_front(one, 1, {}, 0), ctrl::UsageError);  // over the enumeration limit
}

}  // namespace
}  // namespace ctrl::partition
