// The GPUs the CUDA runtime sees (ctrl::cuda_gpus, include/ctrl/gpus.hpp): found by name when
// libctrl loads this backend, so that listing them is what loads the CUDA libraries.
#include <ctrl/cuda/driver.hpp>
#include <ctrl/gpus.hpp>

#include <cuda_runtime_api.h>

extern "C" void ctrl_cuda_gpus(std::vector<ctrl::GpuInfo>* gpus, std::string* why_none) {
  int count = 0;
  const cudaError_t st = cudaGetDeviceCount(&count);
  if (st != cudaSuccess || count == 0) {
    *why_none = ctrl::detail::no_cuda_device_reason(st);
    return;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    ctrl::GpuInfo g;
    g.index = i;
    g.name = p.name;
    g.memory_bytes = p.totalGlobalMem;
    g.cc_major = p.major;
    g.cc_minor = p.minor;
    g.multiprocessors = p.multiProcessorCount;
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, i) == cudaSuccess) g.pci_bus_id = bus;
    gpus->push_back(std::move(g));
  }
}
