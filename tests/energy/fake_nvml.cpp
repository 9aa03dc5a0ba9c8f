// A stand-in for libnvidia-ml.so.1, built as a shared library and dlopen()ed by path, so the
// NVML meter's loading, error and reading paths run on machines without a GPU. Tests steer it
// through the fake_nvml_* functions (they dlopen the same path and get the same instance).
//
// Only the entry points ctrl uses exist, with NVML's C signatures and return codes.
#include <cstdio>
#include <cstring>

namespace {

constexpr int kSuccess = 0;
constexpr int kUninitialized = 1;
constexpr int kInvalidArgument = 2;
constexpr int kNotSupported = 3;
constexpr int kNotFound = 6;
constexpr int kDriverNotLoaded = 9;
constexpr unsigned kMaxGpus = 4;

struct FakeGpu {
  char name[64];
  char bus_id[32];  // NVML's form: "00000000:17:00.0"
  unsigned long long energy_mj;
  unsigned power_mw;
  int energy_result;
  int power_result;
};

struct State {
  int init_result = kSuccess;
  unsigned count = 0;
  int init_calls = 0;
  int shutdown_calls = 0;
  int live = 0;  // nvmlInit_v2 minus nvmlShutdown, as NVML reference-counts them
  FakeGpu gpus[kMaxGpus] = {};
};

State g;

FakeGpu* gpu_of(void* handle) {
  for (auto& gpu : g.gpus) {
    if (handle == &gpu) return &gpu;
  }
  return nullptr;
}

}  // namespace

extern "C" {

// ---- control, for tests ------------------------------------------------------------------------
void fake_nvml_reset() {
  g = State{};
  g.count = 2;
  std::snprintf(g.gpus[0].name, sizeof g.gpus[0].name, "Fake H200");
  std::snprintf(g.gpus[1].name, sizeof g.gpus[1].name, "Fake K80");
  // In PCI order, as NVML numbers them; the K80 sits at a bus number with hex letters.
  std::snprintf(g.gpus[0].bus_id, sizeof g.gpus[0].bus_id, "00000000:17:00.0");
  std::snprintf(g.gpus[1].bus_id, sizeof g.gpus[1].bus_id, "00000000:B3:00.0");
  g.gpus[0].energy_mj = 1'000'000;
  g.gpus[0].power_mw = 75'000;
  g.gpus[1].energy_mj = 0;
  g.gpus[1].energy_result = kNotSupported;  // pre-Volta boards have no total-energy counter
  g.gpus[1].power_result = kNotSupported;
}
void fake_nvml_set_init_result(int r) { g.init_result = r; }
void fake_nvml_set_count(unsigned n) { g.count = n < kMaxGpus ? n : kMaxGpus; }
void fake_nvml_set_energy_mj(unsigned i, unsigned long long mj) { g.gpus[i].energy_mj = mj; }
void fake_nvml_set_power_mw(unsigned i, unsigned mw) { g.gpus[i].power_mw = mw; }
void fake_nvml_set_energy_result(unsigned i, int r) { g.gpus[i].energy_result = r; }
int fake_nvml_init_calls() { return g.init_calls; }
int fake_nvml_shutdown_calls() { return g.shutdown_calls; }

// ---- the NVML entry points ctrl uses --------------------------------------------------------
int nvmlInit_v2() {
  ++g.init_calls;
  if (g.init_result != kSuccess) return g.init_result;
  ++g.live;
  return kSuccess;
}

int nvmlShutdown() {
  ++g.shutdown_calls;
  if (g.live == 0) return kUninitialized;
  --g.live;
  return kSuccess;
}

const char* nvmlErrorString(int r) {
  switch (r) {
    case kSuccess:
      return "Success";
    case kUninitialized:
      return "Uninitialized";
    case kInvalidArgument:
      return "Invalid Argument";
    case kNotSupported:
      return "Not Supported";
    case kNotFound:
      return "Not Found";
    case kDriverNotLoaded:
      return "Driver Not Loaded";
    default:
      return "Unknown Error";
  }
}

int nvmlDeviceGetCount_v2(unsigned* count) {
  if (g.live == 0) return kUninitialized;
  if (!count) return kInvalidArgument;
  *count = g.count;
  return kSuccess;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** device) {
  if (g.live == 0) return kUninitialized;
  if (!device || index >= g.count) return kInvalidArgument;
  *device = &g.gpus[index];
  return kSuccess;
}

// NVML accepts several forms of the id; ctrl passes NVML's own, which is all the fake knows.
int nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, void** device) {
  if (g.live == 0) return kUninitialized;
  if (!bus_id || !device) return kInvalidArgument;
  for (unsigned i = 0; i < g.count; ++i) {
    if (std::strcmp(g.gpus[i].bus_id, bus_id) == 0) {
      *device = &g.gpus[i];
      return kSuccess;
    }
  }
  return kNotFound;
}

int nvmlDeviceGetIndex(void* device, unsigned* index) {
  FakeGpu* gpu = gpu_of(device);
  if (!gpu || !index) return kInvalidArgument;
  *index = static_cast<unsigned>(gpu - g.gpus);
  return kSuccess;
}

int nvmlDeviceGetName(void* device, char* name, unsigned length) {
  FakeGpu* gpu = gpu_of(device);
  if (!gpu || !name || length == 0) return kInvalidArgument;
  std::snprintf(name, length, "%s", gpu->name);
  return kSuccess;
}

int nvmlDeviceGetTotalEnergyConsumption(void* device, unsigned long long* energy) {
  FakeGpu* gpu = gpu_of(device);
  if (!gpu || !energy) return kInvalidArgument;
  if (gpu->energy_result != kSuccess) return gpu->energy_result;
  *energy = gpu->energy_mj;
  return kSuccess;
}

int nvmlDeviceGetPowerUsage(void* device, unsigned* power) {
  FakeGpu* gpu = gpu_of(device);
  if (!gpu || !power) return kInvalidArgument;
  if (gpu->power_result != kSuccess) return gpu->power_result;
  *power = gpu->power_mw;
  return kSuccess;
}

}  // extern "C"
