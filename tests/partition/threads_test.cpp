// The partition library's threads. DpOptions::threads and ApproxOptions::threads are capped at the
// cores this process may use: more is a UsageError naming both (`ctrl pareto --threads 100000`
// took every process the system allows). Where the system starts no more threads (ulimit -u), the
// programme's pool and its parallel steps stop and join those they had started and throw one
// DeviceError, instead of waiting forever (`ctrl pareto --threads 3` under prlimit --nproc=3); each
// such case runs in a child process under RLIMIT_NPROC (thread_limit.hpp).
#include "test_support.hpp"
#include "thread_limit.hpp"

#include "pool.hpp"
#include "threads.hpp"

#include <ctrl/errors.hpp>

#include <atomic>
#include <random>
#include <string>

namespace ctrl::partition {
namespace {

using ctrl::test::error_of;
using ctrl::test::run_limited;
using ctrl::test::ThreadLimit;
using testing::random_profile;
using testing::Values;

Profile small_profile() {
  std::mt19937_64 rng(3);
  return random_profile(rng, 4, 20, 0.8, Values::fine);
}

TEST(Threads, MoreThreadsThanCoresIsAUsageErrorNamingBoth) {
  const unsigned cores = detail::usable_cores();
  const Profile profile = small_profile();
  const std::string expected = "UsageError: threads: " + std::to_string(cores + 1) + " asked, more than the " +
                               std::to_string(cores) + (cores == 1 ? " core" : " cores") +
                               " this process may use (its CPU affinity): at most " + std::to_string(cores) +
                               ", or 0 for all of them";
  DpOptions opt;
  opt.threads = cores + 1;
  EXPECT_EQ(error_of([&] { (void)pareto_front_dp(profile, 30, opt); }), expected);
  EXPECT_EQ(error_of([&] { (void)approximate_front(profile, 30, 0.1, ApproxOptions{cores + 1}); }), expected);
  ParetoOptions huge;
  huge.dp.threads = 100000;
  EXPECT_THROW((void)hepopta(profile, 30, huge), UsageError);
  huge.epsilon = 0.1;
  EXPECT_THROW((void)hepopta(profile, 30, huge), UsageError);
  // Every core, named or by default, is allowed; so is more under a raised cap (the tests' own).
  for (const unsigned threads : {0u, cores}) {
    opt.threads = threads;
    EXPECT_FALSE(pareto_front_dp(profile, 30, opt).empty()) << threads;
    EXPECT_FALSE(approximate_front(profile, 30, 0.1, ApproxOptions{threads}).empty()) << threads;
  }
  const detail::RaisedThreadCap raised(cores + 1);
  opt.threads = cores + 1;
  EXPECT_FALSE(pareto_front_dp(profile, 30, opt).empty());
}

// Seven workers to start, room for two: the third fails, and the two are stopped and joined.
TEST(Threads, APoolThatCannotStartItsWorkersThrowsOnce) {
  const auto run = run_limited([](const ThreadLimit& limit) {
    limit.allow(2);
    return error_of([] { detail::Pool pool(8); });
  });
  CTRL_EXPECT_NO_THREAD(run, "a worker of the partition programme (");
}

TEST(Threads, AParallelStepThatCannotStartItsThreadsThrowsOnce) {
  const auto run = run_limited([](const ThreadLimit& limit) {
    limit.allow(2);
    std::atomic<int> ran{0};
    return error_of([&] { detail::parallel(8, [&](unsigned) { ran.fetch_add(1); }); });
  });
  CTRL_EXPECT_NO_THREAD(run, "a thread of the partition programme (");
}

// The front itself, on more threads than the system starts.
TEST(Threads, AFrontOnMoreThreadsThanTheSystemStartsThrowsOnce) {
  const Profile profile = small_profile();
  const auto run = run_limited([&](const ThreadLimit& limit) {
    const detail::RaisedThreadCap raised(4);
    DpOptions opt;
    opt.threads = 4;
    limit.allow(1);
    return error_of([&] { (void)pareto_front_dp(profile, 30, opt); });
  });
  CTRL_EXPECT_NO_THREAD(run, "a worker of the partition programme (");
}

}  // namespace
}  // namespace ctrl::partition
