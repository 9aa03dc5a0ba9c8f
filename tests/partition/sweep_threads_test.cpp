// The exact programme's sweep on many threads: levels large enough that the bounds, the bucketing
// of the sources by time, the sweep and the collecting of its points are all split between
// threads, and the front bit for bit the one of a single thread (times, energies, distributions).
#include "test_support.hpp"

#include <random>
#include <string>
#include <vector>

namespace ctrl::partition {
namespace {

// p processors with sizes 1..m, times nearly linear in the size and energies that jump from size
// to size (as measured DGEMM energies do): many partial Pareto points at every level.
Profile jumpy_profile(std::mt19937_64& rng, int p, int m) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<ProcessorProfile> procs;
  for (int i = 0; i < p; ++i) {
    const double slow = 0.5 + 2 * u(rng), cost = 0.5 + u(rng);
    std::vector<ProfilePoint> pts;
    for (int x = 1; x <= m; ++x)
      pts.push_back(ProfilePoint{x, slow * x * (1 + 0.01 * u(rng)), cost * x * (0.6 + 0.8 * u(rng))});
    procs.emplace_back("P" + std::to_string(i), std::move(pts));
  }
  return Profile(std::move(procs));
}

bool identical(const Front& a, const Front& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].time != b[i].time || a[i].energy != b[i].energy || a[i].distribution != b[i].distribution) return false;
  return true;
}

TEST(DynamicProgramme, ManyThreadsGiveTheFrontOfOneBitForBit) {
  std::mt19937_64 rng(1616);
  for (int i = 0; i < 4; ++i) {
    const int p = 8 + i % 3;
    const Profile profile = jumpy_profile(rng, p, 200 + 20 * i);
    const Size n = 120 * p;
    for (const int probes : {0, 64}) {
      SCOPED_TRACE("instance " + std::to_string(i) + ", probes " + std::to_string(probes));
      DpOptions one;
      one.threads = 1;
      one.probes = probes;
      one.classes = ClassUse::sweep;
      DpStats stats;
      const Front reference = pareto_front_dp(profile, n, one, &stats);
      ASSERT_FALSE(reference.empty());
      // Without the probes' bounds the levels are large enough to be bucketed in several chunks.
      if (probes == 0) ASSERT_GE(stats.states / static_cast<std::size_t>(p), std::size_t{2048});
      for (const unsigned threads : {2u, 3u, 16u}) {
        DpOptions many = one;
        many.threads = threads;
        ASSERT_TRUE(identical(reference, pareto_front_dp(profile, n, many))) << threads << " threads";
      }
    }
  }
}

}  // namespace
}  // namespace ctrl::partition
