// GPU energy from NVIDIA's management library, loaded at run time.
//
// libnvidia-ml.so.1 ships with the driver, not with the CUDA toolkit, and no nvml.h is installed
// here: ctrl dlopen()s it and declares the handful of functions it calls. A machine without the
// driver (the CPU-only development machines) gets a "no sensor" meter with dlopen's reason.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <ctrl/energy/meter.hpp>

namespace ctrl::energy {

inline constexpr const char* default_nvml_library = "libnvidia-ml.so.1";

// The total-energy counter is refreshed about 10 times a second (bench/results/energy-h100.md).
inline constexpr double nvml_update_interval_s = 0.1;

// One GPU as NVML sees it.
struct NvmlGpu {
  unsigned index = 0;
  std::string name;         // "NVIDIA H200"
  bool has_energy = false;  // total-energy counter supported (Volta and later)
  std::string problem;      // why not, when has_energy is false
};

// What NVML says about this machine.
struct NvmlProbe {
  std::vector<NvmlGpu> gpus;
  std::string absent_reason;  // "no sensor: libnvidia-ml.so.1 not found (...)"
  [[nodiscard]] bool present() const { return absent_reason.empty(); }
};

// Loads NVML (once per library path and process while a meter or probe holds it), initialises
// it and lists the GPUs. Never throws for an absent or failing library.
[[nodiscard]] NvmlProbe probe_nvml(const std::string& library = default_nvml_library);

// A PCI bus id in NVML's form, "00000000:17:00.0" (8 hex digits of domain, upper case), from
// CUDA's ("0000:17:00.0", cudaDeviceGetPCIBusId), NVML's, or one without the domain
// ("17:00.0"); empty when `id` is not a bus id. Two ids name one device when these are equal.
[[nodiscard]] std::string canonical_pci_bus_id(std::string_view id);

// NVML's index of the GPU at this PCI bus id (any form canonical_pci_bus_id reads): how a CUDA
// device is matched to its NVML meter whatever order CUDA numbers devices in (CUDA_DEVICE_ORDER).
// Throws UsageError for an id that is not one, DeviceError when NVML cannot be loaded, lacks the
// call, or has no GPU there.
[[nodiscard]] unsigned nvml_index_at_pci_bus_id(const std::string& pci_bus_id,
                                                const std::string& library = default_nvml_library);

namespace detail {
class NvmlSession;  // the loaded library and its entry points (src/energy/nvml.cpp)
}

// The board energy of one GPU: nvmlDeviceGetTotalEnergyConsumption (mJ since driver load)
// relative to the first reading, and nvmlDeviceGetPowerUsage (mW) as instantaneous power.
class NvmlMeter final : public Meter {
 public:
  // Throws DeviceError when NVML cannot be loaded or initialised, when there is no GPU `index`
  // or when its energy counter is unsupported; the message names the GPU and NVML's reason.
  // (make_meter() turns the library's absence into a NoMeter instead.)
  explicit NvmlMeter(unsigned index, const std::string& library = default_nvml_library);
  ~NvmlMeter() override;

  [[nodiscard]] const MeterInfo& info() const override { return info_; }
  [[nodiscard]] bool available() const override { return true; }
  [[nodiscard]] std::optional<double> energy_j() override;
  [[nodiscard]] std::optional<double> power_w() override;

  [[nodiscard]] unsigned index() const { return index_; }

 private:
  [[nodiscard]] unsigned long long read_mj() const;

  std::shared_ptr<detail::NvmlSession> session_;
  void* device_ = nullptr;  // nvmlDevice_t, opaque
  unsigned index_;
  unsigned long long origin_mj_ = 0;
  MeterInfo info_;
};

}  // namespace ctrl::energy
