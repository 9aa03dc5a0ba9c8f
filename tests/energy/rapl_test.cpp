// RAPL through powercap, against fixture trees laid out like /sys/class/powercap.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>

#include <ctrl/energy.hpp>

#include "test_support.hpp"

namespace ce = ctrl::energy;
namespace fs = std::filesystem;
using ce::testing::TempDir;
using ce::testing::write_file;
using ce::testing::write_zone;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A reader that answers EACCES for energy_uj, as a non-root user sees on Linux >= 5.10. Tests
// run as root here, where chmod cannot deny a read, so the permission path is injected.
ce::FileRead deny_energy(const fs::path& file) {
  if (file.filename() == "energy_uj") return {"", EACCES};
  return ce::read_small_file(file);
}

}  // namespace

TEST(RaplScan, FindsPackagesAndSubzonesInOrder) {
  TempDir tmp;
  ce::testing::write_two_socket_tree(tmp.path());
  const ce::RaplScan scan = ce::scan_rapl(tmp.path());
  ASSERT_TRUE(scan.present()) << scan.absent_reason;
  ASSERT_EQ(scan.zones.size(), 5u);  // intel-rapl (control type) and intel-rapl-mmio skipped
  EXPECT_EQ(scan.zones[0].zone, "intel-rapl:0");
  EXPECT_EQ(scan.zones[0].label(), "package-0");
  EXPECT_TRUE(scan.zones[0].is_package());
  EXPECT_EQ(scan.zones[0].max_range_uj, 262143328850ULL);
  EXPECT_EQ(scan.zones[1].label(), "package-0/core");
  EXPECT_EQ(scan.zones[2].label(), "package-0/dram");
  EXPECT_EQ(scan.zones[2].max_range_uj, 65532610987ULL);
  EXPECT_EQ(scan.zones[3].label(), "package-1");
  EXPECT_EQ(scan.zones[4].label(), "package-1/dram");
  EXPECT_EQ(scan.zones[4].package, 1);
  for (const auto& z : scan.zones) EXPECT_TRUE(z.readable()) << z.problem;
}

TEST(RaplScan, AbsentRootSaysSo) {
  TempDir tmp;
  const ce::RaplScan scan = ce::scan_rapl(tmp.path() / "powercap");
  EXPECT_FALSE(scan.present());
  EXPECT_EQ(scan.absent_reason, "no sensor: " + (tmp.path() / "powercap").string() + " absent");
  EXPECT_TRUE(scan.zones.empty());

  const ce::RaplScan empty = ce::scan_rapl(tmp.path());
  EXPECT_FALSE(empty.present());
  EXPECT_TRUE(contains(empty.absent_reason, "no intel-rapl zones under")) << empty.absent_reason;
}

TEST(RaplScan, ThisMachineIsReportedHonestly) {
  // Neither the development machine nor the GPU machine has powercap; a machine that has it
  // must list at least one zone. Either way nothing is invented.
  const ce::RaplScan scan = ce::scan_rapl();
  if (!fs::exists(ce::default_powercap_root)) {
    EXPECT_EQ(scan.absent_reason, "no sensor: /sys/class/powercap absent");
  } else if (scan.present()) {
    EXPECT_FALSE(scan.zones.empty());
  } else {
    EXPECT_TRUE(contains(scan.absent_reason, "no sensor: ")) << scan.absent_reason;
  }
}

TEST(WrapCounter, AccumulatesAcrossAWrap) {
  ce::WrapCounter c(900, 999);  // counts 0..999, then wraps to 0
  EXPECT_EQ(c.update(950), 50u);
  EXPECT_EQ(c.update(950), 50u);                  // no change between counter updates
  EXPECT_EQ(c.update(10), 50u + 49u + 1u + 10u);  // 950 → 999 → 0 → 10
  EXPECT_EQ(c.wraps(), 1u);
  EXPECT_EQ(c.update(500), 600u);
  EXPECT_THROW(c.update(1000), ctrl::DeviceError);  // beyond the documented range
}

TEST(RaplMeter, FollowsAWrapAroundSequenceRewrittenBetweenReads) {
  TempDir tmp;
  const fs::path root = tmp.path();
  write_zone(root, "intel-rapl:0", "package-0", 999'000'000, 999'999'999);  // wraps after ~1 kJ
  const ce::RaplScan scan = ce::scan_rapl(root);
  ASSERT_EQ(scan.zones.size(), 1u);
  ce::RaplMeter meter(scan.zones, "rapl:package-0");
  EXPECT_EQ(meter.info().update_interval_s, ce::rapl_update_interval_s);
  EXPECT_FALSE(meter.info().has_power);
  EXPECT_FALSE(meter.power_w().has_value());

  const fs::path energy = root / "intel-rapl:0" / "energy_uj";
  EXPECT_DOUBLE_EQ(*meter.energy_j(), 0.0);  // the origin is the first reading
  write_file(energy, "999900000\n");
  EXPECT_DOUBLE_EQ(*meter.energy_j(), 0.9);
  write_file(energy, "1999999\n");  // wrapped: 99999 µJ to the top, 1 µJ to 0, then 1999999
  EXPECT_NEAR(*meter.energy_j(), 0.9 + 0.1 + 1.999999, 1e-9);
  EXPECT_EQ(meter.wraps(), 1u);
  write_file(energy, "2000000\n");
  EXPECT_NEAR(*meter.energy_j(), 3.0, 1e-9);

  // A window across the wrap through Measurement sees the same energy.
  write_file(energy, "999999000\n");
  ce::Measurement m(meter);
  m.start();
  write_file(energy, "1000\n");
  const ce::EnergyWindow w = m.stop();
  EXPECT_NEAR(*w.energy_j, 0.002, 1e-9);  // 999 µJ up, 1 µJ to 0, 1000 µJ
}

TEST(RaplMeter, SumsPackageAndDramZones) {
  TempDir tmp;
  ce::testing::write_two_socket_tree(tmp.path());
  const auto scan = ce::scan_rapl(tmp.path());
  ce::RaplMeter meter({scan.zones[0], scan.zones[2]}, "rapl:package-0+package-0/dram");
  EXPECT_TRUE(contains(meter.info().measures, "package-0 + package-0/dram"));
  write_file(tmp.path() / "intel-rapl:0" / "energy_uj", "3000000\n");   // +2 J
  write_file(tmp.path() / "intel-rapl:0:1" / "energy_uj", "700000\n");  // +0.5 J
  EXPECT_NEAR(*meter.energy_j(), 2.5, 1e-12);
  EXPECT_THROW(ce::RaplMeter({}, "rapl:nothing"), ctrl::UsageError);
}

TEST(RaplPermissions, DeniedEnergyFileNamesTheFileAndTheFix) {
  TempDir tmp;
  ce::testing::write_two_socket_tree(tmp.path());
  const ce::RaplScan scan = ce::scan_rapl(tmp.path(), deny_energy);
  ASSERT_TRUE(scan.present());
  const ce::RaplZone& z = scan.zones[0];
  EXPECT_FALSE(z.readable());
  EXPECT_TRUE(contains(z.problem, (tmp.path() / "intel-rapl:0" / "energy_uj").string())) << z.problem;
  EXPECT_TRUE(contains(z.problem, "Permission denied")) << z.problem;
  EXPECT_TRUE(contains(z.problem, "run as root")) << z.problem;
  EXPECT_TRUE(contains(z.problem, "sudo chmod o+r " + (tmp.path() / "intel-rapl:*" / "energy_uj").string()))
      << z.problem;
  EXPECT_TRUE(contains(z.problem, "udev")) << z.problem;

  // Building a meter on a zone that was readable at scan time but is denied now throws.
  const ce::RaplScan ok = ce::scan_rapl(tmp.path());
  try {
    ce::RaplMeter m({ok.zones[0]}, "rapl:package-0", deny_energy);
    FAIL() << "a denied read produced a meter";
  } catch (const ctrl::DeviceError& e) {
    EXPECT_TRUE(contains(e.what(), "chmod o+r")) << e.what();
  }
}

TEST(RaplPermissions, RealUnreadableFileWhenNotRoot) {
  if (::geteuid() == 0) {
    GTEST_SKIP() << "running as root: mode 000 does not stop root; see the injected-reader test";
  }
  TempDir tmp;
  write_zone(tmp.path(), "intel-rapl:0", "package-0", 1000);
  ASSERT_EQ(::chmod((tmp.path() / "intel-rapl:0" / "energy_uj").c_str(), 0), 0);
  const ce::RaplScan scan = ce::scan_rapl(tmp.path());
  ASSERT_EQ(scan.zones.size(), 1u);
  EXPECT_TRUE(contains(scan.zones[0].problem, "chmod o+r")) << scan.zones[0].problem;
}

TEST(RaplErrors, DirectoryInPlaceOfFileGivesErrnoFromTheDefaultReader) {
  TempDir tmp;
  write_zone(tmp.path(), "intel-rapl:0", "package-0", 1000);
  const fs::path energy = tmp.path() / "intel-rapl:0" / "energy_uj";
  fs::remove(energy);
  fs::create_directory(energy);  // open(2) succeeds on a directory, read(2) fails with EISDIR
  const ce::FileRead r = ce::read_small_file(energy);
  EXPECT_EQ(r.error, EISDIR);
  const ce::RaplScan scan = ce::scan_rapl(tmp.path());
  ASSERT_EQ(scan.zones.size(), 1u);
  EXPECT_TRUE(contains(scan.zones[0].problem, energy.string())) << scan.zones[0].problem;
  EXPECT_TRUE(contains(scan.zones[0].problem, "directory")) << scan.zones[0].problem;
  EXPECT_FALSE(contains(scan.zones[0].problem, "chmod"));  // only permissions get that advice
}

TEST(RaplErrors, MalformedOrVanishingCountersThrowNamingTheFile) {
  TempDir tmp;
  write_zone(tmp.path(), "intel-rapl:0", "package-0", 1000, 5000);
  const fs::path energy = tmp.path() / "intel-rapl:0" / "energy_uj";
  const auto scan = ce::scan_rapl(tmp.path());
  ce::RaplMeter meter(scan.zones, "rapl:package-0");

  write_file(energy, "12abc\n");
  try {
    (void)meter.energy_j();
    FAIL() << "malformed counter accepted";
  } catch (const ctrl::DeviceError& e) {
    EXPECT_TRUE(contains(e.what(), energy.string())) << e.what();
  }
  write_file(energy, "6000\n");  // above max_energy_range_uj
  EXPECT_THROW((void)meter.energy_j(), ctrl::DeviceError);
  fs::remove(energy);
  try {
    (void)meter.energy_j();
    FAIL() << "vanished counter read";
  } catch (const ctrl::DeviceError& e) {
    EXPECT_TRUE(contains(e.what(), "No such file")) << e.what();
  }

  write_file(tmp.path() / "intel-rapl:0" / "max_energy_range_uj", "lots\n");
  write_file(energy, "1000\n");
  EXPECT_THROW((void)ce::scan_rapl(tmp.path()), ctrl::DeviceError);
}
