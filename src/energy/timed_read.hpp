// A meter reading stamped with the time it stands for (private to src/energy).
#pragma once

#include <chrono>
#include <optional>

#include <ctrl/energy/clock.hpp>
#include <ctrl/energy/meter.hpp>

namespace ctrl::energy::detail {

struct TimedRead {
  std::optional<double> energy_j;
  std::chrono::steady_clock::time_point t;
};

// A read can take tens of microseconds (NVML goes through the driver); stamping it with the
// midpoint of the clock before and after keeps start and stop symmetric, so short windows are
// not biased one way.
inline TimedRead timed_read(Meter& meter, Clock& clock) {
  const auto before = clock.now();
  std::optional<double> e = meter.energy_j();
  const auto after = clock.now();
  return {e, before + (after - before) / 2};
}

}  // namespace ctrl::energy::detail
