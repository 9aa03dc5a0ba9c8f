// What this machine offers as controllers: CPU cores grouped by package and NUMA node (hwloc),
// GPUs with name, memory and compute capability (ctrl::cuda_gpus: the CUDA backend, where built),
// and which energy meter covers each (ctrl_energy). `ctrl devices` prints describe_machine().
//
//   const ctrl::loop::MachineReport m = ctrl::loop::describe_machine({.groups = 2});
//   m.suggested;                              // the processors to profile: CPU groups, every GPU
//   ctrl::loop::machine_report_json(m);       // `ctrl devices --format json`
#pragma once
#include <ctrl/config.hpp>
#include <ctrl/device_spec.hpp>
#include <ctrl/energy.hpp>
#include <ctrl/gpus.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ctrl::loop {

struct CoreGroup {
  int id = 0;              // package: physical id (as in RAPL's "package-P"); NUMA node: os index
  std::vector<int> cores;  // logical cores (OS indexes, as in "cpu:0-3")
};

using GpuInfo = ctrl::GpuInfo;  // ctrl/gpus.hpp

struct Machine {
  std::string cpu_model;
  std::vector<int> cores;   // logical cores of the machine
  std::vector<int> usable;  // those in this process's affinity mask
  int physical_cores = 0;
  std::vector<CoreGroup> packages, numa_nodes;
  bool cuda_backend = false;  // whether this build has cuda:N controllers
  std::vector<GpuInfo> gpus;  // from the CUDA runtime; empty without the backend
  std::string gpu_note;       // why no GPU is listed, when none is
  std::vector<energy::MeterListing> meters;
};

Machine probe_machine();

// The bytes this process may still allocate: the least of the system's MemAvailable, the room left
// in its cgroup (memory.max less memory.current, v2) and RLIMIT_AS; nullopt when none is known.
std::optional<std::uint64_t> available_memory();

// The physical packages that these logical cores belong to (sorted, unique).
std::vector<int> packages_of(const std::vector<int>& cores);

// Controllers to profile: the usable cores split into `groups` groups of consecutive cores (one
// core left out for each GPU's host thread when there are cores to spare), then every GPU.
std::vector<DeviceSpec> suggested_processors(const Machine& m, int cpu_groups);

// The meter a processor (a controller's device) has, described for energy: GPUs by PCI bus id
// (NVML's GPU at the bus id CUDA gives, whatever CUDA_DEVICE_ORDER is; by index where CUDA gives
// none), CPU kinds by the packages
// of their cores, and the cores themselves (for an estimate). Kinds with no meter map to
// energy::DeviceSpec::none.
energy::DeviceSpec energy_device(const DeviceSpec& spec);

// A device's energy meter as `ctrl devices` describes it: present, or why not.
struct MeterState {
  std::string name;  // "nvml:0", or "none"
  bool present = false;
  std::string reason;  // why absent
  std::string measures;
  double interval = 0;
  energy::Provenance provenance = energy::Provenance::absent;
};
MeterState meter_state(const energy::DeviceSpec& device, const energy::MeterEnvironment& env = {});

struct MachineRequest {
  int groups = 2;                // CPU groups of the suggested processors (1 to 1024)
  energy::MeterEnvironment env;  // where meters look (the CPU rating of an estimate)
};

// What this machine offers as controllers, with the meter of each package and GPU, every meter
// found, and the processors to profile.
struct MachineReport {
  Machine machine;
  std::vector<MeterState> package_meters, gpu_meters;  // in machine.packages' and machine.gpus' order
  std::vector<DeviceSpec> suggested;                   // suggested_processors(machine, groups)
  int groups = 2;
  std::string kinds;  // "cpu, offload, cuda": the device kinds of this build
};
// UsageError for groups out of 1 to 1024.
MachineReport describe_machine(const MachineRequest& request = {});

// The report as `ctrl devices --format json` prints it.
std::string machine_report_json(const MachineReport& report);

}  // namespace ctrl::loop
