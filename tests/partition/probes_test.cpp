// The probe tables of the Pareto dynamic programme kept one row in B (many processors): the rows
// recomputed between kept ones, and so the energy bounds, are bitwise those of the full tables,
// and the front on a platform large enough to take that path is the exact one.
#include "test_support.hpp"

#include "dp_kernels.hpp"
#include "instance.hpp"
#include "probes.hpp"

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace ctrl::partition {
namespace {

using testing::random_profile;
using testing::same_front;
using testing::valid_front;
using testing::Values;

bool bitwise_equal(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

TEST(Probes, RowsKeptOneInBGiveTheSameBounds) {
  std::mt19937_64 rng(2026);
  for (int i = 0; i < 120; ++i) {
    const int p = 8 + i % 40;
    const Profile profile = random_profile(rng, p, 2 + i % 9, i % 3 == 0 ? 0.4 : 0.9, i % 2 ? Values::fine : Values::coarse);
    const Size n = 1 + static_cast<Size>(rng() % static_cast<std::uint64_t>(3 * p));
    SCOPED_TRACE("instance " + std::to_string(i) + ": p=" + std::to_string(p) + " n=" + std::to_string(n));
    const auto in = detail::make_instance(profile, n);
    if (!in) continue;
    const auto last = static_cast<std::uint32_t>(in->times.size() - 1), first = last / 3;
    const double elimit = i % 4 == 0 ? detail::inf : 3.0 * p;
    const int wanted = 6;
    const std::size_t full = static_cast<std::size_t>(in->p + 1) * in->stride() * sizeof(double);
    detail::Probes all = detail::make_probes(*in, first, last, elimit, wanted, 1, SIZE_MAX);
    // Too little memory for that many full tables, enough for as many kept one in B.
    detail::Probes some = detail::make_probes(*in, first, last, elimit, wanted, 1 + i % 2, all.count() * full - 1);
    ASSERT_EQ(all.block, 1);
    ASSERT_GT(some.block, 1);
    ASSERT_EQ(all.rank, some.rank);
    ASSERT_TRUE(bitwise_equal(all.best, some.best));
    EXPECT_LT(some.bytes(), all.bytes());
    std::vector<double> a, b;
    for (int k = 0; k < in->p; ++k) {  // as the sweep asks: levels in increasing order
      all.level_bound(*in, k, 1e-9, a);
      some.level_bound(*in, k, 1e-9, b);
      ASSERT_TRUE(bitwise_equal(a, b)) << "level " << k;
    }
    for (int k = in->p; k >= 0; k -= 3)  // and rows in any order
      for (std::size_t j = 0; j < all.count(); ++j)
        ASSERT_EQ(std::memcmp(all.row(*in, j, k), some.row(*in, j, k), in->stride() * sizeof(double)), 0) << k;
  }
}

// Many processors with many distinct times: 64 full tables would pass the default cap, so the
// programme keeps one row in B. Its front is the one found without any probe bound.
TEST(Probes, LargePlatformFrontIsExact) {
  std::mt19937_64 rng(99);
  std::uniform_int_distribution<int> grid(1, 400);
  const int p = 450, m = 4;
  std::vector<ProcessorProfile> procs;
  for (int k = 0; k < p; ++k) {
    const double speed = grid(rng), cost = 1 + grid(rng) % 5;
    std::vector<ProfilePoint> pts;
    for (int x = 1; x <= m; ++x) pts.push_back(ProfilePoint{x, x * speed / 100, x * cost + (x == m ? 1 : 0)});
    procs.emplace_back("P" + std::to_string(k), std::move(pts));
  }
  const Profile profile(std::move(procs));
  const Size n = 1300;
  const auto in = detail::make_instance(profile, n);
  ASSERT_TRUE(in);
  ASSERT_GT(64 * static_cast<std::size_t>(p + 1) * in->stride() * sizeof(double), detail::probe_memory_cap);
  DpOptions off, on;
  off.probes = 0;
  on.probes = 64;
  DpStats s_off, s_on;
  const Front reference = pareto_front_dp(profile, n, off, &s_off);
  const Front got = pareto_front_dp(profile, n, on, &s_on);
  ASSERT_FALSE(reference.empty());
  EXPECT_GT(reference.size(), 3u);
  EXPECT_TRUE(same_front(reference, got));
  EXPECT_TRUE(valid_front(profile, n, got));
  EXPECT_GT(s_on.probes, 8u);
  EXPECT_LT(s_on.states, s_off.states);
}

}  // namespace
}  // namespace ctrl::partition
