// A clock for tests of anything that measures energy (energy/clock.hpp): time passes only when
// it is looked at. Every now() moves it on by one tick, and a sleep jumps to its end at once.
// Given to a test meter and to the code that reads the meter, it makes every reading, stamp,
// window and deadline a function of the calls made, not of how long the machine took to make
// them: a test's expected energies then hold exactly, on a loaded machine as on an idle one.
#pragma once
#include <ctrl/energy/clock.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>

namespace ctrl::test {

class TickingClock final : public energy::Clock {
 public:
  explicit TickingClock(std::chrono::nanoseconds tick = std::chrono::microseconds(100)) : tick_(tick.count()) {}

  time_point now() override { return at(ns_.fetch_add(tick_) + tick_); }
  void sleep_until(time_point t) override {
    const std::int64_t target = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
    std::int64_t seen = ns_.load();
    while (seen < target && !ns_.compare_exchange_weak(seen, target)) {
    }
  }

 private:
  static time_point at(std::int64_t ns) {
    return time_point(std::chrono::duration_cast<duration>(std::chrono::nanoseconds(ns)));
  }
  std::int64_t tick_;
  std::atomic<std::int64_t> ns_{0};
};

}  // namespace ctrl::test
