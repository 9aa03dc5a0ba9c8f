// The paper's load-balanced solution (every processor works, execution times as equal as
// possible) against its definition, by enumeration: random profiles with and without ties, and
// the measured DGEMM profile.
#include "test_support.hpp"

#include <ctrl/errors.hpp>

#include <functional>
#include <limits>
#include <random>

namespace ctrl::partition {
namespace {

using testing::dgemm_points;
using testing::dgemm_processor;
using testing::random_profile;
using testing::small_random_instance;
using testing::Values;

struct Expected {
  Solution solution;
  double spread = 0.0;
};

// The definition, over every distribution that gives every processor work: the least spread of
// times, then the least parallel time, then the least dynamic energy.
std::optional<Expected> balanced_by_enumeration(const Profile& p, Size n) {
  std::optional<Expected> best;
  Distribution x(p.size());
  std::function<void(std::size_t, Size)> rec = [&](std::size_t i, Size left) {
    if (i == p.size()) {
      if (left != 0) return;
      double lo = std::numeric_limits<double>::infinity(), hi = 0.0;
      for (std::size_t k = 0; k < x.size(); ++k) {
        lo = std::min(lo, p[k].find(x[k])->time);
        hi = std::max(hi, p[k].find(x[k])->time);
      }
      const Solution s = make_solution(p, x, n);
      const double spread = hi - lo;
      if (!best || spread < best->spread ||
          (spread == best->spread &&
           (s.time < best->solution.time || (s.time == best->solution.time && s.energy < best->solution.energy))))
        best = Expected{s, spread};
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

void expect_definition(const Profile& profile, Size n) {
  const auto expected = balanced_by_enumeration(profile, n);
  const auto got = load_balanced(profile, n);
  ASSERT_EQ(expected.has_value(), got.has_value());
  if (!got) return;
  ASSERT_TRUE(evaluate(profile, got->distribution, n));
  for (const Size part : got->distribution) EXPECT_GT(part, 0);
  const TimeSpread spread = time_spread(profile, got->distribution, n);
  EXPECT_EQ(spread.slowest - spread.fastest, expected->spread);
  EXPECT_EQ(got->time, expected->solution.time);
  EXPECT_EQ(got->energy, expected->solution.energy);
}

TEST(LoadBalanced, MatchesItsDefinition) {
  std::mt19937_64 rng(29);
  int found = 0;
  for (int i = 0; i < 600; ++i) {
    const auto [profile, n] = small_random_instance(rng, i);
    SCOPED_TRACE("instance " + std::to_string(i));
    expect_definition(profile, n);
    found += load_balanced(profile, n).has_value();
  }
  EXPECT_GT(found, 200);
}

// Three processors made from the measured profile (irregular energies, times almost linear in
// the size), with offsets so that each has other sizes.
TEST(LoadBalanced, MeasuredDgemmMatchesItsDefinition) {
  const auto pts = dgemm_points();
  const Profile profile({dgemm_processor("cpu", pts, 32, 1.0, 1.0, 2, 0),
                         dgemm_processor("gpu", pts, 32, 0.45, 1.6, 2, 1),
                         dgemm_processor("phi", pts, 32, 1.8, 0.7, 3, 2)});
  for (const Size n : {1201, 1503, 1801, 2101}) {  // the sizes sum to 1131 + an even number
    SCOPED_TRACE(n);
    expect_definition(profile, n);
    ASSERT_TRUE(load_balanced(profile, n));
  }
}

// Linear time functions cross at one split, where every processor takes the same time: the
// paper's load-balanced solution, which is then time-optimal (its section I).
TEST(LoadBalanced, LinearProfilesGiveEqualTimesAndTheFastestTime) {
  std::vector<ProcessorProfile> procs;
  const double per_unit[] = {1.0, 2.0, 4.0};
  for (int k = 0; k < 3; ++k) {
    std::vector<ProfilePoint> pts;
    for (int x = 1; x <= 40; ++x) pts.push_back({x, x * per_unit[k], x * (3.0 - k)});
    procs.emplace_back("p" + std::to_string(k), pts);
  }
  const Profile p(std::move(procs));
  const auto lb = load_balanced(p, 70);
  ASSERT_TRUE(lb);
  EXPECT_EQ(lb->distribution, (Distribution{40, 20, 10}));
  const TimeSpread spread = time_spread(p, lb->distribution, 70);
  EXPECT_EQ(spread.fastest, 40.0);
  EXPECT_EQ(spread.slowest, 40.0);
  EXPECT_EQ(spread.relative(), 0.0);
  EXPECT_EQ(lb->time, hpopta(p, 70)->time);
  // The even split (24, 23, 23) is 2.3 times slower: the slowest processor sets the pace.
  EXPECT_EQ(even_split(p, 70)->time, 92.0);
}

TEST(LoadBalanced, NoneWithoutWorkForEveryProcessor) {
  const Profile p({ProcessorProfile("a", {{1, 1.0, 1.0}, {2, 2.0, 1.0}}), ProcessorProfile("b", {{2, 1.0, 1.0}})});
  EXPECT_FALSE(load_balanced(p, 1));  // b cannot take 1 unit, and a alone is not balanced
  EXPECT_FALSE(load_balanced(p, 2));  // one processor would idle
  EXPECT_FALSE(load_balanced(p, 5));  // beyond 2 + 2
  ASSERT_TRUE(load_balanced(p, 3));
  EXPECT_EQ(load_balanced(p, 3)->distribution, (Distribution{1, 2}));
}

TEST(LoadBalanced, EnergyFollowsTheModel) {
  const Profile p(
      {ProcessorProfile("a", {{1, 1.0, 2.0}, {2, 2.0, 3.0}}), ProcessorProfile("b", {{1, 0.5, 4.0}, {2, 1.0, 5.0}})});
  const auto dynamic = load_balanced(p, 3);
  const auto total = load_balanced(p, 3, {EnergyKind::total, 10.0});
  ASSERT_TRUE(dynamic && total);
  EXPECT_EQ(dynamic->distribution, (Distribution{1, 2}));  // times 1 and 1
  EXPECT_EQ(total->distribution, dynamic->distribution);
  EXPECT_EQ(total->energy, dynamic->energy + 10.0 * dynamic->time);
  EXPECT_THROW(load_balanced(p, 3, {EnergyKind::total, -1.0}), ctrl::UsageError);
}

TEST(TimeSpread, OfTheProcessorsThatWork) {
  const Profile p({ProcessorProfile("a", {{1, 1.0, 2.0}}), ProcessorProfile("b", {{1, 0.25, 4.0}, {2, 0.5, 5.0}})});
  const TimeSpread s = time_spread(p, {1, 2}, 3);
  EXPECT_EQ(s.fastest, 0.5);
  EXPECT_EQ(s.slowest, 1.0);
  EXPECT_EQ(s.relative(), 0.5);
  const TimeSpread idle = time_spread(p, {0, 2}, 2);  // an idle processor takes no part
  EXPECT_EQ(idle.fastest, 0.5);
  EXPECT_EQ(idle.slowest, 0.5);
  EXPECT_THROW(time_spread(p, {1, 1}, 3), ctrl::UsageError);  // sums to 2
  EXPECT_THROW(time_spread(p, {3, 0}, 3), ctrl::UsageError);  // not a size of a
}

}  // namespace
}  // namespace ctrl::partition
