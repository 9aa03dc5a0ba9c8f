// The exact programme's sweep within a memory limit (DpOptions::memory_limit): past the limit the
// parent pointers of most levels are dropped, levels are checkpointed, and the distributions come
// back from the segments' summaries where they fit, by sweeping segments again where not. The
// front must be bit for bit the one of an unlimited run
// (times, energies and distributions), whatever level the limit trips at and on any threads.
#include "test_support.hpp"
#include "threads.hpp"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace ctrl::partition {
namespace {

using testing::identical;
using testing::random_profile;
using testing::valid_front;
using testing::Values;

// Every point's distribution gives the whole workload (valid_front checks the objectives too).
bool sums_to(const Front& f, Size n) {
  for (const Solution& s : f) {
    Size sum = 0;
    for (const Size x : s.distribution) sum += x;
    if (sum != n) return false;
  }
  return true;
}

DpOptions sweep_options(unsigned threads, std::size_t limit, int probes = 64) {
  DpOptions o;
  o.probes = probes;
  o.threads = threads;
  o.classes = ClassUse::sweep;
  o.memory_limit = limit;
  return o;
}

struct Tally {
  int limited = 0, recomputed = 0, summarised = 0, both = 0, later = 0, long_segments = 0, unreachable = 0;
};

// The instance under the unlimited sweep and under limits from one byte to most of its tables.
void check_limits(const Profile& profile, Size n, unsigned threads, int probes, Tally& tally) {
  DpStats full;
  const Front reference = pareto_front_dp(profile, n, sweep_options(threads, SIZE_MAX, probes), &full);
  ASSERT_EQ(full.checkpoints, 0u);
  ASSERT_EQ(full.recomputed_levels, 0u);
  ASSERT_TRUE(valid_front(profile, n, reference));
  if (reference.empty()) {  // no distribution: no sweep either, whatever the limit
    EXPECT_TRUE(pareto_front_dp(profile, n, sweep_options(threads, 1, probes)).empty());
    ++tally.unreachable;
    return;
  }
  const auto p = static_cast<std::size_t>(profile.size());
  DpStats tiniest;  // the limit of one byte trips at the first level
  // Summaries fit only near the top of the range: finer shares there, so that the tallies below
  // do not hang on a few bytes of the sweep's count of its storage.
  for (const double share : {0.0, 0.5, 0.75, 0.8, 0.85, 0.9, 0.92, 0.94, 0.95, 0.96, 0.97, 0.98}) {
    const auto limit =
        share == 0.0 ? std::size_t{1} : static_cast<std::size_t>(share * static_cast<double>(full.table_bytes));
    SCOPED_TRACE("limit " + std::to_string(limit) + " of " + std::to_string(full.table_bytes) + " bytes");
    DpStats stats;
    const Front front = pareto_front_dp(profile, n, sweep_options(threads, limit, probes), &stats);
    ASSERT_TRUE(identical(reference, front)) << "unlimited:\n"
                                             << testing::describe(reference) << "limited:\n"
                                             << testing::describe(front);
    ASSERT_TRUE(sums_to(front, n));
    ASSERT_TRUE(valid_front(profile, n, front));
    ASSERT_EQ(stats.states, full.states);
    ASSERT_LE(stats.recomputed_levels, p);
    if (share == 0.0) {
      ASSERT_GE(stats.checkpoints, 1u);
      tiniest = stats;
    }
    if (stats.checkpoints == 0) continue;
    ++tally.limited;
    if (stats.recomputed_levels > 0) ++tally.recomputed;
    if (stats.summarised_levels > 0) ++tally.summarised;
    if (stats.recomputed_levels > 0 && stats.summarised_levels > 0) ++tally.both;
    // Segments of several levels swept again: more levels than segments before the last.
    if (stats.recomputed_levels + 1 > stats.checkpoints) ++tally.long_segments;
    // Tripped later than at the first level: other segments.
    if (stats.checkpoints != tiniest.checkpoints || stats.recomputed_levels != tiniest.recomputed_levels) ++tally.later;
  }
}

TEST(SweepMemory, LimitedSweepGivesTheUnlimitedFront) {
  const detail::RaisedThreadCap big_node(16);  // as many threads as a big node has, whatever the cores here
  std::mt19937_64 rng(2016);
  Tally tally;
  for (int i = 0; i < 60; ++i) {
    const int p = 1 + static_cast<int>(rng() % 24);
    const int max_size = 4 + static_cast<int>(rng() % 12);
    const double density = i % 4 == 0 ? 0.35 : 0.8;  // gaps in the sizes: unreachable workloads
    const Values values = i % 2 == 0 ? Values::coarse : Values::fine;
    const Profile profile = random_profile(rng, p, max_size, density, values);
    const Size n = 1 + static_cast<Size>(rng() % static_cast<std::uint64_t>(p * max_size));
    for (const unsigned threads : {1u, 3u}) {
      SCOPED_TRACE("instance " + std::to_string(i) + ", p " + std::to_string(p) + ", n " + std::to_string(n) + ", " +
                   std::to_string(threads) + " threads" + (i % 3 == 0 ? ", no probes" : ""));
      check_limits(profile, n, threads, i % 3 == 0 ? 0 : 64, tally);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  // The limits tripped at the first level and later, and segments were swept again.
  EXPECT_GT(tally.later, 20);
  EXPECT_GT(tally.recomputed, 40);
  // Some segments' paths were summarised, in runs that swept others again too.
  EXPECT_GT(tally.summarised, 10);
  EXPECT_GT(tally.both, 5);
  EXPECT_GT(tally.unreachable, 2);
  EXPECT_GT(tally.long_segments, 20);
}

// Processors with many sizes and energies that jump: large levels, so that segments of several
// levels, cut by the limit, are swept again.
TEST(SweepMemory, LargeLevelsOnManyProcessors) {
  const detail::RaisedThreadCap big_node(16);  // as many threads as a big node has, whatever the cores here
  std::mt19937_64 rng(1616);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Tally tally;
  for (const int p : {12, 33, 60}) {
    std::vector<ProcessorProfile> procs;
    for (int i = 0; i < p; ++i) {
      const double slow = 0.5 + 2 * u(rng), cost = 0.5 + u(rng);
      std::vector<ProfilePoint> pts;
      for (int x = 1; x <= 40; ++x)
        pts.push_back(ProfilePoint{x, slow * x * (1 + 0.01 * u(rng)), cost * x * (0.6 + 0.8 * u(rng))});
      procs.emplace_back("P" + std::to_string(i), std::move(pts));
    }
    const Profile profile(std::move(procs));
    for (const unsigned threads : {1u, 2u}) {
      SCOPED_TRACE("p " + std::to_string(p) + ", " + std::to_string(threads) + " threads");
      check_limits(profile, 12 * p, threads, 64, tally);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  EXPECT_GT(tally.later, 6);
  EXPECT_GT(tally.long_segments, 6);
  EXPECT_GT(tally.summarised, 1);
  EXPECT_GT(tally.both, 1);
}

// The default limit keeps every pointer of a small instance: nothing is swept twice.
TEST(SweepMemory, SmallInstancesKeepEveryPointer) {
  std::mt19937_64 rng(7);
  const Profile profile = random_profile(rng, 16, 30, 0.9, Values::fine);
  DpOptions opt;
  opt.classes = ClassUse::sweep;
  DpStats stats;
  ASSERT_FALSE(pareto_front_dp(profile, 200, opt, &stats).empty());
  EXPECT_EQ(stats.checkpoints, 0u);
  EXPECT_EQ(stats.recomputed_levels, 0u);
  EXPECT_GT(stats.table_bytes, 0u);
}

}  // namespace
}  // namespace ctrl::partition
