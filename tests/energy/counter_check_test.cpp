// The counter self-check: a meter's energy counter against its integrated power readings, with
// test meters on a ticking clock (exact), the fake NVML library (the dlopen path), and the real
// NVML where a GPU exists.
#include <gtest/gtest.h>
#include <dlfcn.h>

#include <chrono>
#include <iostream>
#include <string>

#include <ctrl/energy.hpp>

#include "test_support.hpp"
#include "ticking_clock.hpp"

namespace ce = ctrl::energy;
using ce::testing::ConstantPowerMeter;
using ctrl::test::TickingClock;
using namespace std::chrono_literals;

namespace {

// Power rising linearly, P(t) = p0 + slope t; the counter is its exact integral times `gain` (1:
// an honest counter). The trapezoid rule integrates a linear power exactly.
class RampMeter final : public ce::Meter {
 public:
  RampMeter(ce::Clock& clock, double p0, double slope, double gain = 1.0, double update_interval_s = 0.0)
      : clock_(clock), t0_(clock.now()), p0_(p0), slope_(slope), gain_(gain) {
    info_.name = "test:ramp";
    info_.measures = "a test device whose power rises linearly";
    info_.update_interval_s = update_interval_s;
    info_.has_power = true;
  }
  const ce::MeterInfo& info() const override { return info_; }
  bool available() const override { return true; }
  std::optional<double> energy_j() override {
    const double t = seconds();
    return gain_ * (p0_ * t + 0.5 * slope_ * t * t);
  }
  std::optional<double> power_w() override { return p0_ + slope_ * seconds(); }

 private:
  double seconds() { return std::chrono::duration<double>(clock_.now() - t0_).count(); }
  ce::Clock& clock_;
  ce::Clock::time_point t0_;
  double p0_, slope_, gain_;
  ce::MeterInfo info_;
};

}  // namespace

TEST(CounterCheck, AnHonestCounterAgreesWithItsIntegratedPower) {
  TickingClock clock;
  ConstantPowerMeter flat(80.0, clock);
  const ce::CounterCheck c = ce::check_counter(flat, 1s, 10ms, clock);
  ASSERT_TRUE(c.compared()) << c.absent_reason;
  EXPECT_GE(c.seconds, 1.0);
  EXPECT_NEAR(c.counter_j, 80.0 * c.seconds, 1e-9);
  ASSERT_TRUE(c.ratio().has_value());
  EXPECT_NEAR(*c.ratio(), 1.0, 1e-12);
  EXPECT_FALSE(c.disagree());
  EXPECT_GE(c.samples, 100U);  // one reading per 10 ms over 1 s
  EXPECT_LE(c.max_gap_s, 0.0101);
  EXPECT_DOUBLE_EQ(*c.min_power_w, 80.0);

  RampMeter ramp(clock, 100.0, 50.0);
  const ce::CounterCheck r = ce::check_counter(ramp, 2s, 10ms, clock);
  ASSERT_TRUE(r.ratio().has_value());
  EXPECT_NEAR(*r.ratio(), 1.0, 1e-9);
  EXPECT_NEAR(*r.min_power_w, 100.0, 0.1);  // the first reading comes a few clock ticks after the start
  EXPECT_NEAR(*r.max_power_w, 200.0, 0.1);
}

TEST(CounterCheck, ACounterOffItsPowerDisagreesBeyondItsResolution) {
  TickingClock clock;
  RampMeter high(clock, 100.0, 50.0, 1.25);
  const ce::CounterCheck c = ce::check_counter(high, 2s, 10ms, clock);
  ASSERT_TRUE(c.ratio().has_value());
  EXPECT_NEAR(*c.ratio(), 1.25, 1e-9);
  EXPECT_TRUE(c.disagree());

  // The same 3 % off, from a counter updated every 0.1 s over 2 s (±10 %): within resolution.
  RampMeter coarse(clock, 100.0, 0.0, 1.03, 0.1);
  const ce::CounterCheck k = ce::check_counter(coarse, 2s, 10ms, clock);
  EXPECT_NEAR(k.resolution, 0.1, 1e-3);
  EXPECT_FALSE(k.disagree());
}

TEST(CounterCheck, MetersWithoutPowerOrWithoutSensorAreNotCompared) {
  TickingClock clock;
  ConstantPowerMeter counter_only(50.0, clock, "test:counter", /*has_power=*/false);
  const ce::CounterCheck c = ce::check_counter(counter_only, 1s, 10ms, clock);
  EXPECT_FALSE(c.compared());
  EXPECT_NE(c.absent_reason.find("no power readings"), std::string::npos) << c.absent_reason;
  EXPECT_FALSE(c.ratio().has_value());
  EXPECT_FALSE(c.disagree());

  ce::NoMeter none("none:x", "nothing here");
  EXPECT_EQ(ce::check_counter(none, 1s, 10ms, clock).absent_reason, "no sensor: nothing here");
  EXPECT_THROW((void)ce::check_counter(none, 0s, 10ms, clock), ctrl::UsageError);
  EXPECT_THROW((void)ce::check_counter(none, 1s, 0ms, clock), ctrl::UsageError);
}

TEST(CounterCheck, ASensorLostDuringTheCheckThrows) {
  TickingClock clock;
  ConstantPowerMeter flaky(50.0, clock);
  flaky.fail_after = 1;  // the first energy read answers, the last throws
  EXPECT_THROW((void)ce::check_counter(flaky, 100ms, 10ms, clock), ctrl::DeviceError);
}

// The NVML meter through the fake library: its counter stands still while its power reads 75 W,
// which the check reports as a disagreement (a counter not counting).
TEST(CounterCheck, AFrozenNvmlCounterIsReportedThroughTheDlopenPath) {
  void* fake = ::dlopen(CTRL_FAKE_NVML, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(fake, nullptr) << ::dlerror();
  reinterpret_cast<void (*)()>(::dlsym(fake, "fake_nvml_reset"))();
  {
    ce::NvmlMeter m(0, CTRL_FAKE_NVML);
    TickingClock clock;
    const ce::CounterCheck c = ce::check_counter(m, 1s, 10ms, clock);
    ASSERT_TRUE(c.compared()) << c.absent_reason;
    EXPECT_DOUBLE_EQ(c.counter_j, 0.0);
    EXPECT_NEAR(c.integrated_j, 75.0 * c.seconds, 1e-9);
    EXPECT_NEAR(*c.ratio(), 0.0, 1e-12);
    EXPECT_TRUE(c.disagree());
  }
  ::dlclose(fake);
}

// On a GPU machine: both energies of every GPU with a counter, over 2 s of whatever it is doing.
// How far they differ is the finding (printed), not a failure: the check must compare and see
// energy on both sides.
TEST(CounterCheck, ThisMachinesGpusAreCompared) {
  const ce::NvmlProbe probe = ce::probe_nvml();
  if (!probe.present()) GTEST_SKIP() << probe.absent_reason;
  for (const ce::NvmlGpu& g : probe.gpus) {
    if (!g.has_energy) continue;
    ce::NvmlMeter m(g.index);
    const ce::CounterCheck c = ce::check_counter(m, 2s, 10ms);
    ASSERT_TRUE(c.compared()) << c.absent_reason;
    EXPECT_GT(c.counter_j, 0.0) << g.name;
    EXPECT_GT(c.integrated_j, 0.0) << g.name;
    std::cout << "  gpu " << g.index << " (" << g.name << "): counter " << c.counter_j << " J, integrated power "
              << c.integrated_j << " J, ratio " << c.ratio().value_or(0.0) << ", " << c.samples
              << " power readings over " << c.seconds << " s\n";
  }
}
