// The definitions every algorithm shares: evaluation, the 1e-12 tolerance, the Pareto filter,
// total energy; the even split against its definition; the dynamic
// programme's options.
#include "test_support.hpp"
#include "threads.hpp"

#include <ctrl/errors.hpp>

#include <algorithm>
#include <functional>
#include <limits>
#include <random>

namespace ctrl::partition {
namespace {

using testing::random_profile;
using testing::same_front;
using testing::small_random_instance;
using testing::Values;

TEST(Front, Tolerance) {
  EXPECT_TRUE(same_value(1.0, 1.0 + 1e-13));
  EXPECT_TRUE(same_value(1e6, 1e6 * (1 + 9e-13)));
  EXPECT_FALSE(same_value(1.0, 1.0 + 1e-11));
  EXPECT_TRUE(same_value(0.0, 0.0));
  EXPECT_FALSE(same_value(0.0, 1e-300));
  EXPECT_TRUE(no_worse(1.0, 2.0));
  EXPECT_TRUE(no_worse(1.0 + 1e-13, 1.0));
  EXPECT_FALSE(no_worse(1.1, 1.0));
}

TEST(Front, Dominance) {
  const Solution a{1.0, 5.0, {}}, b{2.0, 5.0, {}}, c{1.0 + 1e-13, 5.0 - 1e-13, {}}, d{0.5, 9.0, {}};
  EXPECT_TRUE(dominates(a, b));
  EXPECT_FALSE(dominates(b, a));
  EXPECT_TRUE(same_point(a, c));
  EXPECT_FALSE(dominates(a, c));
  EXPECT_FALSE(dominates(c, a));
  EXPECT_FALSE(dominates(a, d));
  EXPECT_FALSE(dominates(d, a));
}

TEST(Front, FilterKeepsOnePointPerDistinctPoint) {
  std::vector<Solution> c{{3.0, 1.0, {3}},         {1.0, 5.0, {1}}, {2.0, 5.0, {2}},
                          {1.0 + 1e-14, 5.0, {4}}, {2.0, 2.0, {5}}, {2.0 + 1e-13, 2.0 - 1e-12 * 0.5, {6}},
                          {4.0, 1.0 + 1e-13, {7}}};
  const Front f = pareto_filter(c);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].distribution, Distribution{1});  // (1, 5): the same point as {4}, the earlier kept
  EXPECT_EQ(f[1].distribution, Distribution{5});  // (2, 2)
  EXPECT_EQ(f[2].distribution, Distribution{3});  // (3, 1); (4, 1 + 1e-13) is the same energy, slower
  // A point whose time is the same as a kept one but which is cheaper replaces it.
  const Front g = pareto_filter({{1.0, 5.0, {1}}, {1.0 + 1e-13, 4.0, {2}}});
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].distribution, Distribution{2});
  EXPECT_TRUE(pareto_filter({}).empty());
}

TEST(Front, Evaluate) {
  const Profile p({ProcessorProfile("a", {{1, 1.0, 0.1}, {2, 3.0, 0.2}}), ProcessorProfile("b", {{1, 2.0, 0.7}})});
  const auto ev = evaluate(p, {2, 1}, 3);
  ASSERT_TRUE(ev);
  EXPECT_EQ(ev->time, 3.0);
  EXPECT_EQ(ev->dynamic_energy, 0.2 + 0.7);
  EXPECT_EQ(evaluate(p, {0, 1}, 1)->time, 2.0);  // an idle processor costs nothing
  EXPECT_FALSE(evaluate(p, {2, 1}, 4));          // wrong sum
  EXPECT_FALSE(evaluate(p, {3, 0}, 3));          // not a size
  EXPECT_FALSE(evaluate(p, {-1, 2}, 1));
  EXPECT_FALSE(evaluate(p, {1}, 1));  // wrong length
  EXPECT_EQ(make_solution(p, {1, 1}, 2, {EnergyKind::total, 10.0}).energy, 0.1 + 0.7 + 10.0 * 2.0);
  EXPECT_THROW(make_solution(p, {1, 1}, 3), ctrl::UsageError);
}

// The even split by its definition, over every distribution.
std::optional<Solution> even_by_enumeration(const Profile& p, Size n) {
  std::optional<Solution> best;
  Size best_spread = std::numeric_limits<Size>::max();
  Distribution x(p.size());
  std::function<void(std::size_t, Size)> rec = [&](std::size_t i, Size left) {
    if (i == p.size()) {
      if (left != 0) return;
      const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
      const Size spread = *hi - *lo;
      const Solution s = make_solution(p, x, n);
      if (spread < best_spread ||
          (spread == best_spread && (s.time < best->time || (s.time == best->time && s.energy < best->energy)))) {
        best_spread = spread;
        best = s;
      }
      return;
    }
    for (const ProfilePoint& pt : p[i].points()) {
      if (pt.size > left) break;
      x[i] = pt.size;
      rec(i + 1, left - pt.size);
    }
  };
  rec(0, n);
  return best;
}

TEST(EvenSplit, MatchesItsDefinition) {
  std::mt19937_64 rng(17);
  int found = 0;
  for (int i = 0; i < 600; ++i) {
    const auto [profile, n] = small_random_instance(rng, i);
    SCOPED_TRACE("instance " + std::to_string(i));
    const auto expected = even_by_enumeration(profile, n);
    const auto got = even_split(profile, n);
    ASSERT_EQ(expected.has_value(), got.has_value());
    if (!got) continue;
    ++found;
    EXPECT_EQ(got->time, expected->time);
    EXPECT_EQ(got->energy, expected->energy);
    const auto [lo, hi] = std::minmax_element(got->distribution.begin(), got->distribution.end());
    const auto [elo, ehi] = std::minmax_element(expected->distribution.begin(), expected->distribution.end());
    EXPECT_EQ(*hi - *lo, *ehi - *elo);
  }
  EXPECT_GT(found, 200);
}

TEST(EvenSplit, TheUsualSplitWhenEverySizeIsThere) {
  std::vector<ProcessorProfile> procs;
  for (int k = 0; k < 4; ++k) {
    std::vector<ProfilePoint> pts;
    for (int x = 1; x <= 40; ++x) pts.push_back({x, x * (1.0 + k), x * (2.0 - 0.3 * k)});
    procs.emplace_back("p" + std::to_string(k), pts);
  }
  const Profile p(std::move(procs));
  const auto lb = even_split(p, 102);  // 25.5 each: two get 26, two get 25
  ASSERT_TRUE(lb);
  // p3 is the slowest (time 4x): at 25 units it sets the time, 100; of the others the two
  // cheapest per unit, p2 and p1, take the extra units.
  EXPECT_EQ(lb->distribution, (Distribution{25, 26, 26, 25}));
  EXPECT_EQ(lb->time, 100.0);
  EXPECT_FALSE(even_split(p, 3));    // four processors, three units
  EXPECT_FALSE(even_split(p, 161));  // beyond 4 x 40
}

TEST(DynamicProgramme, OptionsDoNotChangeTheFront) {
  const detail::RaisedThreadCap big_node(16);  // as many threads as a big node has, whatever the cores here
  std::mt19937_64 rng(23);
  for (int i = 0; i < 12; ++i) {
    const int p = 3 + i % 5;
    const Profile profile = random_profile(rng, p, 120, 0.8, i % 2 ? Values::fine : Values::coarse);
    const Size n = 60 + static_cast<Size>(rng() % 200);
    DpOptions base;
    base.threads = 1;
    base.probes = 0;
    DpStats s0, s1;
    const Front reference = pareto_front_dp(profile, n, base, &s0);
    for (const unsigned threads : {1u, 2u, 3u})
      for (const int probes : {1, 2, 16, 64}) {
        DpOptions opt;
        opt.threads = threads;
        opt.probes = probes;
        EXPECT_TRUE(same_front(reference, pareto_front_dp(profile, n, opt, &s1))) << threads << " " << probes;
        EXPECT_LE(s1.states, s0.states);  // the bounds only remove points
      }
  }
}

TEST(DynamicProgramme, SizesAreHandledInUnitsOfTheirGcd) {
  const Profile coarse({ProcessorProfile("a", {{64, 1.0, 3.0}, {128, 2.0, 4.0}, {192, 3.5, 4.5}}),
                        ProcessorProfile("b", {{64, 0.5, 6.0}, {128, 1.5, 5.0}})});
  const Profile fine({ProcessorProfile("a", {{1, 1.0, 3.0}, {2, 2.0, 4.0}, {3, 3.5, 4.5}}),
                      ProcessorProfile("b", {{1, 0.5, 6.0}, {2, 1.5, 5.0}})});
  for (const Size k : {1, 2, 3, 4, 5}) {
    const Front a = hepopta(coarse, 64 * k), b = hepopta(fine, k);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].time, b[i].time);
      for (std::size_t j = 0; j < 2; ++j) EXPECT_EQ(a[i].distribution[j], 64 * b[i].distribution[j]);
    }
  }
  EXPECT_TRUE(hepopta(coarse, 100).empty());
}

TEST(DynamicProgramme, ZeroTimesAndEnergies) {
  const Profile p({ProcessorProfile("a", {{1, 0.0, 0.0}, {2, 0.0, 1.0}}), ProcessorProfile("b", {{1, 0.0, 0.0}})});
  EXPECT_TRUE(same_front(brute_force_front(p, 2), pareto_front_dp(p, 2)));
  EXPECT_TRUE(same_front(brute_force_front(p, 2), hepopta_paper(p, 2)));
  ASSERT_EQ(pareto_front_dp(p, 2).size(), 1u);
  EXPECT_EQ(pareto_front_dp(p, 2)[0].energy, 0.0);
}

TEST(Methods, NamesRoundTrip) {
  for (const Method m : {Method::dp, Method::paper, Method::brute_force}) EXPECT_EQ(parse_method(to_string(m)), m);
  EXPECT_FALSE(parse_method("fast"));
}

}  // namespace
}  // namespace ctrl::partition
