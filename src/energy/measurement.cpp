// Windows over one meter, resolution arithmetic, and base (idle) power.
#include <ctrl/energy/measurement.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include <ctrl/errors.hpp>

#include "timed_read.hpp"

namespace ctrl::energy {

std::optional<double> EnergyWindow::dynamic_j(double base_power_w) const {
  if (!energy_j) return std::nullopt;
  return *energy_j - base_power_w * seconds;
}

std::optional<double> EnergyWindow::mean_power_w() const {
  if (!energy_j || seconds <= 0.0) return std::nullopt;
  return *energy_j / seconds;
}

bool EnergyWindow::resolved(double max_rel_error) const {
  return seconds >= min_window_s(update_interval_s, max_rel_error);
}

double min_window_s(double update_interval_s, double max_rel_error) {
  if (!(max_rel_error > 0.0)) {
    throw UsageError("min_window_s: max_rel_error must be positive, got " + std::to_string(max_rel_error));
  }
  if (update_interval_s <= 0.0) return 0.0;
  // One stale interval at each end of the window: error ≤ 2·interval / window.
  return 2.0 * update_interval_s / max_rel_error;
}

std::size_t repeats_needed(double run_s, double update_interval_s, double max_rel_error) {
  if (!(run_s > 0.0)) {
    throw UsageError("repeats_needed: run time must be positive, got " + std::to_string(run_s) + " s");
  }
  const double window = min_window_s(update_interval_s, max_rel_error);
  const double n = std::ceil(window / run_s);
  return n < 1.0 ? 1 : static_cast<std::size_t>(n);
}

void Measurement::start() {
  if (running_) {
    throw UsageError("energy measurement on meter '" + meter_->info().name + "': start() called twice without stop()");
  }
  const detail::TimedRead r = detail::timed_read(*meter_, *clock_);
  e0_ = r.energy_j;
  t0_ = r.t;
  running_ = true;
}

EnergyWindow Measurement::stop() {
  if (!running_) {
    throw UsageError("energy measurement on meter '" + meter_->info().name + "': stop() called without start()");
  }
  running_ = false;
  const detail::TimedRead r = detail::timed_read(*meter_, *clock_);
  EnergyWindow w;
  w.meter = meter_->info().name;
  w.seconds = std::chrono::duration<double>(r.t - t0_).count();
  w.update_interval_s = meter_->info().update_interval_s;
  if (e0_ && r.energy_j) w.energy_j = *r.energy_j - *e0_;
  return w;
}

BasePower measure_base_power(Meter& meter, Seconds window, Seconds interval, Clock& clock) {
  if (!(window.count() > 0.0)) {
    throw UsageError("measure_base_power on meter '" + meter.info().name + "': window must be positive, got " +
                     std::to_string(window.count()) + " s");
  }
  if (!(interval.count() > 0.0)) {
    throw UsageError("measure_base_power on meter '" + meter.info().name +
                     "': sampling interval must be positive, got " + std::to_string(interval.count()) + " s");
  }
  BasePower result;
  result.meter = meter.info().name;
  if (!meter.available()) {
    result.absent_reason = no_sensor(meter.absent_reason());
    return result;
  }

  auto note_power = [&] {
    if (!meter.info().has_power) return;
    if (const auto p = meter.power_w()) {
      result.min_power_w = std::min(result.min_power_w.value_or(*p), *p);
      result.max_power_w = std::max(result.max_power_w.value_or(*p), *p);
    }
  };

  // The mean comes from the energy counter, which integrates between reads; instantaneous
  // power samples only bound the spread. Intermediate reads keep wrapping counters honest.
  const detail::TimedRead first = detail::timed_read(meter, clock);
  const std::optional<double> e_first = first.energy_j;
  const auto t_first = first.t;
  result.samples = 1;
  note_power();
  const auto deadline = t_first + std::chrono::duration_cast<Clock::duration>(window);
  const auto step = std::chrono::duration_cast<Clock::duration>(interval);
  std::optional<double> e_last = e_first;
  auto t_last = t_first;
  auto next = t_first;
  while (t_last < deadline) {
    next = std::min(next + step, deadline);
    clock.sleep_until(next);
    const detail::TimedRead r = detail::timed_read(meter, clock);
    e_last = r.energy_j;
    t_last = r.t;
    ++result.samples;
    note_power();
  }
  result.seconds = std::chrono::duration<double>(t_last - t_first).count();
  if (!e_first || !e_last) {
    // A meter that claimed to be available but stopped answering: report, don't invent.
    result.absent_reason = no_sensor("meter '" + result.meter + "' returned no reading");
    return result;
  }
  if (result.seconds > 0.0) result.watts = (*e_last - *e_first) / result.seconds;
  return result;
}

}  // namespace ctrl::energy
