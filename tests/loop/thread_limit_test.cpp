// Where the system starts no more threads (ulimit -u), a round of the team stops the drivers it had
// started and throws one DeviceError: `ctrl run` and `ctrl profile` under prlimit --nproc=5 waited
// forever, a driver at the latch that releases them all. The round runs in a child process under
// RLIMIT_NPROC (thread_limit.hpp), which must end within the bound.
#include "catalog/catalog.hpp"
#include <ctrl/loop/team.hpp>

#include "thread_limit.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace ctrl::loop {
namespace {

using ctrl::test::error_of;
using ctrl::test::run_limited;
using ctrl::test::ThreadLimit;

TeamOptions without_energy() {
  TeamOptions o;
  o.energy = false;
  o.min_round_s = 0.002;
  return o;
}

// Two drivers to start, room for one: the second fails, and the first, waiting for it, is let go.
TEST(ThreadLimit, ARoundThatCannotStartItsDriversThrowsOnce) {
  const auto run = run_limited([](const ThreadLimit& limit) {
    Team team({parse_device("cpu:0"), parse_device("offload:1")}, without_energy());
    auto p = apps::catalog().find("matadd").make_problem(40, 32, 2, 1);
    const std::vector<Block> blocks{{0, 25}, {25, 40}};
    limit.allow(1);
    return error_of([&] { (void)team.run(*p, blocks, 1); });
  });
  CTRL_EXPECT_NO_THREAD(run, "a driver of the team's processors (");
}

// With the threads it needs, the same round runs in the child: the limit is what fails above. (A
// workload of ctrl's own kernels: a BLAS library's dgemm starts threads of its own at its first
// call, which ctrl does not start, and OpenBLAS then ends the process.)
TEST(ThreadLimit, ARoundWithTheThreadsItNeedsRuns) {
  const auto run = run_limited([](const ThreadLimit& limit) {
    Team team({parse_device("cpu:0"), parse_device("offload:1")}, without_energy());
    auto p = apps::catalog().find("matadd").make_problem(40, 32, 2, 1);
    const std::vector<Block> blocks{{0, 25}, {25, 40}};
    if (limit.own_user()) limit.allow(2);  // an ordinary user's limit would allow no thread at all
    return error_of([&] { (void)team.run(*p, blocks, 1); });
  });
  if (run.end == ctrl::test::LimitedRun::End::skipped) GTEST_SKIP() << run.text;
  EXPECT_EQ(run.end, ctrl::test::LimitedRun::End::reported) << run.text;
  EXPECT_EQ(run.text, "no error");
}

}  // namespace
}  // namespace ctrl::loop
