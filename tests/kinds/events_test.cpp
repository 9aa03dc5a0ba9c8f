// Events between controllers (docs/model.md, "Events between controllers"): work queued on one
// controller after wait_for(event) runs after the work queued on another before record_event,
// with no host thread waiting; for every ordered pair of the kinds under test.
#include "test_devices.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace {

using ctrl::index_t;
struct BumpEach {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<int, 1> a) const { a(t.x) += 1; }
};

class EventTest : public ::testing::TestWithParam<ctrl::test::SpecPair> {
 protected:
  void SetUp() override {
    a_ = ctrl::test::open_controller(std::get<0>(GetParam()));
    if (!a_.controller) GTEST_SKIP() << a_.skip_reason;
    b_ = ctrl::test::open_controller(std::get<1>(GetParam()));
    if (!b_.controller) GTEST_SKIP() << b_.skip_reason;
  }
  ctrl::Controller& a() { return *a_.controller; }
  ctrl::Controller& b() { return *b_.controller; }
  ctrl::test::Opened a_, b_;
};

// a's slow task writes a value; b's task, queued at once after wait_for, must see it.
TEST_P(EventTest, WorkAfterAWaitRunsAfterTheOtherControllersWork) {
  std::vector<int> seen;
  for (int round = 0; round < 5; ++round) {
    std::atomic<int> value{0};
    a().host_task([&value, round] {
      std::this_thread::sleep_for(std::chrono::milliseconds(round == 0 ? 30 : 2));
      value = round + 1;
    });
    const ctrl::Event done = a().record_event();
    EXPECT_EQ(done.controller(), a().name());
    b().wait_for(done);
    b().host_task([&value, &seen] { seen.push_back(value.load()); });
    b().wait();  // a is not waited for by the host: b's queue waited
    EXPECT_TRUE(done.reached());
    a().wait();
  }
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3, 4, 5}));
}

// Launches and tiles on both sides, both directions: a -> b -> a, nobody waiting in between.
TEST_P(EventTest, AChainBothWaysKeepsTheOrder) {
  const index_t n = 32;
  ctrl::Tile<int, 1> x({n}, "x"), y({n}, "y");
  x.fill(0);
  y.fill(0);
  a().attach(x);
  b().attach(y);
  std::vector<int> log;
  std::mutex m;
  const auto note = [&](int v) {
    std::lock_guard lock(m);
    log.push_back(v);
  };
  for (int k = 0; k < 10; ++k) {
    a().launch<BumpEach>(ctrl::Threads(n), x);
    a().host_task([&, k](ctrl::In<int, 1> v) { note(v(0) == k + 1 ? 2 * k : -1); }, x);
    b().wait_for(a().record_event());
    b().launch<BumpEach>(ctrl::Threads(n), y);
    b().host_task([&, k](ctrl::In<int, 1> v) { note(v(0) == k + 1 ? 2 * k + 1 : -1); }, y);
    a().wait_for(b().record_event());
  }
  b().wait();
  a().detach(x);
  b().detach(y);
  std::vector<int> want;
  for (int v = 0; v < 20; ++v) want.push_back(v);
  EXPECT_EQ(log, want);
  EXPECT_EQ(x(n - 1), 10);
  EXPECT_EQ(y(n - 1), 10);
}

// The recording controller gone before the wait: its destructor finished its work, so the
// event is reached; a failed task before it does not keep it from being reached.
TEST_P(EventTest, AnEventOutlivesItsControllerAndAFailureBeforeIt) {
  ctrl::Event done;
  {
    auto gone = ctrl::test::open_controller(std::get<0>(GetParam()));
    gone.controller->host_task([] { throw std::runtime_error("a failure before the event"); });
    done = gone.controller->record_event();
  }
  EXPECT_TRUE(done.reached());
  std::atomic<bool> ran{false};
  b().wait_for(done);
  b().host_task([&ran] { ran = true; });
  b().wait();
  EXPECT_TRUE(ran.load());
}

TEST_P(EventTest, MisuseIsRefusedAtTheCall) {
  EXPECT_TRUE(ctrl::test::throws_naming<ctrl::UsageError>([&] { b().wait_for(ctrl::Event{}); },
                                                          {"wait_for on controller " + b().name(), "empty"}));
  EXPECT_TRUE(ctrl::test::throws_naming<ctrl::UsageError>([&] { (void)b().record([&] { (void)b().record_event(); }); },
                                                          {"record_event", b().name()}));
  const ctrl::Event own = b().record_event();
  b().wait_for(own);  // its own: already in order
  const ctrl::Event theirs = a().record_event();
  EXPECT_TRUE(ctrl::test::throws_naming<ctrl::UsageError>([&] { (void)b().record([&] { b().wait_for(theirs); }); },
                                                          {"wait_for of event #", b().name()}));
  b().wait();
  a().wait();
}

INSTANTIATE_TEST_SUITE_P(Devices, EventTest, ::testing::ValuesIn(ctrl::test::spec_pairs()), ctrl::test::SpecPairName{});

}  // namespace
