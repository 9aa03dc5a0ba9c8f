// The CPU kind's worker pool (src/cpu/worker_pool.hpp), driven directly: the thread that calls
// run() takes the share of the worker whose core it is on (a roaming pool) or worker 0's, and
// that worker's helper stands aside. Which share the caller runs is decided by where it is pinned,
// never by timing, so these tests check it exactly; every share runs once per job whichever thread
// runs it, wherever the caller is, and when it moves in the middle of a job.
#include "host_sync.hpp"
#include "pinned_thread.hpp"
#include "thread_queue.hpp"
#include "worker_pool.hpp"

#include <gtest/gtest.h>

#include <sched.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using ctrl::detail::Handoff;
using ctrl::detail::ThreadQueue;
using ctrl::detail::WorkerPool;
using ctrl::test::allowed_cores;
using ctrl::test::PinnedThread;

// What one job saw: how often each share ran, and which shares the calling thread ran.
struct Shares {
  explicit Shares(int workers) : runs(static_cast<std::size_t>(workers)), by_caller(runs.size()) {}
  std::vector<std::atomic<int>> runs;
  std::vector<std::atomic<int>> by_caller;
};

// Runs one job on `pool` from the calling thread; every share must run exactly once.
// Returns the shares the caller ran.
std::vector<int> run_once(WorkerPool& pool) {
  Shares s(pool.size());
  const std::thread::id caller = std::this_thread::get_id();
  pool.run([&](int w) {
    s.runs[static_cast<std::size_t>(w)].fetch_add(1);
    if (std::this_thread::get_id() == caller) s.by_caller[static_cast<std::size_t>(w)].fetch_add(1);
  });
  std::vector<int> mine;
  for (int w = 0; w < pool.size(); ++w) {
    EXPECT_EQ(s.runs[static_cast<std::size_t>(w)].load(), 1) << "share " << w;
    if (s.by_caller[static_cast<std::size_t>(w)].load() > 0) mine.push_back(w);
  }
  return mine;
}

int index_of(const std::vector<int>& cores, int core) {
  return static_cast<int>(std::find(cores.begin(), cores.end(), core) - cores.begin());
}

TEST(WorkerPool, ACallerPinnedToAnyCoreRunsThatCoresShare) {
  const std::vector<int> cores = allowed_cores();
  WorkerPool pool(cores, std::make_shared<Handoff>(), true);
  int pinned = 0;
  for (const int core : cores) {
    PinnedThread pin(core);
    if (!pin.pinned()) continue;  // a core this thread may not use
    ++pinned;
    EXPECT_EQ(pool.worker_here(), index_of(cores, core));
    for (int round = 0; round < 200; ++round) {
      EXPECT_EQ(run_once(pool), std::vector<int>{index_of(cores, core)}) << "core " << core << ", round " << round;
    }
  }
  EXPECT_GT(pinned, 0) << "the test could pin itself to none of its cores";
}

TEST(WorkerPool, AnUnpinnedCallerRunsOneShare) {
  WorkerPool pool(allowed_cores(), std::make_shared<Handoff>(), true);
  for (int round = 0; round < 2000; ++round) EXPECT_EQ(run_once(pool).size(), 1U) << "round " << round;
}

// A pool that does not roam (a controller on some of the cores) gives its caller worker 0's share
// wherever the caller is: every one of its shares stays on its own core.
TEST(WorkerPool, APoolThatDoesNotRoamGivesItsCallerWorker0sShare) {
  const std::vector<int> cores = allowed_cores();
  WorkerPool pool(cores, std::make_shared<Handoff>(), false);
  for (const int core : cores) {
    PinnedThread pin(core);
    for (int round = 0; round < 100; ++round) EXPECT_EQ(run_once(pool), std::vector<int>{0}) << "core " << core;
  }
}

// The caller moves to another core in the middle of its share (as the OS may move an unpinned
// thread): the job still runs every share once, and the next job's caller takes the share of its
// new core while the helper it stood in for takes its own back.
TEST(WorkerPool, ACallerThatMovesDuringAJobStillRunsEachShareOnce) {
  const std::vector<int> cores = allowed_cores();
  if (cores.size() < 2) GTEST_SKIP() << "needs 2 cores to move between";
  WorkerPool pool(cores, std::make_shared<Handoff>(), true);
  PinnedThread pin(cores.front());  // gives the thread its mask back at the end
  if (!pin.pinned()) GTEST_SKIP() << "cannot pin this thread";
  const std::thread::id caller = std::this_thread::get_id();
  for (int round = 0; round < 400; ++round) {
    const int from = cores[static_cast<std::size_t>(round) % cores.size()];
    const int to = cores[static_cast<std::size_t>(round + 1) % cores.size()];
    if (!ctrl::test::move_to_core(from)) GTEST_SKIP() << "cannot move this thread to core " << from;
    Shares s(pool.size());
    int caller_share = -1;
    pool.run([&](int w) {
      s.runs[static_cast<std::size_t>(w)].fetch_add(1);
      if (std::this_thread::get_id() != caller) return;
      caller_share = w;
      ctrl::test::move_to_core(to);
    });
    EXPECT_EQ(caller_share, index_of(cores, from)) << "round " << round;
    for (int w = 0; w < pool.size(); ++w) EXPECT_EQ(s.runs[static_cast<std::size_t>(w)].load(), 1) << "share " << w;
  }
}

// A share that throws, whichever thread runs it (the caller's own or a helper's), reaches the
// caller; the other shares of that job still run, and the next job runs every share.
TEST(WorkerPool, AnErrorInAnyShareReachesTheCaller) {
  const std::vector<int> cores = allowed_cores();
  WorkerPool pool(cores, std::make_shared<Handoff>(), true);
  for (const int core : cores) {
    PinnedThread pin(core);
    for (int failing = 0; failing < pool.size(); ++failing) {
      Shares s(pool.size());
      try {
        pool.run([&](int w) {
          s.runs[static_cast<std::size_t>(w)].fetch_add(1);
          if (w == failing) throw std::runtime_error("share " + std::to_string(w));
        });
        ADD_FAILURE() << "share " << failing << "'s error did not reach the caller";
      } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), "share " + std::to_string(failing));
      }
      for (int w = 0; w < pool.size(); ++w) EXPECT_EQ(s.runs[static_cast<std::size_t>(w)].load(), 1) << "share " << w;
      EXPECT_EQ(run_once(pool).size(), 1U);
    }
  }
}

// Host threads take turns as the caller (one at a time, as a queue's runners do), some pinned to
// different cores and some not, so that the share set aside moves from job to job.
TEST(WorkerPool, CallersTakingTurnsFromDifferentCoresRunEachShareOnce) {
  const std::vector<int> cores = allowed_cores();
  WorkerPool pool(cores, std::make_shared<Handoff>(), true);
  std::mutex turn;
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&, t] {
      std::optional<PinnedThread> pin;  // the odd callers are not pinned
      if (t % 2 == 0) pin.emplace(cores[static_cast<std::size_t>(t / 2) % cores.size()]);
      for (int round = 0; round < 500; ++round) {
        std::lock_guard lock(turn);
        EXPECT_EQ(run_once(pool).size(), 1U);
      }
    });
  }
  for (auto& c : callers) c.join();
}

// The pool's helpers are the queue's watchers: a task left for a waiter that never comes is
// handed to the queue thread by a spinning helper once it is older than Handoff::grace (helpers
// start polling only that long after their last job), and by the last helper to park at the
// latest. The test never waits on the queue: only the helpers can hand the task over.
TEST(WorkerPool, ItsHelpersHandATaskNobodyWaitsForToTheQueueThread) {
  auto handoff = std::make_shared<Handoff>();
  ThreadQueue queue(handoff, [] { return true; });
  queue.start({});
  WorkerPool pool(allowed_cores(), handoff, true);
  if (pool.size() < 2) GTEST_SKIP() << "a pool of one core has no helper to watch the queue";
  for (int round = 0; round < 20; ++round) {
    for (int job = 0; job < 50; ++job) run_once(pool);  // the helpers spin and watch now
    std::atomic<bool> ran{false};
    std::thread::id ran_on;
    queue.submit([&] {
      ran_on = std::this_thread::get_id();
      ran.store(true);
    });
    ASSERT_TRUE(ctrl::test::wait_until([&] { return ran.load(); })) << "round " << round;
    EXPECT_NE(ran_on, std::this_thread::get_id());
  }
}

// Small jobs that copy byte for byte travel on the helpers' line (a copy per job); others are
// read where the caller keeps them. Jobs of both kinds, in turn, each carrying its own number by
// value: every share of each job sees that job's number, never the previous job's.
TEST(WorkerPool, EveryShareSeesItsOwnJobWhetherCopiedOrNot) {
  const std::vector<int> cores = allowed_cores();
  WorkerPool pool(cores, std::make_shared<Handoff>(), true);
  std::vector<std::atomic<int>> seen(static_cast<std::size_t>(pool.size()));
  for (int job = 0; job < 600; ++job) {
    for (auto& s : seen) s.store(-1);
    if (job % 2 == 0) {
      const auto small = [&seen, job](int w) { seen[static_cast<std::size_t>(w)].store(job); };
      static_assert(WorkerPool::copied_onto_line<decltype(small)>);
      pool.run(small);
    } else {
      std::array<int, 32> numbers{};
      numbers.fill(job);
      const auto large = [&seen, numbers](int w) {
        seen[static_cast<std::size_t>(w)].store(numbers[static_cast<std::size_t>(w) % 32]);
      };
      static_assert(!WorkerPool::copied_onto_line<decltype(large)>);
      pool.run(large);
    }
    for (int w = 0; w < pool.size(); ++w) ASSERT_EQ(seen[static_cast<std::size_t>(w)].load(), job) << "share " << w;
  }
}

// A pool of one core has no helper: its caller runs the only share, job after job, and a share's
// error still reaches it once.
TEST(WorkerPool, APoolOfOneCoreRunsEveryJobOnItsCaller) {
  const std::vector<int> cores = allowed_cores();
  for (const bool roaming : {true, false}) {
    WorkerPool pool({cores.front()}, std::make_shared<Handoff>(), roaming);
    for (int round = 0; round < 100; ++round) EXPECT_EQ(run_once(pool), std::vector<int>{0});
    EXPECT_THROW(pool.run([](int) { throw std::runtime_error("one"); }), std::runtime_error);
    EXPECT_EQ(run_once(pool), std::vector<int>{0});
  }
}

// Errors are rethrown once, by the job whose share threw: a run of jobs that fail and succeed in
// turn, on a pool that does not roam (every share but worker 0's on a helper).
TEST(WorkerPool, EachFailedJobReportsItsOwnError) {
  const std::vector<int> cores = allowed_cores();
  WorkerPool pool(cores, std::make_shared<Handoff>(), false);
  for (int job = 0; job < 300; ++job) {
    const int failing = job % 3 == 0 ? (job / 3) % pool.size() : -1;
    Shares s(pool.size());
    try {
      pool.run([&](int w) {
        s.runs[static_cast<std::size_t>(w)].fetch_add(1);
        if (w == failing) throw std::runtime_error("job " + std::to_string(job));
      });
      EXPECT_EQ(failing, -1) << "job " << job << ": share " << failing << "'s error did not reach the caller";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "job " + std::to_string(job));
    }
    for (int w = 0; w < pool.size(); ++w) EXPECT_EQ(s.runs[static_cast<std::size_t>(w)].load(), 1) << "job " << job;
  }
}

}  // namespace
