// The model between measured sizes (ctrl/partition/model.hpp): its points, its capacity, and
// fronts computed on its grid against enumeration of every distribution under the model.
#include "test_support.hpp"

#include <ctrl/errors.hpp>
#include <ctrl/partition/model.hpp>

#include <functional>
#include <random>

namespace ctrl::partition {
namespace {

using testing::describe;

Profile two_by_three() {
  return Profile({ProcessorProfile("cpu", {{4, 4.0, 8.0}, {8, 6.0, 12.0}, {16, 14.0, 20.0}}),
                  ProcessorProfile("gpu", {{10, 1.0, 30.0}, {40, 2.5, 45.0}})});
}

TEST(Model, InterpolatesBetweenMeasuredSizesAndHoldsTheSmallestBelowThem) {
  const ProfileModel model(two_by_three());
  EXPECT_EQ(model.capacity(), 56);
  EXPECT_DOUBLE_EQ(model.at(0, 8)->time, 6.0);
  EXPECT_DOUBLE_EQ(model.at(0, 6)->time, 5.0);
  EXPECT_DOUBLE_EQ(model.at(0, 6)->energy, 10.0);
  EXPECT_DOUBLE_EQ(model.at(0, 12)->time, 10.0);
  EXPECT_DOUBLE_EQ(model.at(0, 1)->time, 4.0);  // below 4: the point of 4
  EXPECT_DOUBLE_EQ(model.at(0, 0)->time, 0.0);
  EXPECT_FALSE(model.at(0, 17).has_value());
  EXPECT_DOUBLE_EQ(model.at(1, 25)->time, 1.75);
  EXPECT_EQ(model.basis(0, 8), Basis::measured);
  EXPECT_EQ(model.basis(0, 9), Basis::interpolated);
  EXPECT_EQ(model.basis(0, 3), Basis::below);
  EXPECT_EQ(model.basis(0, 0), Basis::none);
  EXPECT_TRUE(model.all_measured({8, 40}));
  EXPECT_TRUE(model.all_measured({0, 10}));
  EXPECT_FALSE(model.all_measured({9, 40}));
}

TEST(Model, RefusesAWorkloadAboveItsCapacityOrOffItsGranularityNamingThem) {
  const ProfileModel model(two_by_three(), {.granularity = 4});
  EXPECT_EQ(model.capacity(), 16 + 40);
  try {
    (void)model.grid(60);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("capacity of the profile, 56"), std::string::npos) << e.what();
  }
  try {
    (void)model.grid(30);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("granularity, 4 rows: try 28"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)ProfileModel(two_by_three(), {.granularity = 0}), UsageError);
}

TEST(Model, EveryWorkloadUpToTheCapacitySplits) {
  const ProfileModel model(two_by_three());
  for (Size n = 1; n <= model.capacity(); ++n) {
    const ModelGrid g = model.grid(n);
    const Front f = model.to_rows(g, hepopta(g.profile, g.chunks));
    ASSERT_FALSE(f.empty()) << "n = " << n;
    for (const Solution& s : f) {
      Size sum = 0;
      for (const Size x : s.distribution) sum += x;
      EXPECT_EQ(sum, n);
    }
  }
}

// Every distribution of n in multiples of g (each part within its processor's reach), under the
// model: the reference front.
Front enumerate(const ProfileModel& model, Size n, const EnergyModel& energy) {
  const Size g = model.options().granularity;
  std::vector<Solution> all;
  Distribution x(model.size(), 0);
  std::function<void(std::size_t, Size)> go = [&](std::size_t i, Size left) {
    if (i + 1 == model.size()) {
      if (!model.at(i, static_cast<double>(left), left == n)) return;
      x[i] = left;
      all.push_back(model.solution(x, n, energy));
      return;
    }
    for (Size v = 0; v <= left; v += g) {
      if (!model.at(i, static_cast<double>(v), v == n)) break;
      x[i] = v;
      go(i + 1, left - v);
    }
  };
  go(0, n);
  return pareto_filter(std::move(all));
}

TEST(Model, FrontsOnTheGridAreThoseOfEveryDistributionUnderTheModel) {
  std::mt19937_64 rng(36);
  int compared = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int p = 1 + trial % 3;
    const Size g = 1 + trial % 2;
    Profile measured =
        testing::random_profile(rng, p, 12, 0.4, trial % 2 ? testing::Values::fine : testing::Values::coarse);
    bool empty = false;
    for (const auto& proc : measured) empty |= proc.empty();
    if (empty) continue;
    // Half the instances have a curve alone (a block without neighbours pays no exchange).
    std::optional<Profile> alone;
    if (trial % 4 < 2) {
      std::vector<ProcessorProfile> a;
      for (const auto& proc : measured) {
        std::vector<ProfilePoint> pts(proc.points().begin(), proc.points().end());
        for (auto& pt : pts) pt.time *= 0.5;
        a.emplace_back(proc.name(), std::move(pts));
      }
      alone = Profile(std::move(a));
    }
    const ProfileModel model(measured, {.granularity = g}, alone);
    const EnergyModel energy = trial % 5 == 0 ? EnergyModel{EnergyKind::total, 0.7} : EnergyModel{};
    for (Size n = g; n <= model.capacity(); n += g * (1 + trial % 3)) {
      const ModelGrid grid = model.grid(n);
      const Front dp = model.to_rows(grid, pareto_front(grid.profile, grid.chunks, energy), energy);
      const Front ref = enumerate(model, n, energy);
      ASSERT_TRUE(testing::same_front(ref, dp)) << "trial " << trial << " n " << n << "\n" << describe(ref);
      ++compared;
    }
  }
  EXPECT_GT(compared, 1000);
}

TEST(Model, AboveTheResolutionTheFrontIsExactOverTheChunks) {
  // 3 processors, n = 1000 rows in 40 chunks of 25: every distribution of the 40 chunks, turned
  // into rows, against the front computed on the grid.
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    const Profile measured = testing::random_profile(rng, 3, 1, 1.0, testing::Values::fine);
    std::vector<ProcessorProfile> scaled;
    for (const auto& proc : measured) {
      std::uniform_real_distribution<double> u(0.5, 2.0);
      const double a = u(rng), b = u(rng);
      scaled.emplace_back(proc.name(),
                          std::vector<ProfilePoint>{{50, a, b}, {300, 4 * a, 2 * b}, {700, 11 * a, 5 * b}});
    }
    const ProfileModel model(Profile(std::move(scaled)), {.granularity = 1, .resolution = 40});
    const ModelGrid grid = model.grid(1000);
    ASSERT_EQ(grid.chunks, 40);
    ASSERT_DOUBLE_EQ(grid.unit, 25.0);
    const Front dp = model.to_rows(grid, hepopta(grid.profile, grid.chunks));
    std::vector<Solution> all;
    for (Size a = 0; a <= 40; ++a)
      for (Size b = 0; a + b <= 40; ++b) {
        const Distribution k{a, b, 40 - a - b};
        const Distribution x = model.rows(grid, k);
        if (x[0] > 700 || x[1] > 700 || x[2] > 700) continue;
        all.push_back(model.solution(x, 1000));
      }
    ASSERT_TRUE(testing::same_front(pareto_filter(std::move(all)), dp)) << "trial " << trial;
  }
}

TEST(Model, ChunksBecomeWholeRowsThatSumToTheWorkload) {
  const ProfileModel model(two_by_three(), {.granularity = 2, .resolution = 7});
  const ModelGrid grid = model.grid(54);  // 27 granules in 7 chunks of 54/7 rows
  EXPECT_EQ(grid.chunks, 7);
  for (Size a = 0; a <= 7; ++a) {
    const Distribution x = model.rows(grid, {a, 7 - a});
    EXPECT_EQ(x[0] + x[1], 54);
    EXPECT_EQ(x[0] % 2, 0);
    EXPECT_LE(std::abs(static_cast<double>(x[0]) - static_cast<double>(a) * grid.unit), 1.0 + 1e-9);
    EXPECT_EQ(x[0] > 0, a > 0);
  }
}

TEST(Model, WithoutInterpolationOnlyMeasuredSizesAreParts) {
  const ProfileModel model(two_by_three(), {.interpolate = false});
  const ModelGrid grid = model.grid(48);
  const Front f = model.to_rows(grid, hepopta(grid.profile, grid.chunks));
  ASSERT_FALSE(f.empty());
  for (const Solution& s : f) EXPECT_TRUE(model.all_measured(s.distribution)) << describe(f);
  const ModelGrid odd = model.grid(47);
  EXPECT_TRUE(hepopta(odd.profile, odd.chunks).empty());
  EXPECT_FALSE(model.at(0, 6).has_value());
}

TEST(Model, TheCurveAloneAppliesOnlyToTheWholeWorkload) {
  const Profile alone({ProcessorProfile("cpu", {{4, 2.0, 8.0}, {8, 3.0, 12.0}, {16, 7.0, 20.0}}),
                       ProcessorProfile("gpu", {{10, 0.5, 30.0}, {40, 1.0, 45.0}})});
  const ProfileModel model(two_by_three(), {}, alone);
  EXPECT_DOUBLE_EQ(model.solution({0, 40}, 40).time, 1.0);  // the GPU alone
  EXPECT_DOUBLE_EQ(model.solution({8, 32}, 40).time, 6.0);  // both, with neighbours
  EXPECT_DOUBLE_EQ(model.solution({16, 0}, 16).time, 7.0);
  const Profile wrong({ProcessorProfile("cpu", {{4, 2.0, 8.0}}), ProcessorProfile("gpu", {{10, 0.5, 30.0}})});
  EXPECT_THROW((void)ProfileModel(two_by_three(), {}, wrong), UsageError);
}

}  // namespace
}  // namespace ctrl::partition
