// The device kinds this build of ctrl contains: the one place that names every backend.
//
// The CUDA backend is a library of its own (libctrl_cuda_backend.so, beside libctrl), loaded when
// the first CUDA controller is made: a program that makes none loads no CUDA library (cuBLAS and
// cuFFT alone fault in tens of thousands of pages at start), and one build runs on nodes without
// the CUDA libraries, where a CUDA controller is then a DeviceError that says what is missing.
#include "core/device.hpp"

#include <ctrl/config.hpp>
#include <ctrl/errors.hpp>
#include <ctrl/gpus.hpp>

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

// The backend, loaded once and kept for the life of the process (controllers and their kernels'
// code live in it); DeviceError saying what is missing when it cannot be loaded.
void* cuda_backend() {
  static std::mutex m;
  static void* lib = nullptr;
  const std::lock_guard lock(m);
  if (lib != nullptr) return lib;
  const std::string path = cuda_backend_path();
  lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr)
    throw DeviceError(
        fmt::format("the CUDA backend could not be loaded ({}): a CUDA controller needs ctrl's "
                    "backend beside libctrl and the CUDA runtime, cuBLAS and cuFFT libraries on "
                    "this node",
                    dlerror()));
  return lib;
}

// One of the backend's entry points, found by name.
template <class F>
F cuda_backend_entry(const char* name) {
  void* lib = cuda_backend();
  void* f = dlsym(lib, name);
  if (f == nullptr) throw DeviceError(fmt::format("{} is not ctrl's CUDA backend: {}", cuda_backend_path(), dlerror()));
  return reinterpret_cast<F>(f);
}

DeviceParts make_cuda_kind(const DeviceSpec& spec) {
  KindFactory factory = nullptr;
  try {
    factory = cuda_backend_entry<KindFactory (*)()>("ctrl_cuda_kind_factory")();
  } catch (const DeviceError& e) {
    throw DeviceError(fmt::format("{}: {}", spec.str(), e.what()));
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

namespace ctrl {

std::vector<GpuInfo> cuda_gpus(std::string* why_none) {
  std::vector<GpuInfo> gpus;
  std::string why;
#if CTRL_HAVE_CUDA_BACKEND
  try {
    detail::cuda_backend_entry<void (*)(std::vector<GpuInfo>*, std::string*)>("ctrl_cuda_gpus")(&gpus, &why);
  } catch (const DeviceError& e) {
    why = e.what();
  }
#else
  why = "this build has no CUDA backend (configure with -DCTRL_CUDA=ON where nvcc exists)";
#endif
  if (why_none != nullptr) *why_none = gpus.empty() ? why : std::string();
  return gpus;
}

}  // namespace ctrl
