#include "catalog/catalog.hpp"

#if APPS_HOST_CATALOG
#include <dlfcn.h>

#include <algorithm>
#include <mutex>
#endif

namespace apps {

const ctrl::loop::Catalog& catalog() {
  static const ctrl::loop::Catalog all = [] {
    ctrl::loop::Catalog c;
    c.add(dgemm_workload());
    c.add(fft2d_workload());
    c.add(fft2d_whole_workload());
    c.add(matadd_workload());
    c.add(blackscholes_parameters(), blackscholes_workload);
    c.add(matmul_workload());
    c.add(jacobi_parameters(), jacobi_workload);
    c.add(recurrence_parameters(), recurrence_workload);
    c.add(mandelbrot_parameters(), mandelbrot_workload);
    return c;
  }();
  return all;
}

#if APPS_HOST_CATALOG
namespace {

// The module's path: APPS_CUDA_CATALOG_DIR is relative to the program this catalog is linked into.
std::string cuda_catalog_path() {
  std::string dir;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuda_catalog_path), &info) != 0 && info.dli_fname != nullptr) {
    char resolved[4096];
    if (realpath(info.dli_fname, resolved) != nullptr) dir = resolved;
    dir.erase(dir.rfind('/') + 1);
  }
  return dir + APPS_CUDA_CATALOG_DIR "/" APPS_CUDA_CATALOG_FILE;
}

const ctrl::loop::Catalog& cuda_catalog() {
  static std::mutex m;
  static const ctrl::loop::Catalog* loaded = nullptr;
  const std::lock_guard lock(m);
  if (loaded != nullptr) return *loaded;
  const std::string path = cuda_catalog_path();
  // Kept for the life of the process: the workloads it makes run their kernels from it.
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr)
    throw ctrl::DeviceError(words("the applications' GPU build could not be loaded (", dlerror(),
                                  "): a GPU controller needs it installed beside the ctrl tool"));
  auto entry = reinterpret_cast<const ctrl::loop::Catalog* (*)()>(dlsym(lib, "ctrl_catalog_cuda"));
  if (entry == nullptr) throw ctrl::DeviceError(words(path, " is not the applications' GPU build: ", dlerror()));
  loaded = entry();
  return *loaded;
}

}  // namespace

const ctrl::loop::Catalog& catalog_for(const std::vector<ctrl::DeviceSpec>& devices) {
  const bool gpu = std::any_of(devices.begin(), devices.end(), [](const ctrl::DeviceSpec& d) { return d.is_cuda(); });
  return gpu ? cuda_catalog() : catalog();
}
#else
const ctrl::loop::Catalog& catalog_for(const std::vector<ctrl::DeviceSpec>&) { return catalog(); }
#endif

}  // namespace apps
