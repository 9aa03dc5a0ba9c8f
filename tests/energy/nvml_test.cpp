// The NVML meter, against a fake libnvidia-ml built beside the tests (CTRL_FAKE_NVML is its
// path) and against whatever this machine has.
#include <gtest/gtest.h>
#include <dlfcn.h>

#include <chrono>
#include <iostream>
#include <string>

#include <ctrl/energy.hpp>

#include "ticking_clock.hpp"

namespace ce = ctrl::energy;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Steers the fake library: dlopen of the same path yields the instance ctrl loads.
class FakeNvml : public ::testing::Test {
 protected:
  void SetUp() override {
    handle_ = ::dlopen(CTRL_FAKE_NVML, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle_, nullptr) << ::dlerror();
    call<void (*)()>("fake_nvml_reset")();
  }
  void TearDown() override {
    if (handle_) ::dlclose(handle_);
  }
  template <class Fn>
  Fn call(const char* name) {
    void* p = ::dlsym(handle_, name);
    EXPECT_NE(p, nullptr) << name;
    return reinterpret_cast<Fn>(p);
  }
  void set_energy_mj(unsigned i, unsigned long long mj) {
    call<void (*)(unsigned, unsigned long long)>("fake_nvml_set_energy_mj")(i, mj);
  }
  const std::string lib_ = CTRL_FAKE_NVML;

 private:
  void* handle_ = nullptr;
};

}  // namespace

TEST(Nvml, MissingLibraryIsNoSensorWithTheReason) {
  const ce::NvmlProbe probe = ce::probe_nvml("libnvidia-ml-absent.so.1");
  EXPECT_FALSE(probe.present());
  EXPECT_EQ(probe.absent_reason.rfind("no sensor: libnvidia-ml-absent.so.1 not found", 0), 0u) << probe.absent_reason;
  try {
    ce::NvmlMeter m(0, "libnvidia-ml-absent.so.1");
    FAIL() << "a meter without its library";
  } catch (const ctrl::DeviceError& e) {
    EXPECT_TRUE(contains(e.what(), "nvidia gpu 0")) << e.what();
  }
}

TEST(Nvml, ThisMachineIsReportedHonestly) {
  // The development machine has no driver: "libnvidia-ml.so.1 not found". On a GPU machine
  // every GPU with a counter must show a plausible idle power, measured from the counter.
  const ce::NvmlProbe probe = ce::probe_nvml();
  if (!probe.present()) {
    EXPECT_TRUE(contains(probe.absent_reason, "no sensor: ")) << probe.absent_reason;
    return;
  }
  for (const ce::MeterListing& l : ce::list_meters()) {
    std::cout << "  " << l.name << ": " << (l.present ? l.measures : l.reason) << "\n";
  }
  for (const ce::NvmlGpu& g : probe.gpus) {
    if (!g.has_energy) continue;
    ce::NvmlMeter m(g.index);
    const auto p = m.power_w();
    ASSERT_TRUE(p.has_value()) << g.name;
    EXPECT_GT(*p, 1.0) << g.name;
    EXPECT_LT(*p, 2000.0) << g.name;
    // One second spans about ten counter updates: the counter must have moved.
    const ce::BasePower b = ce::measure_base_power(m, std::chrono::seconds{1});
    ASSERT_TRUE(b.watts.has_value()) << b.absent_reason;
    std::cout << "  gpu " << g.index << " (" << g.name << "): " << *b.watts << " W over " << b.seconds << " s, "
              << b.samples << " samples, instantaneous " << *b.min_power_w << ".." << *b.max_power_w << " W\n";
    EXPECT_GT(*b.watts, 1.0);
    EXPECT_LT(*b.watts, 2000.0);
    // The whole second was sampled. How many samples fit in it depends on how often this thread
    // got a core, which a loaded machine decides: at least the first and the last.
    EXPECT_GE(b.seconds, 1.0);
    EXPECT_GE(b.samples, 2u);
  }
}

TEST_F(FakeNvml, ProbeListsGpusAndWhichHaveACounter) {
  const ce::NvmlProbe probe = ce::probe_nvml(lib_);
  ASSERT_TRUE(probe.present()) << probe.absent_reason;
  ASSERT_EQ(probe.gpus.size(), 2u);
  EXPECT_EQ(probe.gpus[0].name, "Fake H200");
  EXPECT_TRUE(probe.gpus[0].has_energy);
  EXPECT_FALSE(probe.gpus[1].has_energy);
  EXPECT_TRUE(contains(probe.gpus[1].problem, "nvidia gpu 1 (Fake K80)")) << probe.gpus[1].problem;
  EXPECT_TRUE(contains(probe.gpus[1].problem, "Not Supported")) << probe.gpus[1].problem;
  // Init and shutdown pair up once the probe lets go of the library.
  EXPECT_EQ(call<int (*)()>("fake_nvml_init_calls")(), 1);
  EXPECT_EQ(call<int (*)()>("fake_nvml_shutdown_calls")(), 1);
}

TEST_F(FakeNvml, MeterReadsJoulesFromTheMillijouleCounterAndWatts) {
  ce::NvmlMeter m(0, lib_);
  EXPECT_EQ(m.info().name, "nvml:0");
  EXPECT_TRUE(contains(m.info().measures, "Fake H200"));
  EXPECT_DOUBLE_EQ(m.info().update_interval_s, 0.1);
  EXPECT_TRUE(m.info().has_power);
  EXPECT_DOUBLE_EQ(*m.energy_j(), 0.0);
  set_energy_mj(0, 1'000'000 + 31'250);  // +31.25 J
  EXPECT_DOUBLE_EQ(*m.energy_j(), 31.25);
  EXPECT_DOUBLE_EQ(*m.power_w(), 75.0);

  // A second meter on the same GPU shares the session: NVML is initialised once.
  {
    ce::NvmlMeter again(0, lib_);
    EXPECT_DOUBLE_EQ(*again.energy_j(), 0.0);  // its own origin
  }
  EXPECT_EQ(call<int (*)()>("fake_nvml_init_calls")(), 1);

  // The counter going backwards (driver reloaded) is an error, not a negative energy.
  set_energy_mj(0, 5);
  EXPECT_THROW((void)m.energy_j(), ctrl::DeviceError);
}

TEST_F(FakeNvml, MeasurementAndDynamicEnergyOnTheFakeGpu) {
  ce::NvmlMeter m(0, lib_);
  ctrl::test::TickingClock clock;  // the window lasts a few ticks, however slow the machine
  ce::Measurement meas(m, clock);
  meas.start();
  set_energy_mj(0, 1'000'000 + 620'000);  // 620 J during the window
  const ce::EnergyWindow w = meas.stop();
  ASSERT_TRUE(w.energy_j.has_value());
  EXPECT_DOUBLE_EQ(*w.energy_j, 620.0);
  EXPECT_NEAR(*w.dynamic_j(100.0), 620.0 - 100.0 * w.seconds, 1e-9);
  EXPECT_FALSE(w.resolved());  // far below 4 s at 0.1 s updates
}

TEST_F(FakeNvml, FailuresNameTheGpuAndNvmlsReason) {
  try {
    ce::NvmlMeter m(1, lib_);  // no total-energy counter on this board
    FAIL() << "meter on an unsupported board";
  } catch (const ctrl::DeviceError& e) {
    EXPECT_TRUE(contains(e.what(), "nvidia gpu 1 (Fake K80)")) << e.what();
    EXPECT_TRUE(contains(e.what(), "Not Supported")) << e.what();
  }
  try {
    ce::NvmlMeter m(7, lib_);
    FAIL() << "meter on a GPU that does not exist";
  } catch (const ctrl::DeviceError& e) {
    EXPECT_TRUE(contains(e.what(), "nvidia gpu 7: no such device; NVML sees 2 GPU(s)")) << e.what();
  }

  call<void (*)(int)>("fake_nvml_set_init_result")(9);  // NVML_ERROR_DRIVER_NOT_LOADED
  const ce::NvmlProbe probe = ce::probe_nvml(lib_);
  EXPECT_FALSE(probe.present());
  EXPECT_TRUE(contains(probe.absent_reason, "nvmlInit_v2 failed")) << probe.absent_reason;
  EXPECT_TRUE(contains(probe.absent_reason, "Driver Not Loaded")) << probe.absent_reason;
}

TEST_F(FakeNvml, ASensorLostMidRunThrows) {
  ce::NvmlMeter m(0, lib_);
  call<void (*)(unsigned, int)>("fake_nvml_set_energy_result")(0, 15);  // GPU is lost
  try {
    (void)m.energy_j();
    FAIL() << "a lost GPU read as energy";
  } catch (const ctrl::DeviceError& e) {
    EXPECT_TRUE(contains(e.what(), "nvmlDeviceGetTotalEnergyConsumption failed")) << e.what();
  }
}

// CUDA writes a bus id with 4 digits of domain and lower-case hex, NVML with 8 and upper case:
// both, and the form without a domain, name one device.
TEST(Nvml, PciBusIdsOfCudaAndNvmlFormsAreOneId) {
  EXPECT_EQ(ce::canonical_pci_bus_id("0000:17:00.0"), "00000000:17:00.0");
  EXPECT_EQ(ce::canonical_pci_bus_id("00000000:17:00.0"), "00000000:17:00.0");
  EXPECT_EQ(ce::canonical_pci_bus_id("0000:b3:00.0"), "00000000:B3:00.0");
  EXPECT_EQ(ce::canonical_pci_bus_id("00000000:B3:00.0"), "00000000:B3:00.0");
  EXPECT_EQ(ce::canonical_pci_bus_id("b3:00.0"), "00000000:B3:00.0");
  EXPECT_EQ(ce::canonical_pci_bus_id("0001:0a:1f.7"), "00000001:0A:1F.7");
  EXPECT_NE(ce::canonical_pci_bus_id("0000:17:00.0"), ce::canonical_pci_bus_id("0000:18:00.0"));
  for (const char* bad : {"", "17", "0000:17:00", "0000:17:00.", "0000:17:20.0", "0000:17:00.8", "0000:100:00.0",
                          "0000:17:00.0 ", "x000:17:00.0", "0:0:0:00.0", "000000000:17:00.0"}) {
    EXPECT_EQ(ce::canonical_pci_bus_id(bad), "") << bad;
  }
}

TEST_F(FakeNvml, GpusAreFoundByPciBusIdInEitherForm) {
  EXPECT_EQ(ce::nvml_index_at_pci_bus_id("0000:17:00.0", lib_), 0u);
  EXPECT_EQ(ce::nvml_index_at_pci_bus_id("0000:b3:00.0", lib_), 1u);  // as cudaDeviceGetPCIBusId writes it
  EXPECT_EQ(ce::nvml_index_at_pci_bus_id("00000000:B3:00.0", lib_), 1u);
  try {
    (void)ce::nvml_index_at_pci_bus_id("0000:65:00.0", lib_);
    FAIL() << "a bus id with no GPU";
  } catch (const ctrl::DeviceError& e) {
    EXPECT_TRUE(contains(e.what(), "PCI bus id 0000:65:00.0: NVML has no GPU there")) << e.what();
  }
  EXPECT_THROW((void)ce::nvml_index_at_pci_bus_id("cuda:0", lib_), ctrl::UsageError);
  EXPECT_THROW((void)ce::nvml_index_at_pci_bus_id("0000:17:00.0", "libnvidia-ml-absent.so.1"), ctrl::DeviceError);
}
