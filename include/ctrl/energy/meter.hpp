// The meter interface: one device's energy counter, read as joules since an origin.
//
// A meter either measures or says plainly why it cannot. Absence is a state (available() is
// false and every reading is std::nullopt), never a zero that could be mistaken for a
// measurement: the workload-distribution layer would happily "optimise" made-up numbers.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <ctrl/errors.hpp>  // meters throw ctrl::DeviceError / ctrl::UsageError

namespace ctrl::energy {

// Where a meter's joules come from. Every energy ctrl reports carries one, so that an estimate is
// never read as a measurement and an absence never as a zero.
enum class Provenance {
  measured,   // a hardware counter (RAPL, NVML)
  estimated,  // a documented model over measured activity (estimate.hpp: rated power x busy cores)
  absent,     // no energy at all (NoMeter)
};

// "measured", "estimated", "absent".
[[nodiscard]] std::string_view to_string(Provenance p) noexcept;
// The inverse of to_string; std::nullopt for any other text.
[[nodiscard]] std::optional<Provenance> parse_provenance(std::string_view text) noexcept;

// What a meter is and how fine-grained its readings are.
struct MeterInfo {
  // Short, unique on this machine: "nvml:0", "rapl:package-0+dram", "none:cpu".
  std::string name;
  // What the counter covers, in words: "whole board of GPU 0 (NVIDIA H200)".
  std::string measures;
  // How often the underlying counter changes, in seconds (0: unknown or continuous). Two reads
  // closer than this may see the same value, so a window shorter than a few intervals has a
  // large relative error; see min_window_s() and repeats_needed() in measurement.hpp.
  double update_interval_s = 0.0;
  // Whether power_w() can return a value (NVML: yes; RAPL: no instantaneous power).
  bool has_power = false;
  // Measured by a counter, estimated by a model, or absent (NoMeter).
  Provenance provenance = Provenance::measured;
  // A model's power with the whole device busy (the CPU estimate: its rating x its cores), W; 0
  // where not known. An idle window that draws a large share of it was not idle.
  double full_power_w = 0.0;
};

// A device's energy counter.
//
// energy_j() is cumulative joules since the meter's origin (its construction), monotone
// non-decreasing, as a double. Differences of two readings are what callers use; the origin
// itself carries no meaning. Implementations in ctrl may be read from several threads.
class Meter {
 public:
  Meter() = default;
  Meter(const Meter&) = delete;
  Meter& operator=(const Meter&) = delete;
  virtual ~Meter() = default;

  [[nodiscard]] virtual const MeterInfo& info() const = 0;

  // False for a meter that cannot measure; absent_reason() then says why.
  [[nodiscard]] virtual bool available() const = 0;

  // Empty when available(); otherwise a sentence starting "no sensor: ".
  [[nodiscard]] virtual std::string absent_reason() const { return {}; }

  // Joules since the origin; std::nullopt exactly when the meter is absent. A sensor that was
  // present and then fails throws ctrl::DeviceError naming the device or file.
  [[nodiscard]] virtual std::optional<double> energy_j() = 0;

  // Instantaneous power in watts where the sensor provides it; std::nullopt otherwise.
  [[nodiscard]] virtual std::optional<double> power_w() { return std::nullopt; }
};

// The meter of a device without an energy sensor (or whose sensor cannot be read here).
class NoMeter final : public Meter {
 public:
  // name: the meter name to show ("none:cpu"); reason: why there is no sensor. A reason that
  // does not already start with "no sensor: " gets that prefix.
  NoMeter(std::string name, std::string reason);

  [[nodiscard]] const MeterInfo& info() const override { return info_; }
  [[nodiscard]] bool available() const override { return false; }
  [[nodiscard]] std::string absent_reason() const override { return reason_; }
  [[nodiscard]] std::optional<double> energy_j() override { return std::nullopt; }

 private:
  MeterInfo info_;
  std::string reason_;
};

// Prefixes "no sensor: " unless already there; the one spelling of absence across ctrl.
[[nodiscard]] std::string no_sensor(std::string reason);

}  // namespace ctrl::energy
