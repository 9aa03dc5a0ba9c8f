// What this machine offers as controllers: CPU cores grouped by package and NUMA node (hwloc),
// GPUs with name, memory and compute capability (ctrl::cuda_gpus: the CUDA backend, where built),
// and which energy meter covers each (ctrl_energy). `ctrl devices` prints it.
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

}  // namespace ctrl::loop
