// The fast path of a waited launch on a controller of all the cores (docs/model.md, "Launch cost
// on CPU cores"): the waiting thread may run the launch itself, taking the share of the worker of
// the core it is on, instead of the controller's queue thread. Whichever thread runs it, and
// wherever the host thread is, the results, the order, the errors and the asynchrony of unwaited
// launches are the same; these tests mix waited and unwaited launches so that both paths run, and
// hold whichever one the machine's load picks each time.
#include "host_sync.hpp"
#include "pinned_thread.hpp"

#include <ctrl/ctrl.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using ctrl::index_t;
using u32 = std::uint32_t;

// a = a * 3 + k + i: the order of two steps changes the result.
struct OrderedStep {
  static constexpr const char* name = "ordered_step";
  void operator()(ctrl::Thread t, ctrl::InOut<u32, 1> a, u32 k) const {
    a(t.x) = a(t.x) * 3U + k + static_cast<u32>(t.x);
  }
};

struct FailsOn {
  static constexpr const char* name = "fails_on";
  void operator()(ctrl::Thread t, ctrl::InOut<u32, 1> a, u32 k) const {
    if (t.x == 1) throw std::runtime_error("step " + std::to_string(k));
    a(t.x) += 1U;
  }
};

struct AddOne {
  static constexpr const char* name = "add_one";
  void operator()(ctrl::Thread t, ctrl::InOut<u32, 1> a) const { a(t.x) += 1U; }
};

// Where the host thread is pinned (worker: its core's worker; -1 where it is not pinned).
struct HostPlace {
  std::thread::id thread;
  int worker = -1;
  std::atomic<int> wrong_share{0};  // blocks the host ran that were not its core's worker's
};

// Adds one to every element of its block; a block the pinned host thread runs must be the share of
// its core's worker, which stands aside (worker_pool.hpp): two threads never run one share.
struct CountOnce {
  static constexpr const char* name = "count_once";
  void cpu(const ctrl::CpuBlock& b, ctrl::InOut<u32, 1> a, HostPlace* host) const {
    for (index_t i : b.x) a(i) += 1U;
    if (host->worker >= 0 && std::this_thread::get_id() == host->thread && b.worker != host->worker) {
      host->wrong_share.fetch_add(1);
    }
  }
};

// The controller's cores in worker order, each with a scope that pins the host thread to it;
// std::nullopt first: the host unpinned.
std::vector<std::optional<int>> host_places() {
  std::vector<std::optional<int>> places{std::nullopt};
  for (int c : ctrl::cores_of(ctrl::cpu())) places.emplace_back(c);
  return places;
}

int worker_of_core(int core) {
  const std::vector<int> cores = ctrl::cores_of(ctrl::cpu());
  return static_cast<int>(std::find(cores.begin(), cores.end(), core) - cores.begin());
}

void step_reference(std::vector<u32>& ref, u32 k) {
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = ref[i] * 3U + k + static_cast<u32>(i);
}

TEST(CpuLaunch, WaitedAndUnwaitedLaunchesGiveTheSequentialResult) {
  ctrl::Controller all(ctrl::cpu());
  const index_t n = 97;
  ctrl::Tile<u32, 1> a({n}, "a");
  std::vector<u32> ref(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) a(i) = ref[static_cast<std::size_t>(i)] = static_cast<u32>(i);
  all.attach(a);
  for (u32 k = 0; k < 300; ++k) {
    all.launch<OrderedStep>(ctrl::Threads(n), a, k);
    step_reference(ref, k);
    if (k % 7 != 3) all.wait();  // mostly one launch per wait (the fast path), sometimes a burst
  }
  all.detach(a);
  for (index_t i = 0; i < n; ++i) ASSERT_EQ(a(i), ref[static_cast<std::size_t>(i)]) << i;
}

// The host thread waits unpinned, then pinned to each of the controller's cores in turn (where the
// system lets it): every element runs once per launch, whichever core's share the waiter takes.
TEST(CpuLaunch, EveryElementRunsOnceWhereverTheHostThreadIs) {
  ctrl::Controller all(ctrl::cpu());
  const auto n = static_cast<index_t>(8 * ctrl::cores_of(ctrl::cpu()).size() + 37);  // every worker has a block
  ctrl::Tile<u32, 1> a({n}, "a");
  a.fill(0);
  all.attach(a);
  u32 launches = 0;
  for (const std::optional<int>& core : host_places()) {
    std::optional<ctrl::test::PinnedThread> pin;
    if (core) pin.emplace(*core);
    if (core && !pin->pinned()) continue;  // a core this thread may not use
    HostPlace host;
    host.thread = std::this_thread::get_id();
    host.worker = core ? worker_of_core(*core) : -1;
    for (int k = 0; k < 200; ++k, ++launches) {
      all.launch<CountOnce>(ctrl::Threads(n), a, &host);
      if (k % 5 != 4) all.wait();  // mostly the fast path, sometimes two launches queued
    }
    all.wait();
    EXPECT_EQ(host.wrong_share.load(), 0) << "host on core " << (core ? std::to_string(*core) : "any");
  }
  all.detach(a);
  for (index_t i = 0; i < n; ++i) ASSERT_EQ(a(i), launches) << i;
}

// A kernel's exception reaches the waiter, names the launch, and later launches still run,
// whichever thread ran the failing launch, wherever the host thread is.
void expect_kernel_errors_reach_the_waiter() {
  ctrl::Controller all(ctrl::cpu());
  ctrl::Tile<u32, 1> a({4}, "a");
  a.fill(0);
  all.attach(a);
  for (u32 k = 0; k < 50; ++k) {
    all.launch<AddOne>(ctrl::Threads(4), a);
    all.wait();
    all.launch<FailsOn>(ctrl::Threads(4), a, k);
    try {
      all.wait();
      ADD_FAILURE() << "the failing launch " << k << " was not reported";
    } catch (const ctrl::KernelError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("kernel 'fails_on'"), std::string::npos) << what;
      EXPECT_NE(what.find("step " + std::to_string(k)), std::string::npos) << what;
      EXPECT_EQ(what.find("later launches failed"), std::string::npos) << what;
    }
  }
  all.detach(a);
  EXPECT_EQ(a(0), 100U);  // 50 AddOne and 50 FailsOn: element 0 is never the one that throws
  EXPECT_EQ(a(1), 50U);
}

TEST(CpuLaunch, AKernelErrorReachesTheWaiter) {
  for (const std::optional<int>& core : host_places()) {
    std::optional<ctrl::test::PinnedThread> pin;
    if (core) pin.emplace(*core);
    if (core && !pin->pinned()) continue;
    SCOPED_TRACE(core ? "host on core " + std::to_string(*core) : "host unpinned");
    expect_kernel_errors_reach_the_waiter();
  }
}

// Host threads launching and waiting on one controller at once: every launch runs once, in each
// thread's order (the tiles are the threads' own; a waiter may run another thread's launches).
// Half of them are pinned to different cores, so that the share a waiter takes moves between
// launches; the others are not pinned.
TEST(CpuLaunch, SeveralHostThreadsLaunchAndWaitOnOneController) {
  ctrl::Controller all(ctrl::cpu());
  constexpr int threads = 4;
  constexpr u32 rounds = 150;
  const index_t n = 33;
  std::vector<ctrl::Tile<u32, 1>> tiles;
  for (int t = 0; t < threads; ++t) tiles.push_back(ctrl::Tile<u32, 1>({n}, "t" + std::to_string(t)));
  for (auto& t : tiles) {
    for (index_t i = 0; i < n; ++i) t(i) = static_cast<u32>(i);
    all.attach(t);
  }
  std::vector<std::thread> hosts;
  for (int t = 0; t < threads; ++t) {
    hosts.emplace_back([&, t] {
      const std::vector<int> cores = ctrl::cores_of(ctrl::cpu());
      std::optional<ctrl::test::PinnedThread> pin;
      if (t % 2 == 0) pin.emplace(cores[static_cast<std::size_t>(t / 2) % cores.size()]);
      for (u32 k = 0; k < rounds; ++k) {
        all.launch<OrderedStep>(ctrl::Threads(n), tiles[static_cast<std::size_t>(t)], k);
        if ((k + static_cast<u32>(t)) % 3 != 0) all.wait();
      }
    });
  }
  for (auto& h : hosts) h.join();
  std::vector<u32> ref(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) ref[static_cast<std::size_t>(i)] = static_cast<u32>(i);
  for (u32 k = 0; k < rounds; ++k) step_reference(ref, k);
  for (auto& t : tiles) {
    all.detach(t);
    for (index_t i = 0; i < n; ++i) ASSERT_EQ(t(i), ref[static_cast<std::size_t>(i)]) << t.name() << " " << i;
  }
}

// After a run of waited launches (the pool's helpers spin, watching the queue) an unwaited launch
// still runs on its own: the kernel reaches a gate that the host opens only afterwards.
TEST(CpuLaunch, AnUnwaitedLaunchAfterWaitedOnesStillRuns) {
  ctrl::Controller all(ctrl::cpu());
  ctrl::Tile<u32, 1> a({8}, "a");
  a.fill(0);
  all.attach(a);
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < 100; ++i) {
      all.launch<AddOne>(ctrl::Threads(8), a);
      all.wait();
    }
    ctrl::test::Gate gate;
    all.launch<ctrl::test::WaitAtGate>(ctrl::Threads(1), &gate);
    EXPECT_TRUE(ctrl::test::wait_until([&] { return gate.reached.load() == 1; })) << "round " << round;
    gate.open.store(true);
    all.wait();
  }
  all.detach(a);
  for (u32 v : a.elements()) EXPECT_EQ(v, 500U);
}

}  // namespace
