// NVML loaded with dlopen: the few declarations ctrl needs, a shared session, the GPU meter.
#include <ctrl/energy/nvml.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include <ctrl/errors.hpp>

namespace ctrl::energy::detail {

// From NVML's public API (nvml.h is not installed here). nvmlReturn_t is a C enum: int-sized.
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;
using nvmlReturn_t = int;
constexpr nvmlReturn_t NVML_SUCCESS = 0;
constexpr nvmlReturn_t NVML_ERROR_NOT_SUPPORTED = 3;
constexpr nvmlReturn_t NVML_ERROR_NOT_FOUND = 6;
constexpr unsigned NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96;

extern "C" {
using nvmlInit_v2_fn = nvmlReturn_t (*)();
using nvmlShutdown_fn = nvmlReturn_t (*)();
using nvmlDeviceGetCount_v2_fn = nvmlReturn_t (*)(unsigned* count);
using nvmlDeviceGetHandleByIndex_v2_fn = nvmlReturn_t (*)(unsigned index, nvmlDevice_t* device);
using nvmlDeviceGetTotalEnergyConsumption_fn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned long long* energy_mj);
using nvmlDeviceGetPowerUsage_fn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned* power_mw);
using nvmlDeviceGetName_fn = nvmlReturn_t (*)(nvmlDevice_t device, char* name, unsigned length);
using nvmlErrorString_fn = const char* (*)(nvmlReturn_t result);
using nvmlDeviceGetHandleByPciBusId_v2_fn = nvmlReturn_t (*)(const char* pci_bus_id, nvmlDevice_t* device);
using nvmlDeviceGetIndex_fn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned* index);
}

// One dlopen + nvmlInit_v2 per library path, shared by every meter and probe while any holds it.
class NvmlSession {
 public:
  // The session for `library`, or nullptr with `reason` set ("no sensor: ...").
  static std::shared_ptr<NvmlSession> open(const std::string& library, std::string& reason) {
    static std::mutex mutex;
    static std::map<std::string, std::weak_ptr<NvmlSession>> sessions;
    std::lock_guard lock(mutex);
    if (auto s = sessions[library].lock()) return s;
    auto s = std::shared_ptr<NvmlSession>(new NvmlSession(library));
    if (!s->reason_.empty()) {
      reason = s->reason_;
      return nullptr;
    }
    sessions[library] = s;
    return s;
  }

  NvmlSession(const NvmlSession&) = delete;
  NvmlSession& operator=(const NvmlSession&) = delete;

  ~NvmlSession() {
    if (initialised_) shutdown_();
    if (handle_) ::dlclose(handle_);
  }

  [[nodiscard]] std::string error(nvmlReturn_t r) const {
    const char* s = error_string_ ? error_string_(r) : nullptr;
    return s ? std::string(s) : "NVML error " + std::to_string(r);
  }

  nvmlDeviceGetCount_v2_fn count{};
  nvmlDeviceGetHandleByIndex_v2_fn handle_by_index{};
  nvmlDeviceGetTotalEnergyConsumption_fn total_energy{};
  nvmlDeviceGetPowerUsage_fn power_usage{};
  nvmlDeviceGetName_fn name{};
  nvmlDeviceGetHandleByPciBusId_v2_fn handle_by_bus_id{};  // null where the library lacks it
  nvmlDeviceGetIndex_fn device_index{};                    // null where the library lacks it

 private:
  explicit NvmlSession(const std::string& library) {
    handle_ = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) {
      const std::string why = ::dlerror();
      reason_ = no_sensor(why.find("No such file") != std::string::npos
                              ? library + " not found (is the NVIDIA driver installed?)"
                              : "cannot load " + library + ": " + why);
      return;
    }
    nvmlInit_v2_fn init{};
    if (!resolve(library, "nvmlInit_v2", init) || !resolve(library, "nvmlShutdown", shutdown_) ||
        !resolve(library, "nvmlErrorString", error_string_) || !resolve(library, "nvmlDeviceGetCount_v2", count) ||
        !resolve(library, "nvmlDeviceGetHandleByIndex_v2", handle_by_index) ||
        !resolve(library, "nvmlDeviceGetTotalEnergyConsumption", total_energy) ||
        !resolve(library, "nvmlDeviceGetPowerUsage", power_usage) || !resolve(library, "nvmlDeviceGetName", name)) {
      return;
    }
    // Only the match of GPUs by PCI bus id needs these: a library without them still meters by index.
    handle_by_bus_id =
        reinterpret_cast<nvmlDeviceGetHandleByPciBusId_v2_fn>(::dlsym(handle_, "nvmlDeviceGetHandleByPciBusId_v2"));
    device_index = reinterpret_cast<nvmlDeviceGetIndex_fn>(::dlsym(handle_, "nvmlDeviceGetIndex"));
    if (const nvmlReturn_t r = init(); r != NVML_SUCCESS) {
      reason_ = no_sensor("nvmlInit_v2 failed in " + library + ": " + error(r));
      return;
    }
    initialised_ = true;
  }

  template <class Fn>
  bool resolve(const std::string& library, const char* symbol, Fn& fn) {
    void* p = ::dlsym(handle_, symbol);
    if (!p) {
      reason_ = no_sensor(library + " lacks " + symbol + " (driver too old?)");
      return false;
    }
    // POSIX guarantees that a dlsym result converts to a function pointer.
    fn = reinterpret_cast<Fn>(p);
    return true;
  }

  void* handle_ = nullptr;
  bool initialised_ = false;
  std::string reason_;
  nvmlShutdown_fn shutdown_{};
  nvmlErrorString_fn error_string_{};
};

}  // namespace ctrl::energy::detail

namespace ctrl::energy {

using detail::NVML_SUCCESS;
using detail::nvmlDevice_t;
using detail::nvmlReturn_t;

namespace {

std::string device_name(const detail::NvmlSession& s, nvmlDevice_t dev) {
  char buf[detail::NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
  if (s.name(dev, buf, sizeof buf) != NVML_SUCCESS) return "unknown GPU";
  buf[sizeof buf - 1] = '\0';
  return buf;
}

std::string gpu_label(unsigned index, const std::string& name) {
  return "nvidia gpu " + std::to_string(index) + " (" + name + ")";
}

}  // namespace

NvmlProbe probe_nvml(const std::string& library) {
  NvmlProbe probe;
  std::string reason;
  const auto s = detail::NvmlSession::open(library, reason);
  if (!s) {
    probe.absent_reason = reason;
    return probe;
  }
  unsigned n = 0;
  if (const nvmlReturn_t r = s->count(&n); r != NVML_SUCCESS) {
    probe.absent_reason = no_sensor("nvmlDeviceGetCount_v2 failed: " + s->error(r));
    return probe;
  }
  for (unsigned i = 0; i < n; ++i) {
    NvmlGpu gpu;
    gpu.index = i;
    nvmlDevice_t dev = nullptr;
    if (const nvmlReturn_t r = s->handle_by_index(i, &dev); r != NVML_SUCCESS) {
      gpu.name = "unknown GPU";
      gpu.problem =
          no_sensor("nvidia gpu " + std::to_string(i) + ": nvmlDeviceGetHandleByIndex_v2 failed: " + s->error(r));
      probe.gpus.push_back(std::move(gpu));
      continue;
    }
    gpu.name = device_name(*s, dev);
    unsigned long long mj = 0;
    if (const nvmlReturn_t r = s->total_energy(dev, &mj); r == NVML_SUCCESS) {
      gpu.has_energy = true;
    } else {
      gpu.problem = no_sensor(gpu_label(i, gpu.name) + ": total energy counter unavailable: " + s->error(r));
    }
    probe.gpus.push_back(std::move(gpu));
  }
  return probe;
}

namespace {

// The hex number at id[at...] up to `end` (or the string's end when end is 0), at most 8 digits;
// false when there is none or something else follows.
bool hex_field(std::string_view id, std::size_t& at, char end, unsigned& value) {
  std::size_t digits = 0;
  value = 0;
  for (; at < id.size() && std::isxdigit(static_cast<unsigned char>(id[at])); ++at, ++digits) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(id[at])));
    value = value * 16 + static_cast<unsigned>(c <= '9' ? c - '0' : c - 'a' + 10);
  }
  if (digits == 0 || digits > 8) return false;
  if (end == '\0') return at == id.size();
  return at < id.size() && id[at++] == end;
}

}  // namespace

std::string canonical_pci_bus_id(std::string_view id) {
  // domain:bus:device.function, the domain optional (both CUDA's and NVML's forms, and "bus:device.function").
  const auto colons = std::count(id.begin(), id.end(), ':');
  if (colons < 1 || colons > 2) return {};
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  std::size_t at = 0;
  if (colons == 2 && !hex_field(id, at, ':', domain)) return {};
  if (!hex_field(id, at, ':', bus) || !hex_field(id, at, '.', device) || !hex_field(id, at, '\0', function)) return {};
  if (bus > 0xff || device > 0x1f || function > 0x7) return {};
  char out[32];
  std::snprintf(out, sizeof out, "%08X:%02X:%02X.%X", domain, bus, device, function);
  return out;
}

unsigned nvml_index_at_pci_bus_id(const std::string& pci_bus_id, const std::string& library) {
  const std::string canonical = canonical_pci_bus_id(pci_bus_id);
  const std::string what = "the GPU at PCI bus id " + pci_bus_id;
  if (canonical.empty()) throw UsageError(what + ": not a PCI bus id (domain:bus:device.function, in hex)");
  std::string reason;
  const auto s = detail::NvmlSession::open(library, reason);
  if (!s) throw DeviceError(what + ": " + reason);
  if (!s->handle_by_bus_id || !s->device_index) {
    throw DeviceError(what + ": " + library + " lacks nvmlDeviceGetHandleByPciBusId_v2 (driver too old?)");
  }
  nvmlDevice_t dev = nullptr;
  if (const nvmlReturn_t r = s->handle_by_bus_id(canonical.c_str(), &dev); r != NVML_SUCCESS) {
    throw DeviceError(what + ": " +
                      (r == detail::NVML_ERROR_NOT_FOUND ? std::string("NVML has no GPU there")
                                                         : "nvmlDeviceGetHandleByPciBusId_v2 failed: " + s->error(r)));
  }
  unsigned index = 0;
  if (const nvmlReturn_t r = s->device_index(dev, &index); r != NVML_SUCCESS) {
    throw DeviceError(what + ": nvmlDeviceGetIndex failed: " + s->error(r));
  }
  return index;
}

NvmlMeter::NvmlMeter(unsigned index, const std::string& library) : index_(index) {
  std::string reason;
  session_ = detail::NvmlSession::open(library, reason);
  if (!session_) throw DeviceError("nvidia gpu " + std::to_string(index) + ": " + reason);
  unsigned n = 0;
  if (const nvmlReturn_t r = session_->count(&n); r != NVML_SUCCESS) {
    throw DeviceError("nvidia gpu " + std::to_string(index) + ": nvmlDeviceGetCount_v2 failed: " + session_->error(r));
  }
  if (index >= n) {
    throw DeviceError("nvidia gpu " + std::to_string(index) + ": no such device; NVML sees " + std::to_string(n) +
                      " GPU(s)");
  }
  nvmlDevice_t dev = nullptr;
  if (const nvmlReturn_t r = session_->handle_by_index(index, &dev); r != NVML_SUCCESS) {
    throw DeviceError("nvidia gpu " + std::to_string(index) +
                      ": nvmlDeviceGetHandleByIndex_v2 failed: " + session_->error(r));
  }
  device_ = dev;
  const std::string name = device_name(*session_, dev);
  if (const nvmlReturn_t r = session_->total_energy(dev, &origin_mj_); r != NVML_SUCCESS) {
    throw DeviceError(gpu_label(index, name) + ": total energy counter unavailable: " + session_->error(r));
  }
  info_.name = "nvml:" + std::to_string(index);
  info_.measures = "whole-board energy of " + gpu_label(index, name);
  info_.update_interval_s = nvml_update_interval_s;
  info_.has_power = true;
}

NvmlMeter::~NvmlMeter() = default;

unsigned long long NvmlMeter::read_mj() const {
  unsigned long long mj = 0;
  const nvmlReturn_t r = session_->total_energy(static_cast<nvmlDevice_t>(device_), &mj);
  if (r != NVML_SUCCESS) {
    throw DeviceError(info_.measures + ": nvmlDeviceGetTotalEnergyConsumption failed: " + session_->error(r));
  }
  return mj;
}

std::optional<double> NvmlMeter::energy_j() {
  const unsigned long long mj = read_mj();
  // The counter runs from driver load; going backwards means the driver was reloaded and the
  // origin is meaningless.
  if (mj < origin_mj_) {
    throw DeviceError(info_.measures + ": energy counter went backwards (" + std::to_string(origin_mj_) + " -> " +
                      std::to_string(mj) + " mJ); was the driver reloaded?");
  }
  return static_cast<double>(mj - origin_mj_) * 1e-3;
}

std::optional<double> NvmlMeter::power_w() {
  unsigned mw = 0;
  const nvmlReturn_t r = session_->power_usage(static_cast<nvmlDevice_t>(device_), &mw);
  if (r == detail::NVML_ERROR_NOT_SUPPORTED) return std::nullopt;
  if (r != NVML_SUCCESS) {
    throw DeviceError(info_.measures + ": nvmlDeviceGetPowerUsage failed: " + session_->error(r));
  }
  return static_cast<double>(mw) * 1e-3;
}

}  // namespace ctrl::energy
