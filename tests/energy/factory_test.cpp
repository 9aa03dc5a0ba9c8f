// Which meter a device gets, and the `ctrl devices` listing.
#include <gtest/gtest.h>
#include <dlfcn.h>

#include <cerrno>
#include <string>

#include <ctrl/energy.hpp>

#include "test_support.hpp"

namespace ce = ctrl::energy;
namespace fs = std::filesystem;
using ce::testing::TempDir;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// No powercap but the fixture's, no NVML, and no CPU estimate: no /proc/cpuinfo to rate the CPU
// by and no /proc/stat (whatever this machine's CPU is, tests must not depend on it).
ce::MeterEnvironment fixture_env(const fs::path& root) {
  ce::MeterEnvironment env;
  env.powercap_root = root;
  env.nvml_library = "libnvidia-ml-absent.so.1";
  env.estimate.cpuinfo = root / "no-cpuinfo";
  env.estimate.proc_stat = root / "no-stat";
  return env;
}

// Loads and resets the fake NVML library, and keeps it loaded: its state (two GPUs) would be
// lost if the last handle closed between ctrl's probe and its meter.
class FakeNvmlLoaded {
 public:
  FakeNvmlLoaded() : handle_(::dlopen(CTRL_FAKE_NVML, RTLD_NOW | RTLD_LOCAL)) {
    EXPECT_NE(handle_, nullptr) << ::dlerror();
    if (handle_) reinterpret_cast<void (*)()>(::dlsym(handle_, "fake_nvml_reset"))();
  }
  FakeNvmlLoaded(const FakeNvmlLoaded&) = delete;
  FakeNvmlLoaded& operator=(const FakeNvmlLoaded&) = delete;
  ~FakeNvmlLoaded() {
    if (handle_) ::dlclose(handle_);
  }

 private:
  void* handle_;
};

}  // namespace

TEST(MakeMeter, NoneDeviceIsAnExplicitAbsence) {
  const auto m = ce::make_meter(ce::DeviceSpec::none("simulated"));
  EXPECT_FALSE(m->available());
  EXPECT_EQ(m->info().name, "none:simulated");
  EXPECT_EQ(m->absent_reason(), "no sensor: device has no energy meter");
  EXPECT_FALSE(m->energy_j().has_value());
}

TEST(MakeMeter, CpuPackagesWithoutPowercapGiveNoSensor) {
  TempDir tmp;
  const auto m = ce::make_meter(ce::DeviceSpec::cpu({0}), fixture_env(tmp.path() / "absent"));
  EXPECT_FALSE(m->available());
  EXPECT_EQ(m->info().provenance, ce::Provenance::absent);
  // No counter, and no estimate either: both reasons.
  EXPECT_EQ(m->absent_reason().rfind("no sensor: " + (tmp.path() / "absent").string() + " absent; no estimate: ", 0),
            0U)
      << m->absent_reason();
}

TEST(MakeMeter, CpuPackageSetSumsPackagesAndDram) {
  TempDir tmp;
  ce::testing::write_two_socket_tree(tmp.path());
  const auto env = fixture_env(tmp.path());
  const auto both = ce::make_meter(ce::DeviceSpec::cpu({1, 0}), env);
  ASSERT_TRUE(both->available()) << both->absent_reason();
  EXPECT_EQ(both->info().name, "rapl:package-0+package-0/dram+package-1+package-1/dram");
  const auto pkg_only = ce::make_meter(ce::DeviceSpec::cpu({1}, /*with_dram=*/false), env);
  EXPECT_EQ(pkg_only->info().name, "rapl:package-1");

  ce::testing::write_file(tmp.path() / "intel-rapl:1" / "energy_uj", "4000000\n");   // +1 J
  ce::testing::write_file(tmp.path() / "intel-rapl:1:0" / "energy_uj", "750000\n");  // +0.25 J
  EXPECT_NEAR(*both->energy_j(), 1.25, 1e-12);
  EXPECT_NEAR(*pkg_only->energy_j(), 1.0, 1e-12);
}

TEST(MakeMeter, IllFormedOrMissingDevicesThrow) {
  TempDir tmp;
  ce::testing::write_two_socket_tree(tmp.path());
  const auto env = fixture_env(tmp.path());
  EXPECT_THROW((void)ce::make_meter(ce::DeviceSpec::cpu({}), env), ctrl::UsageError);
  EXPECT_THROW((void)ce::make_meter(ce::DeviceSpec::cpu({0, 0}), env), ctrl::UsageError);
  EXPECT_THROW((void)ce::make_meter(ce::DeviceSpec::cpu({-1}), env), ctrl::UsageError);
  try {
    (void)ce::make_meter(ce::DeviceSpec::cpu({3}), env);
    FAIL() << "package 3 on a two-socket machine";
  } catch (const ctrl::DeviceError& e) {
    EXPECT_TRUE(contains(e.what(), "no RAPL zone package-3")) << e.what();
    EXPECT_TRUE(contains(e.what(), "found: package-0, package-1")) << e.what();
  }
}

TEST(MakeMeter, UnreadableCounterGivesNoSensorWithTheFix) {
  TempDir tmp;
  ce::testing::write_two_socket_tree(tmp.path());
  auto env = fixture_env(tmp.path());
  env.reader = [](const fs::path& f) -> ce::FileRead {
    if (f.filename() == "energy_uj") return {"", EACCES};
    return ce::read_small_file(f);
  };
  const auto m = ce::make_meter(ce::DeviceSpec::cpu({0}), env);
  EXPECT_FALSE(m->available());
  EXPECT_TRUE(contains(m->absent_reason(), "no sensor: cannot read ")) << m->absent_reason();
  EXPECT_TRUE(contains(m->absent_reason(), "sudo chmod o+r")) << m->absent_reason();
}

TEST(MakeMeter, GpuWithoutNvmlGivesNoSensorAndWithFakeNvmlAMeter) {
  const auto absent = ce::make_meter(ce::DeviceSpec::nvidia(0), fixture_env("/nonexistent"));
  EXPECT_FALSE(absent->available());
  EXPECT_TRUE(contains(absent->absent_reason(), "libnvidia-ml-absent.so.1 not found"));

  const FakeNvmlLoaded fake;
  ce::MeterEnvironment env;
  env.nvml_library = CTRL_FAKE_NVML;
  const auto gpu = ce::make_meter(ce::DeviceSpec::nvidia(0), env);
  EXPECT_TRUE(gpu->available());
  EXPECT_EQ(gpu->info().name, "nvml:0");
  // A board without a total-energy counter is absence, not an error.
  const auto old = ce::make_meter(ce::DeviceSpec::nvidia(1), env);
  EXPECT_FALSE(old->available());
  EXPECT_TRUE(contains(old->absent_reason(), "Not Supported")) << old->absent_reason();
  EXPECT_THROW((void)ce::make_meter(ce::DeviceSpec::nvidia(2), env), ctrl::DeviceError);
}

// A GPU matched by PCI bus id gets NVML's meter at that id whatever index it is given (CUDA's
// numbering may differ from NVML's PCI order).
TEST(MakeMeter, GpuMatchedByPciBusIdNotByIndex) {
  const FakeNvmlLoaded fake;
  ce::MeterEnvironment env;
  env.nvml_library = CTRL_FAKE_NVML;
  const auto gpu = ce::make_meter(ce::DeviceSpec::nvidia(1, "0000:17:00.0"), env);  // CUDA's 1 is NVML's 0
  EXPECT_TRUE(gpu->available());
  EXPECT_EQ(gpu->info().name, "nvml:0");
  const auto old = ce::make_meter(ce::DeviceSpec::nvidia(0, "0000:b3:00.0"), env);
  EXPECT_FALSE(old->available());
  EXPECT_TRUE(contains(old->absent_reason(), "Fake K80")) << old->absent_reason();
  EXPECT_THROW((void)ce::make_meter(ce::DeviceSpec::nvidia(0, "0000:65:00.0"), env), ctrl::DeviceError);
  const auto absent = ce::make_meter(ce::DeviceSpec::nvidia(0, "0000:17:00.0"), fixture_env("/nonexistent"));
  EXPECT_FALSE(absent->available());
}

TEST(ListMeters, NamesEveryZoneAndGpuOrWhyAbsent) {
  TempDir tmp;
  ce::testing::write_two_socket_tree(tmp.path());
  const FakeNvmlLoaded fake;
  ce::MeterEnvironment env;
  env.powercap_root = tmp.path();
  env.nvml_library = CTRL_FAKE_NVML;
  const auto list = ce::list_meters(env);
  ASSERT_EQ(list.size(), 8u);  // five RAPL zones, the estimate, two GPUs
  EXPECT_EQ(list[0].name, "rapl:package-0");
  EXPECT_TRUE(list[0].present);
  EXPECT_TRUE(contains(list[0].measures, "not DRAM"));
  EXPECT_EQ(list[2].name, "rapl:package-0/dram");
  EXPECT_EQ(list[5].name, "estimate");
  EXPECT_EQ(list[5].provenance, ce::Provenance::estimated);
  EXPECT_EQ(list[6].name, "nvml:0");
  EXPECT_TRUE(list[6].present);
  EXPECT_DOUBLE_EQ(list[6].update_interval_s, 0.1);
  EXPECT_EQ(list[7].name, "nvml:1");
  EXPECT_FALSE(list[7].present);
  EXPECT_TRUE(contains(list[7].reason, "no sensor: ")) << list[7].reason;
}

TEST(ListMeters, AbsentFamiliesGetOneLineEachWithTheReason) {
  TempDir tmp;
  const auto list = ce::list_meters(fixture_env(tmp.path() / "absent"));
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].name, "rapl");
  EXPECT_FALSE(list[0].present);
  EXPECT_EQ(list[0].reason, "no sensor: " + (tmp.path() / "absent").string() + " absent");
  EXPECT_EQ(list[1].name, "estimate");
  EXPECT_FALSE(list[1].present);
  EXPECT_TRUE(contains(list[1].reason, "no estimate: ")) << list[1].reason;
  EXPECT_TRUE(contains(list[1].reason, "--cpu-power")) << list[1].reason;
  EXPECT_EQ(list[2].name, "nvml");
  EXPECT_TRUE(contains(list[2].reason, "not found")) << list[2].reason;

  // A malformed sysfs file is listed, not thrown: the other meters still show.
  ce::testing::write_zone(tmp.path(), "intel-rapl:0", "package-0", 1, 0);  // range 0: malformed
  const auto bad = ce::list_meters(fixture_env(tmp.path()));
  ASSERT_EQ(bad.size(), 3u);
  EXPECT_TRUE(contains(bad[0].reason, "max_energy_range_uj")) << bad[0].reason;
}

TEST(ListMeters, DefaultEnvironmentNeverThrows) {
  std::vector<ce::MeterListing> list;
  ASSERT_NO_THROW(list = ce::list_meters());
  ASSERT_GE(list.size(), 2u);
  for (const auto& l : list) {
    EXPECT_EQ(l.present, l.reason.empty()) << l.name << ": " << l.reason;
  }
}
