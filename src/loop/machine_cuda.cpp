// The GPUs the CUDA runtime sees, for `ctrl devices`.
#include <ctrl/cuda/driver.hpp>
#include <ctrl/loop/machine.hpp>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

namespace ctrl::loop {

std::vector<GpuInfo> probe_cuda_gpus(std::string& note) {
  std::vector<GpuInfo> gpus;
  int count = 0;
  const cudaError_t st = cudaGetDeviceCount(&count);
  if (st != cudaSuccess || count == 0) {
    note = detail::no_cuda_device_reason(st);
    return gpus;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    GpuInfo g;
    g.index = i;
    g.name = p.name;
    g.memory_bytes = p.totalGlobalMem;
    g.cc_major = p.major;
    g.cc_minor = p.minor;
    g.multiprocessors = p.multiProcessorCount;
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, i) == cudaSuccess) g.pci_bus_id = bus;
    gpus.push_back(std::move(g));
  }
  return gpus;
}

}  // namespace ctrl::loop
