// Several meters over one window, with optional background polling.
#include <ctrl/energy/measurement.hpp>

#include <string>
#include <utility>

#include <ctrl/detail/start_threads.hpp>
#include <ctrl/errors.hpp>

#include "timed_read.hpp"

namespace ctrl::energy {

// The polling pace is the machine's: it only says how often to read, while every reading is
// stamped with clock_ (the two need not be the same clock).
using PollClock = std::chrono::steady_clock;

Sampler::Sampler(std::vector<std::shared_ptr<Meter>> meters, std::chrono::milliseconds poll_interval, Clock& clock)
    : meters_(std::move(meters)), poll_(poll_interval), clock_(&clock) {
  if (poll_.count() < 0) {
    throw UsageError("energy sampler: poll interval must not be negative, got " + std::to_string(poll_.count()) +
                     " ms");
  }
  for (std::size_t i = 0; i < meters_.size(); ++i) {
    if (!meters_[i]) {
      throw UsageError("energy sampler: meter " + std::to_string(i) + " is null");
    }
  }
  traces_.resize(meters_.size());
}

Sampler::~Sampler() {
  // A sampler destroyed while running (an exception unwound past stop()) must not leave
  // the poller reading meters that may be gone next.
  if (poller_.joinable()) {
    poller_.request_stop();
    wake_.notify_all();
    poller_.join();
  }
}

void Sampler::start() {
  if (running_) throw UsageError("energy sampler: start() called twice without stop()");
  e0_.assign(meters_.size(), std::nullopt);
  t0_each_.assign(meters_.size(), Clock::time_point{});
  {
    std::lock_guard lock(trace_mutex_);
    for (auto& t : traces_) t.clear();
    poll_error_ = nullptr;
  }
  // Start readings back to back so that the windows of all meters nearly coincide.
  for (std::size_t i = 0; i < meters_.size(); ++i) {
    const detail::TimedRead r = detail::timed_read(*meters_[i], *clock_);
    e0_[i] = r.energy_j;
    t0_each_[i] = r.t;
  }
  t0_ = t0_each_.empty() ? clock_->now() : t0_each_.front();
  if (poll_.count() > 0) {
    std::lock_guard lock(trace_mutex_);
    for (std::size_t i = 0; i < meters_.size(); ++i) {
      const double t = std::chrono::duration<double>(t0_each_[i] - t0_).count();
      traces_[i].push_back({t, e0_[i], std::nullopt});
    }
  }
  if (poll_.count() > 0) {
    poller_ = ctrl::detail::start_thread<std::jthread>("the poller of an energy sampler",
                                                       [this](std::stop_token stop) { poll_loop(std::move(stop)); });
  }
  running_ = true;
}

void Sampler::poll_loop(std::stop_token stop) {
  auto next = PollClock::now() + poll_;
  while (!stop.stop_requested()) {
    {
      // The stop_token overload wakes as soon as stop is requested, so stop() never waits
      // out a poll interval.
      std::unique_lock lock(wake_mutex_);
      (void)wake_.wait_until(lock, stop, next, [] { return false; });
    }
    if (stop.stop_requested()) break;
    try {
      record_all();
    } catch (...) {
      // Keep the first failure for stop() to rethrow on the caller's thread.
      std::lock_guard lock(trace_mutex_);
      if (!poll_error_) poll_error_ = std::current_exception();
      return;
    }
    next += poll_;
    const auto now = PollClock::now();
    if (next < now) next = now + poll_;  // a slow meter: skip missed ticks instead of bursting
  }
}

void Sampler::record_all() {
  for (std::size_t i = 0; i < meters_.size(); ++i) {
    Meter& m = *meters_[i];
    const detail::TimedRead r = detail::timed_read(m, *clock_);
    std::optional<double> p;
    if (m.info().has_power) p = m.power_w();
    const double t = std::chrono::duration<double>(r.t - t0_).count();
    std::lock_guard lock(trace_mutex_);
    traces_[i].push_back({t, r.energy_j, p});
  }
}

std::vector<EnergyWindow> Sampler::stop() {
  if (!running_) throw UsageError("energy sampler: stop() called without start()");
  running_ = false;
  if (poller_.joinable()) {
    poller_.request_stop();
    wake_.notify_all();
    poller_.join();
  }
  {
    std::lock_guard lock(trace_mutex_);
    if (poll_error_) std::rethrow_exception(std::exchange(poll_error_, nullptr));
  }
  std::vector<EnergyWindow> windows(meters_.size());
  std::vector<detail::TimedRead> ends(meters_.size());
  for (std::size_t i = 0; i < meters_.size(); ++i) ends[i] = detail::timed_read(*meters_[i], *clock_);
  for (std::size_t i = 0; i < meters_.size(); ++i) {
    EnergyWindow& w = windows[i];
    w.meter = meters_[i]->info().name;
    w.update_interval_s = meters_[i]->info().update_interval_s;
    w.seconds = std::chrono::duration<double>(ends[i].t - t0_each_[i]).count();
    if (e0_[i] && ends[i].energy_j) w.energy_j = *ends[i].energy_j - *e0_[i];
  }
  if (poll_.count() > 0) {
    std::lock_guard lock(trace_mutex_);
    for (std::size_t i = 0; i < meters_.size(); ++i) {
      const double t = std::chrono::duration<double>(ends[i].t - t0_).count();
      traces_[i].push_back({t, ends[i].energy_j, std::nullopt});
    }
  }
  return windows;
}

std::vector<Sample> Sampler::trace(std::size_t i) const {
  std::lock_guard lock(trace_mutex_);
  return traces_.at(i);
}

}  // namespace ctrl::energy
