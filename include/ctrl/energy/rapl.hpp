// CPU energy from Intel/AMD RAPL through Linux powercap (/sys/class/powercap).
//
// Layout read (kernel Documentation/power/powercap/powercap.rst):
//   <root>/intel-rapl:N/      name = "package-P" (or "psys"), energy_uj, max_energy_range_uj
//   <root>/intel-rapl:N:M/    name = "dram" | "core" | "uncore", same files
// energy_uj counts micro-joules and wraps to 0 after max_energy_range_uj. Since Linux 5.10
// (CVE-2020-8694) energy_uj is readable only by root.
//
// The root directory and the file-reading function are parameters so that tests can lay out a
// fixture tree and simulate errors (permission denied) that root would never see.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <ctrl/energy/meter.hpp>

namespace ctrl::energy {

inline constexpr const char* default_powercap_root = "/sys/class/powercap";

// The content of a small file, or the errno of the failure (0 on success).
struct FileRead {
  std::string text;
  int error = 0;
};
using FileReader = std::function<FileRead(const std::filesystem::path&)>;

// The default reader: open(2) + read(2), so that errno (EACCES, EISDIR, ENOENT) is exact.
[[nodiscard]] FileRead read_small_file(const std::filesystem::path& file);

// A message for a failed read of `file`; for EACCES/EPERM it says how to grant access.
[[nodiscard]] std::string describe_read_error(const std::filesystem::path& file, int error);

// One powercap zone.
struct RaplZone {
  std::filesystem::path dir;       // <root>/intel-rapl:0:1
  std::string zone;                // "intel-rapl:0:1"
  std::string name;                // "package-0", "dram", "core", "uncore", "psys"
  int package = -1;                // P of the owning "package-P" zone; -1 for psys
  std::uint64_t max_range_uj = 0;  // counter range; it wraps to 0 after this value
  std::string problem;             // empty when energy_uj reads; otherwise why not
  [[nodiscard]] bool is_package() const { return name.rfind("package-", 0) == 0; }
  [[nodiscard]] bool readable() const { return problem.empty(); }
  // "package-0" for a package, "package-0/dram" for a subzone.
  [[nodiscard]] std::string label() const;
};

// What a scan found: zones in a stable order (package, then subzones), or why there are none.
struct RaplScan {
  std::filesystem::path root;
  std::vector<RaplZone> zones;
  std::string absent_reason;  // "no sensor: /sys/class/powercap absent", ...
  [[nodiscard]] bool present() const { return absent_reason.empty(); }
};

// Lists the intel-rapl zones under root. Never throws for absence or unreadable energy files
// (they are reported in absent_reason / RaplZone::problem); throws DeviceError for a zone whose
// name or max_energy_range_uj exists but is malformed.
[[nodiscard]] RaplScan scan_rapl(const std::filesystem::path& root = default_powercap_root,
                                 const FileReader& reader = {});

// Energy accumulated from a wrapping micro-joule counter. Pure logic, kept apart to be tested.
class WrapCounter {
 public:
  WrapCounter(std::uint64_t first_uj, std::uint64_t max_range_uj) : last_(first_uj), max_range_(max_range_uj) {}

  // Feeds the next raw reading; returns the accumulated micro-joules since the first reading.
  // A reading below the previous one is one wrap: the counter ran up to max_range (the kernel
  // documents it as the counter's range), then on through 0 to the new value, so the step is
  // (max_range - last) + 1 + raw. RAPL's true modulus is max_range plus one energy unit
  // (~61 µJ), so a wrap is under-counted by at most that much. Two wraps between readings
  // cannot be told from one: read at least once per wrap period (minutes at full load; a
  // Sampler with polling does). Throws DeviceError when a reading exceeds max_range.
  std::uint64_t update(std::uint64_t raw_uj);

  [[nodiscard]] std::uint64_t total_uj() const { return total_; }
  [[nodiscard]] std::uint64_t wraps() const { return wraps_; }

 private:
  std::uint64_t last_;
  std::uint64_t max_range_;
  std::uint64_t total_ = 0;
  std::uint64_t wraps_ = 0;
};

// The sum of several RAPL zones (a CPU package set, optionally with its dram domains).
class RaplMeter final : public Meter {
 public:
  // Reads each zone's energy_uj once to set the origin. Throws UsageError for an empty zone
  // list, DeviceError naming the file when a read fails (with the fix for permissions).
  RaplMeter(std::vector<RaplZone> zones, std::string name, FileReader reader = {});

  [[nodiscard]] const MeterInfo& info() const override { return info_; }
  [[nodiscard]] bool available() const override { return true; }
  [[nodiscard]] std::optional<double> energy_j() override;

  [[nodiscard]] const std::vector<RaplZone>& zones() const { return zones_; }
  // Wraps seen so far, summed over zones (diagnostics and tests).
  [[nodiscard]] std::uint64_t wraps() const;

 private:
  [[nodiscard]] std::uint64_t read_uj(const RaplZone& zone) const;

  std::vector<RaplZone> zones_;
  FileReader reader_;
  MeterInfo info_;
  mutable std::mutex mutex_;  // counters are updated by whichever thread reads
  std::vector<WrapCounter> counters_;
};

// RAPL counters update about every millisecond; reported as the meter's resolution hint.
inline constexpr double rapl_update_interval_s = 0.001;

}  // namespace ctrl::energy
