// The queue: launches run one after the other in submission order (FIFO), asynchronously, and
// detach/wait return only after the launches they depend on.
#include "host_sync.hpp"
#include "test_devices.hpp"

#include <cstdint>
#include <vector>

namespace {

using ctrl::index_t;
using u32 = std::uint32_t;

// a = a * 3 + k: the order of two such steps changes the result.
struct Step {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<u32, 1> a, u32 k) const {
    a(t.x) = a(t.x) * 3U + k + static_cast<u32>(t.x);
  }
};
struct PlusOneInto {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<u32, 1> to, ctrl::In<u32, 1> from) const {
    to(t.x) = from(t.x) + 1U;
  }
};
struct TimesTwoInto {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<u32, 1> to, ctrl::In<u32, 1> from) const {
    to(t.x) = from(t.x) * 2U;
  }
};
struct Increment {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<u32, 1> a) const { a(t.x) += 1U; }
};

class QueueOrderTest : public ctrl::test::DeviceTest {};

TEST_P(QueueOrderTest, DependentKernelsGiveTheSequentialResult) {
  const index_t n = 257;
  ctrl::Tile<u32, 1> a({n}, "a");
  std::vector<u32> ref(n);
  for (index_t i = 0; i < n; ++i) a(i) = ref[static_cast<std::size_t>(i)] = static_cast<u32>(i * 7);
  ctl().attach(a);
  for (u32 k = 0; k < 60; ++k) {
    ctl().launch<Step>(ctrl::Threads(n), a, k);
    for (index_t i = 0; i < n; ++i) {
      u32& r = ref[static_cast<std::size_t>(i)];
      r = r * 3U + k + static_cast<u32>(i);
    }
  }
  ctl().detach(a);
  for (index_t i = 0; i < n; ++i) ASSERT_EQ(a(i), ref[static_cast<std::size_t>(i)]) << i;
}

TEST_P(QueueOrderTest, KernelsPassingDataBetweenTwoTilesRunInOrder) {
  const index_t n = 64;
  ctrl::Tile<u32, 1> a({n}, "a"), b({n}, "b");
  for (index_t i = 0; i < n; ++i) a(i) = static_cast<u32>(i);
  ctl().attach(a, b);
  for (int r = 0; r < 20; ++r) {
    ctl().launch<PlusOneInto>(ctrl::Threads(n), b, a);
    ctl().launch<TimesTwoInto>(ctrl::Threads(n), a, b);
  }
  ctl().detach(a, b);
  for (index_t i = 0; i < n; ++i) {
    u32 x = static_cast<u32>(i), y = 0;
    for (int r = 0; r < 20; ++r) {
      y = x + 1U;
      x = y * 2U;
    }
    ASSERT_EQ(a(i), x) << i;
    ASSERT_EQ(b(i), y) << i;
  }
}

TEST_P(QueueOrderTest, ManySmallLaunchesAllRun) {
  ctrl::Tile<u32, 1> a({3}, "a");
  a.fill(0);
  ctl().attach(a);
  for (int i = 0; i < 3000; ++i) {
    ctl().launch<Increment>(ctrl::Threads(3), a);
    if (i % 500 == 499) ctl().wait();
  }
  ctl().detach(a);
  for (u32 v : a.elements()) EXPECT_EQ(v, 3000U);
}

TEST_P(QueueOrderTest, DetachWaitsForTheQueuedLaunches) {
  ctrl::Tile<u32, 1> a({1000}, "a");
  a.fill(0);
  ctl().attach(a);
  for (int i = 0; i < 200; ++i) ctl().launch<Increment>(ctrl::Threads(1000), a);
  ctl().detach(a);  // no wait() before it
  for (u32 v : a.elements()) ASSERT_EQ(v, 200U);
}

// Proof without timing that launch() returns before the kernel runs: the first kernel waits at a
// gate that the host opens only after launch() has returned (a synchronous launch would never
// return). Kernels queued behind it run only after it.
TEST_P(QueueOrderTest, LaunchReturnsBeforeTheKernelRuns) {
  if (!host_code()) GTEST_SKIP() << "the gate kernel runs as host code (CPU kinds only)";
  ctrl::test::Gate gate;
  ctrl::Tile<u32, 1> a({16}, "a");
  a.fill(0);
  ctl().attach(a);
  ctl().launch<ctrl::test::WaitAtGate>(ctrl::Threads(1), &gate);
  ctl().launch<Increment>(ctrl::Threads(16), a);
  const bool kernel_started = ctrl::test::wait_until([&] { return gate.reached.load() == 1; });
  EXPECT_EQ(a(0), 0U);  // the increment queued behind the closed gate: not run yet (shared memory)
  gate.open.store(true);
  ctl().detach(a);
  EXPECT_TRUE(kernel_started);
  for (u32 v : a.elements()) EXPECT_EQ(v, 1U);
}

TEST_P(QueueOrderTest, WaitReturnsAfterEveryQueuedLaunch) {
  ctrl::Tile<u32, 1> a({100}, "a"), b({100}, "b");
  a.fill(0);
  b.fill(0);
  ctl().attach(a, b);
  for (int i = 0; i < 50; ++i) ctl().launch<Increment>(ctrl::Threads(100), i % 2 ? a : b);
  ctl().wait();
  ctl().launch<PlusOneInto>(ctrl::Threads(100), b, a);  // after the wait, still in order
  ctl().detach(a, b);
  for (u32 v : a.elements()) ASSERT_EQ(v, 25U);
  for (u32 v : b.elements()) ASSERT_EQ(v, 26U);
}

CTRL_INSTANTIATE_DEVICE_TESTS(QueueOrderTest);

}  // namespace
