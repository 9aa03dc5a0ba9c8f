// The queue of CPU-style kinds (src/core/thread_queue.hpp) and its fast path, driven directly: the
// test plays the watcher (a pool helper) so that where a task runs is decided by the protocol,
// never by timing. A task left for a waiter runs on the waiting thread; one nobody waits for
// runs on the queue thread once a watcher hands it over; order, failures and their count are
// those of the queue thread whichever thread runs a task.
#include "host_sync.hpp"
#include "thread_queue.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using ctrl::detail::Handoff;
using ctrl::detail::ThreadQueue;

struct Fixture {
  std::shared_ptr<Handoff> handoff = std::make_shared<Handoff>();
  std::unique_ptr<ThreadQueue> queue;
  explicit Fixture(bool waiters_may_run) {
    queue = std::make_unique<ThreadQueue>(
        handoff, waiters_may_run ? std::function<bool()>([] { return true; }) : std::function<bool()>());
    queue->start({});
  }
};

TEST(ThreadQueue, ATaskLeftForAWaiterRunsOnTheWaitingThread) {
  Fixture f(true);
  f.handoff->watch();  // a watcher that never hands over: only the waiter can run the task
  std::thread::id ran_on;
  const auto ticket = f.queue->submit([&] { ran_on = std::this_thread::get_id(); });
  f.queue->wait(ticket);
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST(ThreadQueue, WithoutAWatcherTheQueueThreadRunsTheTaskUnwaited) {
  Fixture f(true);
  std::atomic<bool> ran{false};
  std::thread::id ran_on;
  f.queue->submit([&] {
    ran_on = std::this_thread::get_id();
    ran.store(true);
  });
  ASSERT_TRUE(ctrl::test::wait_until([&] { return ran.load(); }));
  EXPECT_NE(ran_on, std::this_thread::get_id());
}

TEST(ThreadQueue, AWaiterThatMayNotRunTasksLeavesThemToTheQueueThread) {
  Fixture f(false);
  f.handoff->watch();  // ignored: without the waiters' permission nothing is left for them
  std::thread::id ran_on;
  f.queue->wait(f.queue->submit([&] { ran_on = std::this_thread::get_id(); }));
  EXPECT_NE(ran_on, std::this_thread::get_id());
}

TEST(ThreadQueue, AWatcherHandsAnUnwaitedTaskToTheQueueThread) {
  Fixture f(true);
  f.handoff->watch();
  std::atomic<bool> ran{false};
  std::thread::id ran_on;
  f.queue->submit([&] {
    ran_on = std::this_thread::get_id();
    ran.store(true);
  });
  ASSERT_TRUE(ctrl::test::wait_until([&] {
    f.handoff->poll();  // what an idle pool helper does while it spins
    return ran.load();
  }));
  EXPECT_NE(ran_on, std::this_thread::get_id());
}

TEST(ThreadQueue, AWatcherAboutToSleepHandsOverWhatIsLeft) {
  Fixture f(true);
  f.handoff->watch();
  std::atomic<bool> ran{false};
  f.queue->submit([&] { ran.store(true); });
  f.handoff->unwatch();
  EXPECT_TRUE(ctrl::test::wait_until([&] { return ran.load(); }));
}

// Several helpers may watch at once (a helper stands aside while a waiter runs its share, and
// another must still watch): a task is handed over only when the last of them leaves.
TEST(ThreadQueue, OnlyTheLastWatcherToLeaveHandsOver) {
  Fixture f(true);
  f.handoff->watch();
  f.handoff->watch();
  std::thread::id ran_on;
  const auto ticket = f.queue->submit([&] { ran_on = std::this_thread::get_id(); });
  f.handoff->unwatch();  // one watcher is left: the task stays for the waiter
  f.queue->wait(ticket);
  EXPECT_EQ(ran_on, std::this_thread::get_id());

  std::atomic<bool> ran{false};
  f.queue->submit([&] {
    ran_on = std::this_thread::get_id();
    ran.store(true);
  });
  f.handoff->unwatch();  // the last one: the queue thread runs it, unwaited
  ASSERT_TRUE(ctrl::test::wait_until([&] { return ran.load(); }));
  EXPECT_NE(ran_on, std::this_thread::get_id());
}

// Tasks run in submission order whether the waiter or the queue thread runs them, and a failed
// task neither stops the later ones nor hides its count.
TEST(ThreadQueue, OrderAndFailuresAreTheSameOnEitherThread) {
  Fixture f(true);
  std::vector<int> order;  // written by one runner at a time
  std::uint64_t last = 0;
  bool watching = false;
  for (int i = 0; i < 60; ++i) {
    // Every third task is left for a waiter (or handed over by the next unwatch).
    if (i % 3 == 0 && !watching) f.handoff->watch();
    if (i % 3 != 0 && watching) f.handoff->unwatch();
    watching = i % 3 == 0;
    last = f.queue->submit([&order, i] {
      order.push_back(i);
      if (i % 10 == 7) throw std::runtime_error("task " + std::to_string(i));
    });
    if (i % 4 == 1) f.queue->wait(last);
  }
  f.queue->wait(last);
  ASSERT_EQ(order.size(), 60U);
  for (int i = 0; i < 60; ++i) EXPECT_EQ(order[static_cast<std::size_t>(i)], i);
  std::uint64_t failures = 0;
  const std::exception_ptr e = f.queue->take_error(failures);
  EXPECT_EQ(failures, 6U);
  ASSERT_TRUE(e);
  try {
    std::rethrow_exception(e);
  } catch (const std::runtime_error& r) {
    EXPECT_STREQ(r.what(), "task 7");
  }
}

// A failure is reported once: the next take finds none until another task fails (take_error
// takes its lock only while a failure is recorded).
TEST(ThreadQueue, AFailureIsTakenOnceAndTheNextOneAgain) {
  Fixture f(true);
  f.handoff->watch();
  std::uint64_t failures = 99;
  EXPECT_FALSE(f.queue->take_error(failures));
  EXPECT_EQ(failures, 0U);
  for (int round = 0; round < 3; ++round) {
    f.queue->wait(f.queue->submit([round] { throw std::runtime_error("round " + std::to_string(round)); }));
    f.queue->wait(f.queue->submit([] {}));
    const std::exception_ptr e = f.queue->take_error(failures);
    ASSERT_TRUE(e) << "round " << round;
    EXPECT_EQ(failures, 1U);
    try {
      std::rethrow_exception(e);
    } catch (const std::runtime_error& r) {
      EXPECT_EQ(std::string(r.what()), "round " + std::to_string(round));
    }
    failures = 99;
    EXPECT_FALSE(f.queue->take_error(failures)) << "round " << round;
    EXPECT_EQ(failures, 0U);
  }
}

// Several host threads submit and wait at once, with a watcher present so that waiters compete
// with each other and with the queue thread for the runner's place: every task runs once.
TEST(ThreadQueue, SeveralHostThreadsSubmitAndWaitAtOnce) {
  Fixture f(true);
  f.handoff->watch();
  constexpr int threads = 4, tasks = 400;
  std::vector<int> counts(threads, 0);  // each written by the runners, one at a time
  std::vector<std::thread> hosts;
  for (int t = 0; t < threads; ++t) {
    hosts.emplace_back([&, t] {
      for (int i = 0; i < tasks; ++i) {
        const auto ticket = f.queue->submit([&counts, t] { ++counts[static_cast<std::size_t>(t)]; });
        if (i % 2 == 0 || t == 0) f.queue->wait(ticket);
      }
      f.queue->wait(f.queue->last_ticket());
    });
  }
  for (auto& h : hosts) h.join();
  f.queue->wait(f.queue->last_ticket());
  for (int c : counts) EXPECT_EQ(c, tasks);
}

}  // namespace
