// Host tasks (Controller::host_task; docs/model.md, "Host tasks"): host code in the queue's order,
// with a kernel's roles over the tiles' host memory, exact transfers, failures reported as a
// kernel's, and misuse refused at the call.
#include "test_devices.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using ctrl::index_t;
using u32 = std::uint32_t;

struct FillHost {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<u32, 1> a, u32 k) const {
    a(t.x) = k + static_cast<u32>(t.x) * 3U;
  }
};
struct AddInto {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<u32, 1> a, ctrl::In<u32, 1> b) const {
    a(t.x) = a(t.x) * 2U + b(t.x);
  }
};

void negate_into(ctrl::Out<u32, 1> to, ctrl::In<u32, 1> from, u32 k) {
  for (index_t i = 0; i < to.extent(0); ++i) to(i) = ~from(i) + k;
}

class HostTaskTest : public ctrl::test::DeviceTest {};

// launch, task, launch: the task sees the first launch's result, the second sees the task's.
TEST_P(HostTaskTest, RunsBetweenLaunchesInQueueOrder) {
  const index_t n = 300;
  ctrl::Tile<u32, 1> a({n}, "a"), b({n}, "b");
  a.fill(0);
  ctl().attach(a, b);
  ctl().launch<FillHost>(ctrl::Threads(n), a, 7U);
  ctl().host_task(
      [](ctrl::In<u32, 1> x, ctrl::Out<u32, 1> y) {
        for (index_t i = 0; i < x.extent(0); ++i) y(i) = x(i) * 5U + 1U;
      },
      a, b);
  ctl().launch<AddInto>(ctrl::Threads(n), a, b);
  ctl().detach(a, b);
  for (index_t i = 0; i < n; ++i) {
    const u32 x = 7U + static_cast<u32>(i) * 3U, y = x * 5U + 1U;
    ASSERT_EQ(b(i), y) << i;
    ASSERT_EQ(a(i), x * 2U + y) << i;
  }
  // Separate memory: a comes home once for the task (In: its device copy stays valid, so the
  // next launch copies nothing of it), b goes in once for the launch, a comes home at detach.
  const std::uint64_t bytes = n * sizeof(u32);
  EXPECT_TRUE(ctrl::test::moved(ctl(), {.bytes_in = bytes, .copies_in = 1, .bytes_out = 2 * bytes, .copies_out = 2}));
}

TEST_P(HostTaskTest, FunctionsValuesAndManyTasksInOrder) {
  const index_t n = 64;
  ctrl::Tile<u32, 1> a({n}, "a"), b({n}, "b");
  std::vector<u32> ra(n), rb(n);
  for (index_t i = 0; i < n; ++i) a(i) = ra[static_cast<std::size_t>(i)] = static_cast<u32>(i * 11);
  ctl().attach(a, b);
  for (u32 k = 0; k < 40; ++k) {
    ctl().host_task(negate_into, b, a, k);
    ctl().launch<AddInto>(ctrl::Threads(n), a, b);
    for (std::size_t i = 0; i < ra.size(); ++i) {
      rb[i] = ~ra[i] + k;
      ra[i] = ra[i] * 2U + rb[i];
    }
  }
  ctl().detach(a, b);
  for (index_t i = 0; i < n; ++i) {
    ASSERT_EQ(a(i), ra[static_cast<std::size_t>(i)]) << i;
    ASSERT_EQ(b(i), rb[static_cast<std::size_t>(i)]) << i;
  }
}

// host_task returns before the task runs: the task waits for a flag set after the call returns.
TEST_P(HostTaskTest, ReturnsBeforeTheTaskRuns) {
  std::atomic<bool> go{false}, saw{false};
  ctrl::Tile<u32, 1> a({4}, "a");
  a.fill(1);
  ctl().attach(a);
  ctl().host_task(
      [&](ctrl::InOut<u32, 1> x) {
        // Bounded: a host_task that ran the task itself fails here instead of hanging.
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (!go.load() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
        saw = go.load();
        x(0) = 9;
      },
      a);
  go = true;
  ctl().detach(a);
  EXPECT_TRUE(saw.load());
  EXPECT_EQ(a(0), 9U);
}

TEST_P(HostTaskTest, AnExceptionFailsTheTaskAtTheNextWaitAndLaterWorkRuns) {
  const index_t n = 16;
  ctrl::Tile<u32, 1> a({n}, "a");
  a.fill(0);
  ctl().attach(a);
  ctl().host_task([](ctrl::InOut<u32, 1>) { throw std::runtime_error("bad residual"); }, a);
  ctl().launch<FillHost>(ctrl::Threads(n), a, 3U);
  EXPECT_TRUE(ctrl::test::throws_naming<ctrl::KernelError>(
      [&] { ctl().wait(); }, {"host task #1", "controller " + ctl().name(), "failed", "bad residual"}));
  ctl().host_task([](ctrl::InOut<u32, 1> x) { x(0) += 1; }, a);
  ctl().detach(a);
  EXPECT_EQ(a(0), 4U);  // the launch after the failed task ran, and the controller stays usable
  EXPECT_EQ(a(1), 6U);
}

TEST_P(HostTaskTest, CallingAControllerFromInsideATaskFailsIt) {
  ctrl::Tile<u32, 1> a({8}, "a");
  a.fill(2);
  ctl().attach(a);
  ctrl::Controller& c = ctl();
  ctl().host_task([&c](ctrl::InOut<u32, 1>) { c.wait(); }, a);
  EXPECT_TRUE(ctrl::test::throws_naming<ctrl::KernelError>(
      [&] { ctl().wait(); }, {"host task #1", "wait on controller " + ctl().name(), "from inside host task #1",
                              "must not call a controller"}));
  ctl().detach(a);
  EXPECT_EQ(a(0), 2U);
}

TEST_P(HostTaskTest, MisuseIsRefusedAtTheCall) {
  ctrl::Tile<u32, 1> a({8}, "a"), loose({8}, "loose"), inner({8}, ctrl::shape_only, "inner");
  ctl().attach(a);
  ctl().create_internal(inner);
  const auto task = [](ctrl::In<u32, 1>) {};
  EXPECT_TRUE(ctrl::test::throws_naming<ctrl::UsageError>([&] { ctl().host_task(task, loose); },
                                                          {"host task #1", "'loose'", "not attached"}));
  EXPECT_TRUE(ctrl::test::throws_naming<ctrl::UsageError>([&] { ctl().host_task(task, inner); },
                                                          {"host task #1", "'inner'", "internal", "no host memory"}));
  EXPECT_TRUE(ctrl::test::throws_naming<ctrl::UsageError>(
      [&] { (void)ctl().record([&] { ctl().host_task(task, a); }); }, {"host task", ctl().name()}));
  auto other = another();
  ctrl::Tile<u32, 1> theirs({8}, "theirs");
  other->attach(theirs);
  EXPECT_TRUE(ctrl::test::throws_naming<ctrl::UsageError>([&] { ctl().host_task(task, theirs); },
                                                          {"'theirs'", "attached to controller"}));
  ctl().host_task(task, a);  // the refused ones took no number and changed nothing
  ctl().wait();
  other->detach(theirs);
  ctl().destroy_internal(inner);
  ctl().detach(a);
}

CTRL_INSTANTIATE_DEVICE_TESTS(HostTaskTest);

}  // namespace
