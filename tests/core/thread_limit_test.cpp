// Where the system starts no more threads (the user's limit, ulimit -u): the CPU kind's worker pool
// and a controller's queue thread stop and join the threads they had started, and say so in one
// DeviceError, instead of aborting (a joinable std::thread destroyed while unwinding). Each case
// runs in a child process under RLIMIT_NPROC (thread_limit.hpp), which must end within the bound.
#include "thread_limit.hpp"
#include "worker_pool.hpp"

#include <ctrl/ctrl.hpp>

#include <gtest/gtest.h>

#include <sched.h>

#include <string>
#include <vector>

namespace {

using ctrl::test::error_of;
using ctrl::test::run_limited;
using ctrl::test::ThreadLimit;

// The cores this process may use.
std::vector<int> usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cores;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cores.push_back(c);
  if (cores.empty()) cores.push_back(0);
  return cores;
}

// Four workers on the cores this process may use, a core used twice where it has fewer.
std::vector<int> four_cores() {
  const std::vector<int> usable = usable_cores();
  std::vector<int> cores;
  for (std::size_t w = 0; w < 4; ++w) cores.push_back(usable[w % usable.size()]);
  return cores;
}

// Three helpers to start, room for one: the second fails, and the first is stopped and joined.
TEST(ThreadLimit, AWorkerPoolThatCannotStartItsHelpersThrowsOnce) {
  const std::vector<int> cores = four_cores();
  const auto run = run_limited([&](const ThreadLimit& limit) {
    limit.allow(1);
    return error_of([&] { ctrl::detail::WorkerPool pool(cores, nullptr, false); });
  });
  CTRL_EXPECT_NO_THREAD(run, "a helper of the CPU workers on cores ");
}

// `matadd --size 64` under prlimit --nproc=2 aborted here: a controller of every core starts its
// pool's helpers (one a core where it has several), then its queue thread. With no thread to
// spare, one or two (on two cores: the second helper fails, or the queue thread once both helpers
// run), the controller is one DeviceError, and the threads it had started are joined.
TEST(ThreadLimit, AControllerThatCannotStartItsThreadsThrowsOnce) {
  const std::size_t cores = usable_cores().size();
  const std::size_t needed = (cores > 1 ? cores : 0) + 1;  // the helpers of a roaming pool, the queue thread
  for (int spare = 0; spare < 3 && static_cast<std::size_t>(spare) < needed; ++spare) {
    SCOPED_TRACE(std::to_string(spare) + " threads to spare");
    const auto run = run_limited([&](const ThreadLimit& limit) {
      limit.allow(spare);
      return error_of([] { ctrl::Controller c(ctrl::parse_device("cpu")); });
    });
    CTRL_EXPECT_NO_THREAD(run, "");
  }
}

// With the threads it needs, the same controller works in the child: the limit, not the child, is
// what fails above.
TEST(ThreadLimit, AControllerWithTheThreadsItNeedsWorks) {
  const auto run = run_limited([&](const ThreadLimit& limit) {
    if (limit.own_user()) limit.allow(4);  // an ordinary user's limit would allow no thread at all
    return error_of([] {
      ctrl::Controller c(ctrl::parse_device("cpu:0"));
      c.wait();
    });
  });
  if (run.end == ctrl::test::LimitedRun::End::skipped) GTEST_SKIP() << run.text;
  EXPECT_EQ(run.end, ctrl::test::LimitedRun::End::reported) << run.text;
  EXPECT_EQ(run.text, "no error");
}

}  // namespace
