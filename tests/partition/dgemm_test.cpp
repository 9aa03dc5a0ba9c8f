// The measured DGEMM profile (data/dgemm-haswell.csv) and variants of it: irregular
// energies (jumps of 40-60 % between neighbouring sizes) are what the algorithms must get exactly.
#include "test_support.hpp"

#include <algorithm>
#include <random>
#include <sstream>

namespace ctrl::partition {
namespace {

using testing::dgemm_points;
using testing::dgemm_processor;
using testing::DgemmPoint;
using testing::same_front;
using testing::valid_front;

TEST(Dgemm, TheProfileIsIrregular) {
  const std::vector<DgemmPoint> pts = dgemm_points();
  ASSERT_EQ(pts.size(), 200u);
  double worst = 0;
  for (std::size_t i = 1; i < pts.size(); ++i)
    worst = std::max(worst, std::abs(pts[i].energy - pts[i - 1].energy) / std::min(pts[i].energy, pts[i - 1].energy));
  EXPECT_GT(worst, 0.4);
}

TEST(Dgemm, OneProcessorTakesWhatItHas) {
  const Profile p({dgemm_processor("haswell", dgemm_points(), 1, 1.0, 1.0)});
  const Front f = hepopta(p, 12064);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].time, 5.566372);
  EXPECT_EQ(f[0].energy, 693.46);
  EXPECT_TRUE(hepopta(p, 12065).empty());
  EXPECT_TRUE(hepopta(p, 100).empty());
}

// Raw sizes (12000..24736, gcd 32): the algorithms work in units of the gcd.
TEST(Dgemm, TwoAndThreeProcessorsEqualEnumeration) {
  const auto pts = dgemm_points();
  const Profile two({dgemm_processor("cpu", pts, 1, 1.0, 1.0), dgemm_processor("gpu", pts, 1, 0.45, 1.6)});
  const Profile three({dgemm_processor("cpu", pts, 1, 1.0, 1.0), dgemm_processor("gpu", pts, 1, 0.45, 1.6),
                       dgemm_processor("phi", pts, 1, 1.8, 0.7)});
  for (const Size n : {24000, 30016, 36032, 41216, 48000}) {  // two sizes sum to 24000 + 64 j
    SCOPED_TRACE(n);
    const Front expected = brute_force_front(two, n);
    ASSERT_FALSE(expected.empty());
    EXPECT_TRUE(same_front(expected, pareto_front_dp(two, n)));
    EXPECT_TRUE(same_front(expected, hepopta_paper(two, n)));
    EXPECT_TRUE(valid_front(two, n, expected));
  }
  for (const Size n : {36032, 50016, 60000}) {
    SCOPED_TRACE(n);
    const Front expected = brute_force_front(three, n);
    ASSERT_FALSE(expected.empty());
    EXPECT_GT(expected.size(), 1u);
    EXPECT_TRUE(same_front(expected, pareto_front_dp(three, n)));
    EXPECT_TRUE(same_front(expected, hepopta_paper(three, n)));
    const EnergyModel total{EnergyKind::total, 90.0};
    EXPECT_TRUE(same_front(brute_force_front(three, n, total), htpopta(three, n, 90.0)));
  }
  EXPECT_TRUE(pareto_front_dp(two, 24001).empty());  // not a multiple of 32
}

// Four processors, each a different subsample of the profile, with shuffled and amplified
// energies: every neighbour jump is different, still exact.
TEST(Dgemm, ShuffledVariantsEqualEnumeration) {
  const auto pts = dgemm_points();
  std::mt19937_64 rng(64);
  for (int round = 0; round < 3; ++round) {
    std::vector<ProcessorProfile> procs;
    for (int k = 0; k < 4; ++k) {
      std::vector<DgemmPoint> v = pts;
      std::vector<double> energies;
      for (const auto& q : v) energies.push_back(q.energy);
      std::shuffle(energies.begin(), energies.end(), rng);
      for (std::size_t i = 0; i < v.size(); ++i) v[i].energy = 0.5 * (v[i].energy + energies[i]);
      procs.push_back(dgemm_processor("p" + std::to_string(k), v, 32, 0.5 + 0.4 * k, 1.5 - 0.3 * k, 4,
                                      static_cast<std::size_t>(k)));
    }
    const Profile profile(std::move(procs));
    for (const Size n : {800, 1200, 1500}) {
      SCOPED_TRACE("round " + std::to_string(round) + ", n=" + std::to_string(n));
      const Front expected = brute_force_front(profile, n);
      ASSERT_FALSE(expected.empty());
      EXPECT_TRUE(same_front(expected, pareto_front_dp(profile, n)));
      EXPECT_TRUE(same_front(expected, hepopta_paper(profile, n)));
    }
  }
}

// The paper's scale: five abstract processors, 200 sizes each, in units of 64 rows.
TEST(Dgemm, FiveProcessorsBothAlgorithmsAgree) {
  const auto pts = dgemm_points();
  std::vector<ProcessorProfile> procs;
  const double speed[] = {1.0, 0.35, 1.9, 0.8, 0.5}, cost[] = {1.0, 1.7, 0.6, 1.2, 2.1};
  for (int k = 0; k < 5; ++k) {
    std::vector<DgemmPoint> v(pts.begin(), pts.end());
    for (auto& q : v) q.size -= 11968;  // 32..12768 rows: sizes 1..399 in units of 32
    procs.push_back(dgemm_processor("d" + std::to_string(k), v, 32, speed[k], cost[k], 1, 0));
  }
  const Profile profile(std::move(procs));
  for (const Size n : {269, 511, 901}) {  // the sizes are odd: five of them sum to an odd number
    SCOPED_TRACE(n);
    const Front paper = hepopta_paper(profile, n);
    const Front dp = pareto_front_dp(profile, n);
    ASSERT_FALSE(dp.empty());
    EXPECT_TRUE(same_front(paper, dp));
    EXPECT_TRUE(valid_front(profile, n, dp));
    // Time-optimal and energy-optimal points bracket the front; most points are not balanced.
    const auto fastest = hpopta(profile, n);
    ASSERT_TRUE(fastest);
    EXPECT_TRUE(same_point(*fastest, dp.front()));
    const auto lb = load_balanced(profile, n);
    ASSERT_TRUE(lb);
    EXPECT_TRUE(std::all_of(lb->distribution.begin(), lb->distribution.end(), [](Size x) { return x > 0; }));
    EXPECT_GE(lb->time, dp.front().time);
  }
}

// The profile written as the CLI reads it (with the measured file's extra columns kept) gives
// the same fronts.
TEST(Dgemm, CsvRoundTripGivesTheSameFront) {
  const auto pts = dgemm_points();
  std::ostringstream csv;
  csv.precision(17);
  csv << "time,processor,ps_rows,size,energy,rapl\n";
  const char* names[] = {"cpu", "gpu", "phi"};
  const double speed[] = {1.0, 0.4, 1.6}, cost[] = {1.0, 1.5, 0.7};
  std::vector<ProcessorProfile> procs;
  for (int k = 0; k < 3; ++k) {
    procs.push_back(dgemm_processor(names[k], pts, 32, speed[k], cost[k], 2, static_cast<std::size_t>(k)));
    for (const ProfilePoint& q : procs.back().points())
      csv << q.time << ',' << names[k] << ',' << q.size * 32 << ',' << q.size << ',' << q.energy << ",0\n";
  }
  const Profile direct(std::move(procs));
  const Profile read = parse_profile_csv(csv.str(), "dgemm.csv");
  ASSERT_EQ(read.names(), direct.names());
  for (const Size n : {1000, 1400}) {
    const Front a = hepopta(direct, n), b = hepopta(read, n);
    ASSERT_FALSE(a.empty());
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].time, b[i].time);
      EXPECT_EQ(a[i].energy, b[i].energy);
      EXPECT_EQ(a[i].distribution, b[i].distribution);
    }
  }
}

}  // namespace
}  // namespace ctrl::partition
