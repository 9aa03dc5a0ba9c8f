// The exact programme's sweep on many threads: levels large enough that the bounds, the bucketing
// of the sources by time, the sweep and the collecting of its points are all split between
// threads, and the front bit for bit the one of a single thread (times, energies, distributions).
#include "test_support.hpp"
#include "threads.hpp"

#include <random>
#include <string>
#include <vector>

namespace ctrl::partition {
namespace {

using testing::identical;
using testing::jumpy_profile;

TEST(DynamicProgramme, ManyThreadsGiveTheFrontOfOneBitForBit) {
  const detail::RaisedThreadCap big_node(16);  // as many threads as a big node has, whatever the cores here
  std::mt19937_64 rng(1616);
  for (int i = 0; i < 4; ++i) {
    const int p = 8 + i % 3;
    const Profile profile = jumpy_profile(rng, p, 200 + 20 * i, 0.01);
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
      if (probes == 0) {
        ASSERT_GE(stats.states / static_cast<std::size_t>(p), std::size_t{2048});
      }
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
