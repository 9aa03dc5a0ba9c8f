// Measuring energy over a window: one meter (Measurement), several at once (Sampler), and the
// idle ("base") power of a device (measure_base_power).
//
// The model (docs/energy.md): total energy E over a window of t seconds is split as
//   E = P_base * t + E_dynamic,
// where P_base is the device's static/idle power, measured once, and E_dynamic is what the work
// cost. The workload-distribution layer optimises dynamic energy (HEPOPTA) or total (HTPOPTA).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <ctrl/energy/clock.hpp>
#include <ctrl/energy/meter.hpp>

namespace ctrl::energy {

using Seconds = std::chrono::duration<double>;

// The outcome of one window on one meter.
struct EnergyWindow {
  std::string meter;               // MeterInfo::name
  double seconds = 0.0;            // elapsed wall time between the start and stop readings
  std::optional<double> energy_j;  // total energy; std::nullopt when the meter is absent
  double update_interval_s = 0.0;  // the meter's resolution hint, copied for resolved()

  // Total minus base power × time. May be negative when the base power is overestimated or
  // the window is below the meter's resolution; it is reported as measured, not clamped.
  [[nodiscard]] std::optional<double> dynamic_j(double base_power_w) const;

  // Mean power over the window; std::nullopt when absent or the window is empty.
  [[nodiscard]] std::optional<double> mean_power_w() const;

  // Whether the window is long enough for the meter's update interval to cost at most
  // max_rel_error of the reading (see min_window_s).
  [[nodiscard]] bool resolved(double max_rel_error = 0.05) const;
};

// The shortest window whose energy is within max_rel_error, given a counter that changes every
// update_interval_s seconds: each end of the window may be off by one interval, so the error
// is at most 2·interval/window. Zero when the interval is zero (no constraint known).
[[nodiscard]] double min_window_s(double update_interval_s, double max_rel_error = 0.05);

// How many back-to-back repetitions of a run lasting run_s seconds make a resolved window.
// At least 1. Throws UsageError for a non-positive run_s or max_rel_error.
[[nodiscard]] std::size_t repeats_needed(double run_s, double update_interval_s, double max_rel_error = 0.05);

// start()/stop() over one meter. Not thread-safe; one window at a time. The window's time is
// `clock`'s (it must outlive the Measurement).
class Measurement {
 public:
  explicit Measurement(Meter& meter, Clock& clock = steady_clock()) : meter_(&meter), clock_(&clock) {}

  // Reads the meter and the clock. Throws UsageError when already started.
  void start();

  // Reads again and returns the window. Throws UsageError when not started.
  EnergyWindow stop();

  [[nodiscard]] bool running() const { return running_; }

 private:
  Meter* meter_;
  Clock* clock_;
  bool running_ = false;
  Clock::time_point t0_{};
  std::optional<double> e0_;
};

// One reading taken by a Sampler's polling thread.
struct Sample {
  double t_s = 0.0;                // seconds since start()
  std::optional<double> energy_j;  // meter's cumulative reading
  std::optional<double> power_w;   // instantaneous power, where the meter has it
};

// Measures several devices over the same window, e.g. every controller of a distributed run.
//
// With a poll interval > 0 a background thread reads every meter periodically between start()
// and stop(): that records a trace (power over time) and keeps wrap-around counters (RAPL)
// read often enough that no wrap is missed in long windows. Readings are stamped with `clock`
// (it must outlive the Sampler); the polling pace is the machine's time whatever the clock.
class Sampler {
 public:
  explicit Sampler(std::vector<std::shared_ptr<Meter>> meters,
                   std::chrono::milliseconds poll_interval = std::chrono::milliseconds{0},
                   Clock& clock = steady_clock());
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;
  ~Sampler();

  // Reads every meter (back to back, in order) and starts polling. UsageError if running.
  void start();

  // Stops polling, reads every meter again; one window per meter, in construction order.
  // UsageError if not running. A meter failing mid-window throws DeviceError after polling
  // has stopped.
  std::vector<EnergyWindow> stop();

  [[nodiscard]] bool running() const { return running_; }
  [[nodiscard]] std::size_t size() const { return meters_.size(); }
  [[nodiscard]] const Meter& meter(std::size_t i) const { return *meters_.at(i); }

  // Samples of meter i from the last window (start and stop readings included). Empty for a
  // sampler without polling.
  [[nodiscard]] std::vector<Sample> trace(std::size_t i) const;

 private:
  void poll_loop(std::stop_token stop);
  void record_all();

  std::vector<std::shared_ptr<Meter>> meters_;
  std::chrono::milliseconds poll_;
  Clock* clock_;
  bool running_ = false;
  Clock::time_point t0_{};
  std::vector<std::optional<double>> e0_;
  std::vector<Clock::time_point> t0_each_;
  mutable std::mutex trace_mutex_;
  std::vector<std::vector<Sample>> traces_;
  std::exception_ptr poll_error_;  // first error from the polling thread, rethrown by stop()
  std::condition_variable_any wake_;
  std::mutex wake_mutex_;
  std::jthread poller_;
};

// A device's idle power, measured by sampling its meter over a window.
struct BasePower {
  std::string meter;
  std::optional<double> watts;        // mean: energy difference / time over the window
  std::size_t samples = 0;            // meter readings taken, the first included
  double seconds = 0.0;               // time between the first and last reading
  std::optional<double> min_power_w;  // range of instantaneous power samples, where available:
  std::optional<double> max_power_w;  // a wide range means the device was not idle
  std::string absent_reason;          // set when watts is empty
};

// Samples `meter` every `interval` for `window` and returns the mean power. The device should
// be idle meanwhile; ctrl does nothing to enforce it. An absent meter returns at once with
// absent_reason set. UsageError when window or interval is not positive. The window should
// span several update intervals of the meter (it is the caller's choice, reported back).
// `clock` times the window and the waits between samples.
[[nodiscard]] BasePower measure_base_power(Meter& meter, Seconds window,
                                           Seconds interval = std::chrono::milliseconds{100},
                                           Clock& clock = steady_clock());

}  // namespace ctrl::energy
