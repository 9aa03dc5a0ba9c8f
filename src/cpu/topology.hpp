// The machine's CPU cores, as hwloc sees them, and the cores this process may use.
#pragma once
#include <ctrl/device_spec.hpp>

#include <string>
#include <vector>

namespace ctrl::detail {

struct CpuTopology {
  std::vector<int> existing;  // OS indexes of the processing units (logical cores) of the machine
  std::vector<int> usable;    // those in this process's affinity mask
  int numa_nodes = 1;
  std::string model;  // the processor's name, where hwloc reports it
};

const CpuTopology& cpu_topology();

// The cores a CPU-style spec names, checked: cores that do not exist, or that this process may
// not use, are a UsageError that names them.
std::vector<int> resolve_cores(const DeviceSpec& spec);

// Pins the calling thread to one core (hwloc); throws DeviceError naming the core on failure.
void pin_current_thread(int core);

// The NUMA node of a core, or -1 where the machine has one node.
int numa_node_of(int core);

// Memory bound to the NUMA node(s) of these cores (plain aligned memory on one-node machines).
// Free it with free_near and the same size.
void* allocate_near(const std::vector<int>& cores, std::size_t bytes);
void free_near(void* p, std::size_t bytes);

}  // namespace ctrl::detail
