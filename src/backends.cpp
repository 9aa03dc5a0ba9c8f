// The device kinds this build of ctrl contains: the one place that names every backend.
//
// The CUDA backend is a library of its own (libctrl_cuda_backend.so, beside libctrl), loaded when
// the first CUDA controller is made: a program that makes none loads no CUDA library (cuBLAS and
// cuFFT alone fault in tens of thousands of pages at start), and one build runs on nodes without
// the CUDA libraries, where a CUDA controller is then a DeviceError that says what is missing.
#include "core/device.hpp"

#include <ctrl/config.hpp>
#include <ctrl/errors.hpp>

#include <dlfcn.h>
#include <fmt/format.h>

#include <mutex>
#include <string>

namespace ctrl::detail {

DeviceParts make_cpu_kind(const DeviceSpec& spec);
DeviceParts make_offload_kind(const DeviceSpec& spec);

namespace {

#if CTRL_HAVE_CUDA_BACKEND
// The backend beside this library (the build tree and an installation keep them together).
std::string cuda_backend_path() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&register_builtin_kinds), &info) == 0 || info.dli_fname == nullptr)
    return "libctrl_cuda_backend.so";
  std::string dir = info.dli_fname;
  const auto slash = dir.rfind('/');
  return (slash == std::string::npos ? std::string() : dir.substr(0, slash + 1)) + "libctrl_cuda_backend.so";
}

KindFactory load_cuda_backend() {
  const std::string path = cuda_backend_path();
  // Kept loaded for the life of the process: controllers and their kernels' code live in it.
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr)
    throw DeviceError(fmt::format("the CUDA backend could not be loaded ({}): a CUDA controller needs ctrl's "
                                  "backend beside libctrl and the CUDA runtime, cuBLAS and cuFFT libraries on "
                                  "this node",
                                  dlerror()));
  using Entry = KindFactory (*)();
  auto entry = reinterpret_cast<Entry>(dlsym(lib, "ctrl_cuda_kind_factory"));
  if (entry == nullptr) throw DeviceError(fmt::format("{} is not ctrl's CUDA backend: {}", path, dlerror()));
  return entry();
}

DeviceParts make_cuda_kind(const DeviceSpec& spec) {
  static std::mutex m;
  static KindFactory factory = nullptr;
  {
    const std::lock_guard lock(m);
    if (factory == nullptr) {
      try {
        factory = load_cuda_backend();
      } catch (const DeviceError& e) {
        throw DeviceError(fmt::format("{}: {}", spec.str(), e.what()));
      }
    }
  }
  return factory(spec);
}
#endif

}  // namespace

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
