// Windows, resolution arithmetic, the multi-meter sampler, base power and the no-sensor meter.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include <ctrl/energy.hpp>

#include "test_support.hpp"
#include "thread_limit.hpp"
#include "ticking_clock.hpp"

namespace ce = ctrl::energy;
using ce::testing::ConstantPowerMeter;
using ce::testing::eventually;
using ctrl::test::TickingClock;
using namespace std::chrono_literals;

TEST(EnergyWindow, DynamicEnergyIsTotalMinusBasePowerTimesTime) {
  ce::EnergyWindow w;
  w.seconds = 2.0;
  w.energy_j = 500.0;
  ASSERT_TRUE(w.dynamic_j(100.0).has_value());
  EXPECT_DOUBLE_EQ(*w.dynamic_j(100.0), 300.0);
  EXPECT_DOUBLE_EQ(*w.mean_power_w(), 250.0);
  // An overestimated base power is reported, not hidden by clamping at zero.
  EXPECT_DOUBLE_EQ(*w.dynamic_j(300.0), -100.0);
}

TEST(EnergyWindow, AbsentEnergyStaysAbsent) {
  ce::EnergyWindow w;
  w.seconds = 2.0;
  EXPECT_FALSE(w.dynamic_j(100.0).has_value());
  EXPECT_FALSE(w.mean_power_w().has_value());
}

TEST(Resolution, MinimumWindowAndRepeatsFollowTheUpdateInterval) {
  // 0.1 s updates, 5 %: each end may be one interval stale, 2 × 0.1 / 0.05 = 4 s.
  EXPECT_DOUBLE_EQ(ce::min_window_s(ce::nvml_update_interval_s, 0.05), 4.0);
  EXPECT_DOUBLE_EQ(ce::min_window_s(0.0, 0.05), 0.0);
  EXPECT_EQ(ce::repeats_needed(0.5, 0.1, 0.05), 8u);
  EXPECT_EQ(ce::repeats_needed(0.3, 0.1, 0.05), 14u);  // ceil(13.33)
  EXPECT_EQ(ce::repeats_needed(10.0, 0.1, 0.05), 1u);
  EXPECT_EQ(ce::repeats_needed(1e-6, 0.0, 0.05), 1u);
  EXPECT_THROW((void)ce::repeats_needed(0.0, 0.1), ctrl::UsageError);
  EXPECT_THROW((void)ce::min_window_s(0.1, 0.0), ctrl::UsageError);

  ce::EnergyWindow w;
  w.update_interval_s = 0.1;
  w.seconds = 3.9;
  EXPECT_FALSE(w.resolved(0.05));
  w.seconds = 4.0;
  EXPECT_TRUE(w.resolved(0.05));
}

TEST(NoMeter, ReportsAbsenceNeverZero) {
  ce::NoMeter m("none:cpu", "/sys/class/powercap absent");
  EXPECT_FALSE(m.available());
  EXPECT_EQ(m.absent_reason(), "no sensor: /sys/class/powercap absent");
  EXPECT_FALSE(m.energy_j().has_value());
  EXPECT_FALSE(m.power_w().has_value());
  EXPECT_EQ(m.info().name, "none:cpu");
  // The prefix is not doubled.
  EXPECT_EQ(ce::no_sensor("no sensor: x"), "no sensor: x");

  ce::Measurement meas(m);
  meas.start();
  const ce::EnergyWindow w = meas.stop();
  EXPECT_FALSE(w.energy_j.has_value());
  EXPECT_GE(w.seconds, 0.0);
}

TEST(Measurement, MeasuresAConstantPowerDevice) {
  TickingClock clock;
  ConstantPowerMeter m(120.0, clock);
  ce::Measurement meas(m, clock);
  meas.start();
  EXPECT_TRUE(meas.running());
  clock.sleep_for(100ms);
  const ce::EnergyWindow w = meas.stop();
  EXPECT_FALSE(meas.running());
  EXPECT_EQ(w.meter, "test:constant");
  EXPECT_GE(w.seconds, 0.1);
  ASSERT_TRUE(w.energy_j.has_value());
  // The meter and the stamps share the clock: exact, up to rounding.
  EXPECT_NEAR(*w.mean_power_w(), 120.0, 1e-9);
  EXPECT_NEAR(*w.dynamic_j(100.0), 20.0 * w.seconds, 1e-9);
}

TEST(Measurement, StartTwiceOrStopWithoutStartIsUsageError) {
  TickingClock clock;
  ConstantPowerMeter m(10.0, clock);
  ce::Measurement meas(m);
  EXPECT_THROW((void)meas.stop(), ctrl::UsageError);
  meas.start();
  try {
    meas.start();
    FAIL() << "second start() accepted";
  } catch (const ctrl::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("test:constant"), std::string::npos) << e.what();
  }
}

TEST(Sampler, MeasuresSeveralMetersOverOneWindowWithTraces) {
  TickingClock clock;
  auto a = std::make_shared<ConstantPowerMeter>(300.0, clock, "test:gpu");
  auto b = std::make_shared<ConstantPowerMeter>(50.0, clock, "test:cpu", false);
  auto none = std::make_shared<ce::NoMeter>("none:x", "nothing here");
  ce::Sampler s({a, b, none}, 10ms, clock);
  EXPECT_EQ(s.size(), 3u);
  s.start();
  // The start read and five polls; then a window of 120 ms on the meters' clock.
  ASSERT_TRUE(eventually([&] { return a->reads.load() >= 6; }));
  clock.sleep_for(120ms);
  const auto windows = s.stop();
  ASSERT_EQ(windows.size(), 3u);
  EXPECT_EQ(windows[0].meter, "test:gpu");
  EXPECT_GE(windows[0].seconds, 0.12);
  EXPECT_NEAR(*windows[0].mean_power_w(), 300.0, 1e-9);
  EXPECT_NEAR(*windows[1].mean_power_w(), 50.0, 1e-9);
  EXPECT_FALSE(windows[2].energy_j.has_value());
  // Windows coincide: the start and stop reads are back to back, in the same order.
  EXPECT_NEAR(windows[0].seconds, windows[1].seconds, 1e-12);

  const auto trace = s.trace(0);
  ASSERT_GE(trace.size(), 7u) << "the start read, at least five polls, the stop read";
  for (std::size_t i = 1; i < trace.size(); ++i) {
    EXPECT_GE(trace[i].t_s, trace[i - 1].t_s);
    EXPECT_GE(*trace[i].energy_j, *trace[i - 1].energy_j);  // monotone
  }
  // Polled samples carry instantaneous power only where the meter has it.
  EXPECT_TRUE(trace[1].power_w.has_value());
  EXPECT_FALSE(s.trace(1)[1].power_w.has_value());
  EXPECT_FALSE(s.trace(2)[1].energy_j.has_value());
}

TEST(Sampler, WithoutPollingHasNoTraceAndCanBeReused) {
  TickingClock clock;
  auto a = std::make_shared<ConstantPowerMeter>(10.0, clock);
  ce::Sampler s({a}, 0ms, clock);
  for (int round = 0; round < 2; ++round) {
    s.start();
    EXPECT_THROW(s.start(), ctrl::UsageError);
    clock.sleep_for(20ms);
    const auto w = s.stop();
    EXPECT_NEAR(*w[0].mean_power_w(), 10.0, 1e-9);
    EXPECT_TRUE(s.trace(0).empty());
  }
  EXPECT_EQ(a->reads.load(), 4);
  EXPECT_THROW((void)s.stop(), ctrl::UsageError);
  EXPECT_THROW(ce::Sampler({nullptr}), ctrl::UsageError);
}

TEST(Sampler, AMeterFailingWhilePolledSurfacesFromStop) {
  TickingClock clock;
  auto a = std::make_shared<ConstantPowerMeter>(10.0, clock, "test:flaky");
  a->fail_after = 2;  // the start read and one poll succeed, then the sensor is "lost"
  ce::Sampler s({a}, 5ms, clock);
  s.start();
  ASSERT_TRUE(eventually([&] { return a->reads.load() >= 3; }));  // the poll that fails
  EXPECT_THROW((void)s.stop(), ctrl::DeviceError);
  EXPECT_FALSE(s.running());
}

TEST(Sampler, DestroyedWhileRunningStopsItsPoller) {
  TickingClock clock;
  auto a = std::make_shared<ConstantPowerMeter>(10.0, clock);
  {
    ce::Sampler s({a}, 1000ms, clock);
    s.start();
  }  // must not wait out the 1 s interval nor leave a thread reading `a`
  const int reads = a->reads.load();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(a->reads.load(), reads);
}

TEST(BasePower, MeanPowerAndSampleCountOverTheWindow) {
  TickingClock clock;
  ConstantPowerMeter m(85.0, clock, "test:idle");
  const ce::BasePower b = ce::measure_base_power(m, 200ms, 20ms, clock);
  EXPECT_EQ(b.meter, "test:idle");
  ASSERT_TRUE(b.watts.has_value()) << b.absent_reason;
  EXPECT_NEAR(*b.watts, 85.0, 1e-9);
  // The first read plus one per 20 ms step.
  EXPECT_EQ(b.samples, 11u);
  EXPECT_GE(b.seconds, 0.2);
  EXPECT_DOUBLE_EQ(*b.min_power_w, 85.0);
  EXPECT_DOUBLE_EQ(*b.max_power_w, 85.0);
  EXPECT_TRUE(b.absent_reason.empty());
}

TEST(BasePower, NoSensorIsReportedNotInvented) {
  ce::NoMeter m("none:cpu", "/sys/class/powercap absent");
  const ce::BasePower b = ce::measure_base_power(m, 10s);  // returns at once
  EXPECT_FALSE(b.watts.has_value());
  EXPECT_EQ(b.samples, 0u);
  EXPECT_EQ(b.absent_reason, "no sensor: /sys/class/powercap absent");

  TickingClock clock;
  ConstantPowerMeter c(1.0, clock);
  EXPECT_THROW((void)ce::measure_base_power(c, 0s), ctrl::UsageError);
  EXPECT_THROW((void)ce::measure_base_power(c, 1s, 0s), ctrl::UsageError);
}

// Where the system starts no more threads (ulimit -u), start() is one DeviceError, and the sampler
// is not left running: the next start() says the same, not "called twice".
TEST(Sampler, APollerThatCannotStartIsOneDeviceError) {
  const auto run = ctrl::test::run_limited([](const ctrl::test::ThreadLimit& limit) {
    TickingClock clock;
    auto a = std::make_shared<ConstantPowerMeter>(10.0, clock);
    ce::Sampler s({a}, 5ms, clock);
    limit.allow(0);
    const std::string first = ctrl::test::error_of([&] { s.start(); });
    const std::string again = ctrl::test::error_of([&] { s.start(); });
    return first == again && !s.running() ? first : first + " | then " + again;
  });
  CTRL_EXPECT_NO_THREAD(run, "the poller of an energy sampler: ");
}
