// Why the CUDA runtime sees no GPU, in words a user can act on: one text for every place that asks
// cudaGetDeviceCount (the cuda kind's controllers, `ctrl devices`, the native CUDA twins, the
// tests' skip reasons).
//
// The runtime reports cudaErrorInsufficientDriver ("CUDA driver version is insufficient for CUDA
// runtime version") both for a driver older than itself and for no driver at all; on a machine
// without an NVIDIA driver that reads as "update your driver". The driver's user-space library,
// libcuda.so.1, tells the two apart: without it there is no driver to update.
//
// Host-only and header-only (no library to link beyond the CUDA runtime), so that code built
// without ctrl::cuda (ctrl_loop, the twins) can use it given the CUDA include path.
#pragma once
#include <cuda_runtime_api.h>

#include <dlfcn.h>

#include <string>

namespace ctrl::detail {

// Whether an NVIDIA driver is installed here: its library loads. When the runtime loaded it
// already, this only counts a reference.
inline bool nvidia_driver_present() {
  void* lib = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (lib == nullptr) return false;
  ::dlclose(lib);
  return true;
}

// "CUDA 12.4" from the runtime's version numbers (1000 * major + 10 * minor).
inline std::string cuda_version_text(int version) {
  return "CUDA " + std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// What a message says after "cuda:N: " when cudaGetDeviceCount returned `status` (cudaSuccess: it
// counted none). Clears the runtime's last error.
inline std::string no_cuda_device_reason(cudaError_t status) {
  (void)cudaGetLastError();
  if (status == cudaSuccess) return "no CUDA device: cudaGetDeviceCount found none";
  if (!nvidia_driver_present()) return "no NVIDIA driver on this machine (libcuda.so.1 not found)";
  if (status == cudaErrorInsufficientDriver) {
    int driver = 0, runtime = 0;
    (void)cudaDriverGetVersion(&driver);
    (void)cudaRuntimeGetVersion(&runtime);
    return "the NVIDIA driver is too old for this CUDA runtime (the driver supports " + cuda_version_text(driver) +
           ", the runtime is " + cuda_version_text(runtime) + "): update the driver";
  }
  return std::string("no CUDA device: cudaGetDeviceCount failed: ") + cudaGetErrorName(status) + ": " +
         cudaGetErrorString(status);
}

}  // namespace ctrl::detail
