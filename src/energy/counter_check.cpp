// A meter's energy counter against its integrated power samples (counter_check.hpp).
#include <ctrl/energy/counter_check.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <ctrl/errors.hpp>

#include "timed_read.hpp"

namespace ctrl::energy {

namespace {

struct PowerSample {
  Clock::time_point t;
  double watts = 0.0;
};

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Power readings from `start` until `deadline`, one per `step` or as fast as the sensor answers.
// Empty when the sensor has no power reading at all; DeviceError when it stops having one.
std::vector<PowerSample> sample_power(Meter& meter, Clock& clock, Clock::time_point start, Clock::time_point deadline,
                                      Clock::duration step) {
  std::vector<PowerSample> samples;
  for (Clock::time_point next = start;;) {
    const auto before = clock.now();
    const std::optional<double> w = meter.power_w();
    const auto after = clock.now();
    if (!w) {
      if (samples.empty()) return samples;
      throw DeviceError("meter '" + meter.info().name + "': its power reading stopped answering during the check");
    }
    samples.push_back({before + (after - before) / 2, *w});
    if (after >= deadline) return samples;
    next = std::max(next + step, after);  // a slow sensor: the next reading at once, no burst to catch up
    clock.sleep_until(std::min(next, deadline));
  }
}

// The integral of the samples over [t0, t1]: trapezoids between samples, the first and last held
// flat to the ends (the counter's readings, which bracket them).
double integrate(const std::vector<PowerSample>& s, Clock::time_point t0, Clock::time_point t1, double& max_gap) {
  double joules = s.front().watts * seconds_between(t0, s.front().t);
  max_gap = seconds_between(t0, s.front().t);
  for (std::size_t i = 1; i < s.size(); ++i) {
    const double dt = seconds_between(s[i - 1].t, s[i].t);
    joules += 0.5 * (s[i - 1].watts + s[i].watts) * dt;
    max_gap = std::max(max_gap, dt);
  }
  joules += s.back().watts * seconds_between(s.back().t, t1);
  max_gap = std::max(max_gap, seconds_between(s.back().t, t1));
  return joules;
}

}  // namespace

std::optional<double> CounterCheck::ratio() const {
  if (!compared() || integrated_j == 0.0) return std::nullopt;
  return counter_j / integrated_j;
}

bool CounterCheck::disagree() const {
  const auto r = ratio();
  // A counter of unknown update interval (resolution 0) is still allowed the rounding of a sum.
  return r && std::fabs(*r - 1.0) > std::max(resolution, 1e-9);
}

CounterCheck check_counter(Meter& meter, Seconds window, Seconds interval, Clock& clock) {
  const std::string name = meter.info().name;
  if (!(window.count() > 0.0))
    throw UsageError("counter check on meter '" + name + "': window must be positive, got " +
                     std::to_string(window.count()) + " s");
  if (!(interval.count() > 0.0))
    throw UsageError("counter check on meter '" + name + "': sampling interval must be positive, got " +
                     std::to_string(interval.count()) + " s");
  CounterCheck c;
  c.meter = name;
  if (!meter.available()) {
    c.absent_reason = no_sensor(meter.absent_reason());
    return c;
  }
  if (!meter.info().has_power) {
    c.absent_reason = "meter '" + name + "' has no power readings to compare its counter with";
    return c;
  }
  const detail::TimedRead first = detail::timed_read(meter, clock);
  const auto deadline = first.t + std::chrono::duration_cast<Clock::duration>(window);
  const std::vector<PowerSample> samples =
      sample_power(meter, clock, first.t, deadline, std::chrono::duration_cast<Clock::duration>(interval));
  const detail::TimedRead last = detail::timed_read(meter, clock);
  if (samples.empty()) {
    c.absent_reason = "meter '" + name + "' gave no power reading (not supported by this sensor)";
    return c;
  }
  if (!first.energy_j || !last.energy_j)
    throw DeviceError("meter '" + name + "' returned no energy reading during the check");
  c.seconds = seconds_between(first.t, last.t);
  c.counter_j = *last.energy_j - *first.energy_j;
  c.integrated_j = integrate(samples, first.t, last.t, c.max_gap_s);
  c.samples = samples.size();
  for (const PowerSample& s : samples) {
    c.min_power_w = std::min(c.min_power_w.value_or(s.watts), s.watts);
    c.max_power_w = std::max(c.max_power_w.value_or(s.watts), s.watts);
  }
  // Each end of the counter's window may be one update stale (measurement.hpp, min_window_s).
  c.resolution = c.seconds > 0 ? 2.0 * meter.info().update_interval_s / c.seconds : 0.0;
  return c;
}

}  // namespace ctrl::energy
