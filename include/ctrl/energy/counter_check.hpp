// A meter's self-check: its energy counter against its own power samples, integrated over the same
// window. On NVIDIA boards the two come from different parts of the driver
// (nvmlDeviceGetTotalEnergyConsumption and nvmlDeviceGetPowerUsage), and published measurements
// found them disagreeing on A100 and H100 boards (the power reading is an average over a window
// that covers only part of each period). `ctrl power --check` reports both and their ratio, so that
// a user knows how far the energies ctrl measures can be trusted on this board.
//
//   CounterCheck c = check_counter(meter, Seconds(10), std::chrono::milliseconds(10));
//   // c.counter_j / c.integrated_j: 1 when the two agree
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include <ctrl/energy/clock.hpp>
#include <ctrl/energy/measurement.hpp>
#include <ctrl/energy/meter.hpp>

namespace ctrl::energy {

struct CounterCheck {
  std::string meter;
  std::string absent_reason;  // why nothing was compared (no sensor, no power readings)
  double seconds = 0.0;       // between the counter's first and last reading
  double counter_j = 0.0;     // energy_j() difference over the window
  double integrated_j = 0.0;  // power_w() samples integrated over the same window
  std::size_t samples = 0;    // power readings taken
  double max_gap_s = 0.0;     // the longest time between two power readings
  std::optional<double> min_power_w, max_power_w;
  double resolution = 0.0;  // relative error the counter's update interval allows (2 dt / T)

  [[nodiscard]] bool compared() const { return absent_reason.empty(); }
  // counter / integrated; std::nullopt when nothing was compared or the integral is 0.
  [[nodiscard]] std::optional<double> ratio() const;
  // Whether the two differ by more than the counter's resolution explains.
  [[nodiscard]] bool disagree() const;
};

// Reads the counter, then power every `interval` (as fast as the sensor answers, when it is slower)
// for `window`, then the counter again; the power samples are integrated by the trapezoid rule
// over the samples' times, the first and last held flat to the counter's readings. The device may
// be busy or idle: a check under load is the informative one. A meter without power readings
// (RAPL, estimates) or an absent one returns at once with absent_reason set. UsageError when
// window or interval is not positive; DeviceError when the sensor fails meanwhile. `clock` times
// the window and stamps every reading.
[[nodiscard]] CounterCheck check_counter(Meter& meter, Seconds window, Seconds interval = std::chrono::milliseconds{10},
                                         Clock& clock = steady_clock());

}  // namespace ctrl::energy
