// The device kinds this build of ctrl contains: the one place that names every backend.
#include "core/device.hpp"

#include <ctrl/config.hpp>

#include <mutex>

namespace ctrl::detail {

DeviceParts make_cpu_kind(const DeviceSpec& spec);
DeviceParts make_offload_kind(const DeviceSpec& spec);
#if CTRL_HAVE_CUDA_BACKEND
DeviceParts make_cuda_kind(const DeviceSpec& spec);
#endif

void register_builtin_kinds() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_kind("cpu", &make_cpu_kind);
    register_kind("offload", &make_offload_kind);
#if CTRL_HAVE_CUDA_BACKEND
    register_kind("cuda", &make_cuda_kind);
#endif
  });
}

}  // namespace ctrl::detail
