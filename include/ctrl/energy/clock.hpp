// The clock that energy readings are stamped with and that measurements wait on.
//
// Measurements never read std::chrono::steady_clock themselves: they ask a Clock. In real use it
// is the machine's monotonic clock (steady_clock()). A test gives a clock of its own to both the
// measurer and a test meter whose energy is a function of that clock's time: the meter's reading
// and the measurer's time stamp then agree exactly, however the scheduler interleaves them (on a
// loaded machine a thread can lose its core for tens of milliseconds between the two reads).
//
// Why a shared clock rather than a meter that returns its own time stamp with each reading: the
// stamp is not the only time a measurement takes. Its deadlines and sleeps (a round that lasts
// 0.15 s, an idle window of 2 s) must be on the meter's time too, or a test cannot know which
// window it asked for; and a real counter has no time of its own to return (NVML and RAPL give
// joules only).
#pragma once

#include <chrono>

namespace ctrl::energy {

class Clock {
 public:
  using duration = std::chrono::steady_clock::duration;
  using time_point = std::chrono::steady_clock::time_point;
  Clock() = default;
  Clock(const Clock&) = delete;
  Clock& operator=(const Clock&) = delete;
  virtual ~Clock() = default;

  // The current time; non-decreasing. May be called from several threads.
  [[nodiscard]] virtual time_point now() = 0;
  // Returns once now() has reached `t`.
  virtual void sleep_until(time_point t) = 0;

  void sleep_for(std::chrono::duration<double> d) { sleep_until(now() + std::chrono::duration_cast<duration>(d)); }
};

// The machine's monotonic clock (std::chrono::steady_clock), for every measurement that is not
// given another.
[[nodiscard]] Clock& steady_clock();

}  // namespace ctrl::energy
