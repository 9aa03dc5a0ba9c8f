// Which meter does a device have? The runtime describes a device with a small struct and gets
// a Meter back (a NoMeter with the reason when no sensor covers it); `ctrl devices` lists
// every meter this machine has and why the others are absent.
//
// A CPU device whose RAPL counter cannot be read (no powercap, permission denied) gets an
// estimated meter instead when its cores are known and a rating exists (estimate.hpp): given, or
// from ctrl's table of rated CPUs ("estimate:cpu:0-7 (3.125 W/core)": the rating is part of the
// name). Measured when possible, estimated otherwise, absent only when neither; the meter's
// info().provenance says which.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <ctrl/energy/estimate.hpp>
#include <ctrl/energy/meter.hpp>
#include <ctrl/energy/nvml.hpp>
#include <ctrl/energy/rapl.hpp>

namespace ctrl::energy {

enum class DeviceKind {
  none,          // a device with no meter by design (e.g. a simulated one)
  cpu_packages,  // a set of CPU packages (sockets), measured by RAPL
  nvidia_gpu,    // one NVIDIA GPU, measured by NVML
};

// A device as the energy layer needs to know it. Mapping a controller's cores to packages is
// the runtime's business (it has hwloc); RAPL measures whole packages, so a controller owning
// part of a package is charged the whole package's energy (docs/energy.md).
struct DeviceSpec {
  DeviceKind kind = DeviceKind::none;
  std::vector<int> packages;  // cpu_packages: physical package ids, as in "package-P"
  bool with_dram = true;      // cpu_packages: add the packages' dram domains when present
  std::vector<int> cores;     // cpu_packages: the logical cores the device uses, for an estimate
                              // (empty: unknown, no estimate)
  unsigned gpu_index = 0;     // nvidia_gpu: NVML index (PCI order, not CUDA's default order)
  std::string pci_bus_id;     // nvidia_gpu: where set, the GPU is NVML's at this PCI bus id (any
                              // form: CUDA's "0000:17:00.0" or NVML's), and gpu_index is ignored
  std::string label;          // for messages and NoMeter names; defaults from kind

  [[nodiscard]] static DeviceSpec none(std::string label = "none");
  [[nodiscard]] static DeviceSpec cpu(std::vector<int> packages, bool with_dram = true, std::vector<int> cores = {});
  [[nodiscard]] static DeviceSpec nvidia(unsigned gpu_index, std::string pci_bus_id = {});
};

// Where the sensors are looked for; tests point these at fixtures.
struct MeterEnvironment {
  std::filesystem::path powercap_root = default_powercap_root;
  std::string nvml_library = default_nvml_library;
  FileReader reader;             // RAPL, /proc/stat and /proc/cpuinfo reads; empty: read_small_file
  EstimateEnvironment estimate;  // the CPU estimate's rating and files
};

// The meter for one device. Absent sensors give a NoMeter with the reason (no powercap tree,
// no NVML library, an unreadable energy_uj with how to fix it). A device that does not exist
// while its sensor system works (package 3 on a 1-package machine, GPU 5 of 1) throws
// DeviceError; an ill-formed spec (cpu with no packages, negative ids) throws UsageError.
[[nodiscard]] std::unique_ptr<Meter> make_meter(const DeviceSpec& device, const MeterEnvironment& env = {});

// The estimated meter of a CPU device (its `cores`), whatever RAPL offers: for a processor whose
// package counter another processor shares. A NoMeter whose reason starts with `no_sensor_reason`
// and says what would supply the estimate when there is no rating, no cores or no /proc/stat;
// DeviceError for a core /proc/stat does not list; UsageError for a spec that is not cpu_packages.
[[nodiscard]] std::unique_ptr<Meter> make_cpu_estimate(const DeviceSpec& device, const MeterEnvironment& env,
                                                       const std::string& no_sensor_reason);

// One line of `ctrl devices`.
struct MeterListing {
  std::string name;      // "rapl:package-0", "rapl:package-0/dram", "nvml:0", "rapl"
  std::string measures;  // what it covers, or the family when absent
  bool present = false;
  std::string reason;  // why absent ("no sensor: ..."); empty when present
  double update_interval_s = 0.0;
  Provenance provenance = Provenance::measured;  // estimated for the estimate's line
};

// Every meter family on this machine: one line per RAPL zone and per GPU when the family is
// present (a zone or GPU that cannot be read is listed absent with its reason), one absent
// line per family otherwise, and one line for the CPU estimate ("estimate": its rating, or why
// there is none). Never throws for absence.
[[nodiscard]] std::vector<MeterListing> list_meters(const MeterEnvironment& env = {});

}  // namespace ctrl::energy
