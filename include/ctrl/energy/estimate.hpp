// CPU energy estimated where no counter can be read: virtual machines and cloud instances (no
// RAPL), servers whose RAPL counters are root-only, and CPU groups sharing one RAPL package.
//
// The model (docs/energy.md, "Estimated CPU energy") is CodeCarbon's "process" mode, per core:
//
//   P(t)        = W x (the device's logical cores busy at t)
//   E(window)   = W x sum over its cores c of busy_c(window)
//
// W is the rated power of one busy logical core; busy_c is the time core c spent running anything
// but the idle task during the window, from /proc/stat (user + nice + system + irq + softirq, in
// clock ticks; idle, iowait and steal are not busy: under steal the hypervisor ran someone else).
// An idle core costs nothing in the model, so an estimated device's base power is what the OS keeps
// busy on its cores, near 0 W. Busy time is whoever's: like RAPL, the estimate charges the device
// for every process on its cores.
//
// W comes from, in order: the user (`--cpu-power WATTS`), else the table of rated CPUs below, keyed
// by /proc/cpuinfo's "model name" (W = the vendor's rated package power / the package's hardware
// threads), else nowhere: the device's energy is then absent, and the reason names the option.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <ctrl/energy/meter.hpp>
#include <ctrl/energy/rapl.hpp>  // FileReader

namespace ctrl::energy {

inline constexpr const char* default_proc_stat = "/proc/stat";
inline constexpr const char* default_cpuinfo = "/proc/cpuinfo";
// The largest rating accepted: no CPU core draws 100 W (the largest are about 10-25 W), so a
// larger value is a package's power given by mistake.
inline constexpr double max_watts_per_core = 100.0;

// A CPU whose rated power ctrl knows (src/energy/rated_cpus.cpp lists them with their sources).
struct RatedCpu {
  std::string_view model;   // the words of its model name that identify it: "Platinum 8480+"
  double package_w;         // the vendor's rated power (TDP) of one package, W
  int threads;              // hardware threads of one package, SMT on as shipped
  std::string_view source;  // where the two numbers come from

  [[nodiscard]] double watts_per_thread() const { return package_w / threads; }
};

// The whole table, in its order.
[[nodiscard]] std::span<const RatedCpu> rated_cpus();
// The entry whose words appear whole and in order in `model_name` (words are separated by
// spaces: "EPYC 7763" matches "AMD EPYC 7763 64-Core Processor", not "AMD EPYC 77630"). Null when
// none does.
[[nodiscard]] const RatedCpu* find_rated_cpu(std::string_view model_name);

// The "model name" of the first processor in a /proc/cpuinfo text; empty when there is none (ARM
// kernels print none).
[[nodiscard]] std::string cpuinfo_model_name(std::string_view cpuinfo);

// Throws UsageError naming `option` unless 0 < watts <= max_watts_per_core.
void check_watts_per_core(double watts, std::string_view option = "--cpu-power");

// Where an estimate's inputs come from; tests point the files at fixtures.
struct EstimateEnvironment {
  std::optional<double> watts_per_core;  // given: W per busy logical core; empty: the table's
  std::string option = "--cpu-power";    // how messages name the way to give it
  std::filesystem::path proc_stat = default_proc_stat;
  std::filesystem::path cpuinfo = default_cpuinfo;
  long ticks_per_second = 0;  // /proc/stat's unit (USER_HZ); 0: sysconf(_SC_CLK_TCK)
};

struct CpuRating {
  double watts_per_core = 0.0;
  std::string origin;  // "given by --cpu-power", "Platinum 8480+: 350 W per package / 112 threads (...)"
};

// The rating for this machine's CPU: given, else the table's. std::nullopt with `why` set when
// neither ("CPU 'AMD EPYC' is not in ctrl's table of rated CPUs: give --cpu-power WATTS, ...").
// UsageError for a given rating out of range.
[[nodiscard]] std::optional<CpuRating> cpu_rating(const EstimateEnvironment& env, const FileReader& reader,
                                                  std::string& why);

// The busy clock ticks of one logical core, from /proc/stat.
struct CoreTicks {
  int core = -1;
  std::uint64_t busy = 0;  // user + nice + system + irq + softirq
};

// The per-core lines ("cpuN user nice system idle [iowait irq softirq ...]") of a /proc/stat text,
// in its order. DeviceError naming `where` and the line for a line with fewer than four numbers.
[[nodiscard]] std::vector<CoreTicks> parse_proc_stat(std::string_view text, const std::string& where);

// "0-3,8,10-11": cores as device specs write them.
[[nodiscard]] std::string format_core_list(const std::vector<int>& cores);

// The estimated energy of a set of logical cores (the model above).
class EstimatedCpuMeter final : public Meter {
 public:
  // Reads /proc/stat once for the origin. UsageError for no cores, a core listed twice or a
  // rating out of range; DeviceError when /proc/stat cannot be read or has no line for a core.
  EstimatedCpuMeter(std::vector<int> cores, CpuRating rating, std::string name, const EstimateEnvironment& env,
                    FileReader reader = {});

  [[nodiscard]] const MeterInfo& info() const override { return info_; }
  [[nodiscard]] bool available() const override { return true; }
  // W x busy seconds of the cores since construction. DeviceError when /proc/stat fails, or a
  // core's busy time goes backwards (a core taken offline and back resets its counters).
  [[nodiscard]] std::optional<double> energy_j() override;

  [[nodiscard]] const std::vector<int>& cores() const { return cores_; }
  [[nodiscard]] const CpuRating& rating() const { return rating_; }

 private:
  [[nodiscard]] std::vector<std::uint64_t> read_busy() const;  // per core, in cores_' order

  std::vector<int> cores_;
  CpuRating rating_;
  std::filesystem::path proc_stat_;
  FileReader reader_;
  double seconds_per_tick_;
  std::vector<std::uint64_t> origin_;
  MeterInfo info_;
};

}  // namespace ctrl::energy
