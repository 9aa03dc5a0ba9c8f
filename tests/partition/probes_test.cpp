// The probe tables of the Pareto dynamic programme (floats below the exact doubles), also kept one
// row in B (many processors): every row, recomputed between kept ones or not, is a lower bound
// close to the exact one, and the front on a platform large enough to take that path is the exact
// one.
#include "test_support.hpp"

#include "dp_kernels.hpp"
#include "instance.hpp"
#include "probes.hpp"
#include "threads.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace ctrl::partition {
namespace {

using testing::identical;
using testing::random_profile;
using testing::same_front;
using testing::valid_front;
using testing::Values;

bool bitwise_equal(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// Level k's bounds as the sweep computes them: the rows, then the bounds of every remaining
// workload the level reads (the sweep splits those between its threads).
void level_bound(detail::Probes& probes, const detail::Instance& in, int k, double slack, std::vector<double>& bound,
                 std::vector<const float*>& lower) {
  probes.lower_rows(in, k, lower);
  bound.resize(in.stride() * probes.count());
  const auto [from, to] = probes.read_range(in, k + 1);
  probes.bounds_of(in, lower.data(), slack, bound.data(), from, to);
}

// The exact (double) suffix table of one threshold, row by row from row p.
std::vector<std::vector<double>> exact_table(const detail::Instance& in, double tlimit, double elimit) {
  std::vector<std::vector<double>> rows(static_cast<std::size_t>(in.p) + 1, std::vector<double>(in.stride()));
  auto& top = rows.back();
  std::fill(top.begin(), top.end(), detail::inf);
  top[0] = 0.0;
  for (int k = in.p - 1; k >= 0; --k)
    detail::suffix_min_energy_row(in, k, tlimit, elimit, rows[static_cast<std::size_t>(k) + 1].data(),
                                  rows[static_cast<std::size_t>(k)].data());
  return rows;
}

TEST(Probes, RowsKeptOneInBAreLowerBoundsCloseToTheExactOnes) {
  std::mt19937_64 rng(2026);
  for (int i = 0; i < 120; ++i) {
    const int p = 8 + i % 40;
    const Profile profile =
        random_profile(rng, p, 2 + i % 9, i % 3 == 0 ? 0.4 : 0.9, i % 2 ? Values::fine : Values::coarse);
    const Size n = 1 + static_cast<Size>(rng() % static_cast<std::uint64_t>(3 * p));
    SCOPED_TRACE("instance " + std::to_string(i) + ": p=" + std::to_string(p) + " n=" + std::to_string(n));
    const auto in = detail::make_instance(profile, n);
    if (!in) continue;
    const auto last = static_cast<std::uint32_t>(in->times.size() - 1), first = last / 3;
    const double elimit = i % 4 == 0 ? detail::inf : 3.0 * p;
    const int wanted = 6;
    const std::size_t full = static_cast<std::size_t>(in->p + 1) * in->stride() * sizeof(float);
    detail::Probes all = detail::make_probes(*in, first, last, elimit, wanted, 1, SIZE_MAX);
    // Too little memory for that many full tables, enough for as many kept one in B.
    detail::Probes some = detail::make_probes(*in, first, last, elimit, wanted, 1 + i % 2, all.count() * full - 1);
    ASSERT_EQ(all.block, 1);
    ASSERT_GT(some.block, 1);
    ASSERT_EQ(all.rank, some.rank);
    ASSERT_TRUE(bitwise_equal(all.best, some.best));
    EXPECT_LT(some.bytes(), all.bytes());
    // Every row of either is below the exact table, by a few parts in 10^7 at most, and the rows
    // recomputed between kept ones (from a rounded row) are below the full table's.
    for (std::size_t j = 0; j < all.count(); ++j) {
      const auto exact = exact_table(*in, all.limit[j], elimit);
      ASSERT_EQ(all.best[j], exact[0][static_cast<std::size_t>(in->n)]);
      for (int k = 0; k <= in->p; ++k)  // as the sweep asks: levels in increasing order
        for (std::size_t r = 0; r < in->stride(); ++r) {
          const double want = exact[static_cast<std::size_t>(k)][r], a = all.row(*in, j, k)[r],
                       b = some.row(*in, j, k)[r];
          ASSERT_LE(a, want) << "threshold " << j << ", row " << k << ", workload " << r;
          ASSERT_LE(b, a) << "threshold " << j << ", row " << k << ", workload " << r;
          if (want == detail::inf) {
            ASSERT_EQ(b, detail::inf);
          } else {
            ASSERT_GE(b, want - 1e-6 * std::abs(want)) << "threshold " << j << ", row " << k << ", workload " << r;
          }
        }
    }
    // The sweep's bounds: the thinned tables' never below the full ones'.
    all = detail::make_probes(*in, first, last, elimit, wanted, 1, SIZE_MAX);
    some = detail::make_probes(*in, first, last, elimit, wanted, 1, all.count() * full - 1);
    std::vector<double> a, b;
    std::vector<const float*> a_lower, b_lower;
    for (int k = 0; k < in->p; ++k) {
      level_bound(all, *in, k, 1e-9, a, a_lower);
      level_bound(some, *in, k, 1e-9, b, b_lower);
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t r = 0; r < a.size(); ++r) ASSERT_GE(b[r], a[r]) << "level " << k << ", entry " << r;
    }
  }
}

// The sweep asks for each level's bounds at its targets' remaining workloads only (Probes::reads):
// there, they are bitwise those computed everywhere, the rows between kept ones computed only
// where some level reads them, directly or through the rows computed from them.
TEST(Probes, BoundsReadInPartAreThoseComputedInFull) {
  std::mt19937_64 rng(31);
  for (int i = 0; i < 60; ++i) {
    const int p = 10 + i % 30;
    const Profile profile = random_profile(rng, p, 2 + i % 9, 0.8, i % 2 ? Values::fine : Values::coarse);
    const Size n = 1 + static_cast<Size>(rng() % static_cast<std::uint64_t>(3 * p));
    SCOPED_TRACE("instance " + std::to_string(i) + ": p=" + std::to_string(p) + " n=" + std::to_string(n));
    const auto in = detail::make_instance(profile, n);
    if (!in) continue;
    const auto last = static_cast<std::uint32_t>(in->times.size() - 1);
    const std::size_t s = in->stride(), full = static_cast<std::size_t>(in->p + 1) * s * sizeof(float);
    const std::size_t J = detail::make_probes(*in, last / 3, last, detail::inf, 5, 1, SIZE_MAX).count();
    const auto thinned = [&] { return detail::make_probes(*in, last / 3, last, detail::inf, 5, 1, J * full - 1); };
    detail::Probes all = thinned(), some = thinned();
    ASSERT_GT(some.block, 1);
    for (int k = 0; k < in->p; ++k) {  // a random range a level, some empty
      const auto a = static_cast<std::int32_t>(rng() % s), b = static_cast<std::int32_t>(rng() % (s + 1));
      some.reads.emplace_back(a, rng() % 5 == 0 ? a : std::max(a, b));
    }
    std::vector<double> a_bound, b_bound;
    std::vector<const float*> a_lower, b_lower;
    for (int k = 0; k < in->p; ++k) {
      level_bound(all, *in, k, 1e-9, a_bound, a_lower);
      level_bound(some, *in, k, 1e-9, b_bound, b_lower);
      const auto [from, to] = some.reads[static_cast<std::size_t>(k)];
      for (std::size_t j = 0; j < all.count(); ++j)
        for (auto r = static_cast<std::size_t>(from); r < static_cast<std::size_t>(to); ++r) {
          ASSERT_EQ(std::memcmp(&a_bound[j * s + r], &b_bound[j * s + r], sizeof(double)), 0)
              << k << " " << j << " " << r;
          ASSERT_EQ(std::memcmp(&a_lower[j][r], &b_lower[j][r], sizeof(float)), 0) << k << " " << j << " " << r;
        }
    }
  }
}

// Many processors with many distinct times: 64 full tables would pass the default cap, so the
// programme keeps one row in B (and recomputes the rows between only where its levels read
// them). Its front is the one found without any probe bound.
TEST(Probes, LargePlatformFrontIsExact) {
  std::mt19937_64 rng(99);
  std::uniform_int_distribution<int> grid(1, 400);
  const int p = 700, m = 4;
  std::vector<ProcessorProfile> procs;
  for (int k = 0; k < p; ++k) {
    const double speed = grid(rng), cost = 1 + grid(rng) % 5;
    std::vector<ProfilePoint> pts;
    for (int x = 1; x <= m; ++x) pts.push_back(ProfilePoint{x, x * speed / 100, x * cost + (x == m ? 1 : 0)});
    procs.emplace_back("P" + std::to_string(k), std::move(pts));
  }
  const Profile profile(std::move(procs));
  const Size n = 1600;
  const auto in = detail::make_instance(profile, n);
  ASSERT_TRUE(in);
  ASSERT_GT(64 * static_cast<std::size_t>(p + 1) * in->stride() * sizeof(float), detail::probe_memory_cap);
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
  // Within a memory limit that keeps few pointers: segments swept again, their bounds recomputed
  // only where those sweeps read them. The same front, distributions included.
  DpOptions tight = on;
  tight.memory_limit = std::size_t{4} << 20;
  DpStats s_tight;
  const Front again = pareto_front_dp(profile, n, tight, &s_tight);
  EXPECT_GT(s_tight.recomputed_levels, 100u);
  EXPECT_TRUE(identical(again, got));
}

// The probe tables' row kernel (sixteen entries in registers over every size, the sizes that reach
// only part of a block one by one) against a pass per size, bitwise: rows of every length around
// the block size, sparse sizes, unreachable entries.
TEST(Probes, SuffixRowIsThePassPerSize) {
  std::mt19937_64 rng(1717);
  for (int i = 0; i < 300; ++i) {
    const int p = 2 + i % 3;
    const Profile profile =
        random_profile(rng, p, 3 + i % 40, i % 2 ? 0.3 : 0.9, i % 3 ? Values::fine : Values::coarse);
    const Size n = 1 + static_cast<Size>(rng() % 70);
    const auto in = detail::make_instance(profile, n);
    if (!in) continue;
    const std::size_t s = in->stride();
    std::vector<double> below(s), got(s), want(s);
    for (std::size_t r = 0; r < s; ++r) below[r] = rng() % 5 == 0 ? detail::inf : static_cast<double>(rng() % 1000) / 7;
    const double tlimit = i % 4 == 0 ? detail::inf : in->times[in->times.size() / 2];
    const double elimit = i % 5 == 0 ? 1.0 : detail::inf;
    detail::suffix_min_energy_row(*in, 0, tlimit, elimit, below.data(), got.data());
    want = below;
    for (const detail::Item& it : in->items[0])
      if (it.time <= tlimit && it.energy <= elimit)
        detail::relax_sum(want.data(), below.data(), it.size, 0, static_cast<std::int32_t>(s), it.energy);
    ASSERT_TRUE(bitwise_equal(got, want)) << "instance " << i << ", n=" << n;
  }
}

// The bounds as the sweep reads them: per interval j and remaining workload r, the double above
// the largest energy (over j and the later intervals for `bound`, interval j alone for
// interval_bound of the rows it gives).
TEST(Probes, LevelBoundsAreTheDoubleAboveTheLargestEnergy) {
  std::mt19937_64 rng(77);
  const Profile profile = random_profile(rng, 9, 12, 0.8, Values::fine);
  const auto in = detail::make_instance(profile, 60);
  ASSERT_TRUE(in);
  const auto last = static_cast<std::uint32_t>(in->times.size() - 1);
  detail::Probes probes = detail::make_probes(*in, last / 4, last, detail::inf, 7, 1);
  ASSERT_GT(probes.count(), 3u);
  const std::size_t J = probes.count(), s = in->stride();
  const double slack = 1e-6;
  std::vector<double> bound;
  std::vector<const float*> lower;
  for (int k = 0; k < in->p; ++k) {
    level_bound(probes, *in, k, slack, bound, lower);
    for (std::size_t r = 0; r < s; ++r) {
      double most = -detail::inf;
      for (std::size_t j = J; j-- > 0;) {
        const double here = probes.best[j] - probes.row(*in, std::min(j + 1, J - 1), k + 1)[r];
        most = std::max(most, here);
        ASSERT_EQ(bound[j * s + r], std::nextafter(most + slack, detail::inf)) << k << " " << r << " " << j;
        ASSERT_EQ(detail::interval_bound(probes.best[j], lower[j][r], slack), std::nextafter(here + slack, detail::inf))
            << k << " " << r << " " << j;
      }
    }
  }
}

// Profiles whose energies jump from size to size: many partial points, each bounded by the probes
// over the times before its target's next point. The front, bit for bit (times, energies,
// distributions), is the one found with no bound at all, for few and many probes.
TEST(Probes, BoundsLeaveTheFrontBitForBit) {
  const detail::RaisedThreadCap big_node(16);  // as many threads as a big node has, whatever the cores here
  std::mt19937_64 rng(4242);
  for (int i = 0; i < 12; ++i) {
    const int p = 3 + i % 5, m = 20 + 7 * (i % 4);
    const Profile profile = testing::jumpy_profile(rng, p, m, 0.02);
    const Size n = m * p / 2 + i;
    DpOptions off;
    off.probes = 0;
    off.threads = 1;
    off.classes = ClassUse::sweep;
    const Front reference = pareto_front_dp(profile, n, off);
    ASSERT_GE(reference.size(), 3u);
    for (const int probes : {2, 5, 16, 64, 200}) {
      DpOptions on = off;
      on.probes = probes;
      on.threads = 1 + static_cast<unsigned>(i % 3);
      DpStats stats;
      const Front got = pareto_front_dp(profile, n, on, &stats);
      ASSERT_EQ(got.size(), reference.size()) << "instance " << i << ", " << probes << " probes";
      for (std::size_t j = 0; j < got.size(); ++j) {
        ASSERT_EQ(got[j].time, reference[j].time) << "instance " << i << ", " << probes << " probes, point " << j;
        ASSERT_EQ(got[j].energy, reference[j].energy) << "instance " << i << ", " << probes << " probes, point " << j;
        ASSERT_EQ(got[j].distribution, reference[j].distribution) << "instance " << i << ", " << probes << " probes";
      }
    }
  }
}

}  // namespace
}  // namespace ctrl::partition
