// Helpers shared by `ctrl profile` and `ctrl run`: the application and its parameters, number
// formatting for tables, and the CUDA device order that makes CUDA device i the same GPU as NVML's i.
#pragma once
#include <ctrl/energy/factory.hpp>
#include <ctrl/loop/measure.hpp>
#include <ctrl/loop/quantity.hpp>
#include <ctrl/loop/workload.hpp>

#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ctrl::tool {

using loop::format_joules;  // ctrl/loop/quantity.hpp: the library's reports print them the same way
using loop::format_percent;
using loop::format_seconds;
// A measurement's progress: "round 3, 8 runs each, interval ±2.1 %" (the widest 95 % interval of
// the stopping rule's means, relative to its mean); past ±100 % (a mean near zero, as an energy
// that barely rises above base) "interval > ±100 % of a mean near 0", never a four-digit percentage.
std::string round_text(int rep, int batch, double worst_relative_ci);

// The help of --cols: every application's default N.
std::string cols_help();

// The application of `ctrl profile | run APP` and the values of its parameters: every parameter of
// an application of apps::catalog() is an option (--iterations, --riskfree), whichever the
// application; one it does not take is refused when the workload is made.
struct AppArgs {
  std::string name;
  std::vector<std::pair<std::string, double>> given;  // parameter, value, in the command's order

  void add_to(CLI::App* cmd);
  // The application with these values (UsageError for an unknown application or parameter, or a
  // value out of bounds), able to run on `devices` (a platform's local_devices(): the GPU build of
  // the applications is loaded only where one is a GPU, apps::catalog_for).
  std::shared_ptr<const loop::Workload> workload(const std::vector<DeviceSpec>& devices = {}) const;
};

// The application's line of a report: what it computes with N = cols, and the parameters that
// differ from its defaults ("... (N = 2048) with iterations=50").
std::string describe(const loop::Workload& app, index_t cols);

// Sets CUDA_DEVICE_ORDER=PCI_BUS_ID unless the user set it, so that "cuda:i" is the GPU that
// nvidia-smi and NVML number i (CUDA numbers the fastest first by default). Meters no longer
// depend on it: a GPU is matched to its NVML meter by PCI bus id (loop::energy_device).
void prefer_pci_order_for_cuda();

// While it lives, the first Ctrl-C or SIGTERM sets `stop` (the command ends after the step in
// progress, keeping what it measured: exit 130); the next ends the process at once, removing the
// temporary file of a save in progress (io::AtomicFile). Before and after, the first ends it at once.
class InterruptScope {
 public:
  explicit InterruptScope(loop::StopFlag& stop);
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
};

// `--cpu-power WATTS` of `ctrl devices | power | profile | run`: the power of one busy CPU core,
// for the estimated energy of CPU processors that no counter measures (docs/energy.md).
struct CpuPowerArg {
  std::optional<double> watts;
  void add_to(CLI::App* cmd);
  // Checked (exit 2 naming the option) and put where meters look for it.
  void apply(energy::MeterEnvironment& env) const;
};

// The measurement flags `ctrl profile` and `ctrl run` share: the stopping rule, energy windows,
// rounds, base powers, the CPU rating, input seed and progress display.
struct MeasureArgs {
  explicit MeasureArgs(int most_reps) : max_reps(most_reps) {}
  int min_reps = 3;
  int max_reps;
  double precision = 0.025;
  double max_seconds = 0;
  std::vector<std::string> base_power;
  double idle_seconds = 2.0;
  bool no_energy = false;
  double min_window = -1;
  double min_round = 0.02;
  std::uint64_t seed = 1;
  std::string progress = "auto";
  CpuPowerArg cpu_power;

  void add_to(CLI::App* cmd);
  void check() const;  // exit_bad_input for negative windows and rounds
  // --base-power as (processor, W), every one checked (UsageError) whether or not some
  // processor turns out to have a meter.
  std::vector<std::pair<std::string, double>> base_powers() const;
};

}  // namespace ctrl::tool
