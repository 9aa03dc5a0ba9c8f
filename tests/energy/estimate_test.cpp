// Estimated CPU energy: /proc/stat parsing, the table of rated CPUs, the rating a machine gets,
// the estimated meter over fixture files, and the factory's fallback from RAPL to the estimate.
// Every file is a fixture: nothing depends on this machine's CPU, /proc/stat or powercap.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include <ctrl/energy.hpp>

#include "test_support.hpp"

namespace ce = ctrl::energy;
namespace fs = std::filesystem;
using ce::testing::TempDir;
using ce::testing::write_file;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A /proc/stat of four cores; busy = user + nice + system + irq + softirq of each line.
std::string proc_stat(unsigned long long busy1, unsigned long long busy3, unsigned long long idle = 5000) {
  return "cpu  9000 0 0 20000 0 0 0 0 0 0\n"
         "cpu0 1000 0 0 " +
         std::to_string(idle) +
         " 7 0 0 0 0 0\n"
         "cpu1 " +
         std::to_string(busy1) + " 0 0 " + std::to_string(idle) +
         " 0 0 0 0 0 0\n"
         "cpu2 0 0 0 " +
         std::to_string(idle) +
         " 0 0 0 0 0 0\n"
         "cpu3 " +
         std::to_string(busy3) + " 0 0 " + std::to_string(idle) +
         " 0 0 0 0 0 0\n"
         "intr 12345 0 0\nctxt 999\n";
}

// Fixture files for the estimate, 100 ticks per second as on every Linux, no powercap, no NVML.
struct EstimateFixture {
  TempDir tmp;
  ce::MeterEnvironment env;
  EstimateFixture() {
    env.powercap_root = tmp.path() / "no-powercap";
    env.nvml_library = "libnvidia-ml-absent.so.1";
    env.estimate.proc_stat = tmp.path() / "stat";
    env.estimate.cpuinfo = tmp.path() / "cpuinfo";
    env.estimate.ticks_per_second = 100;
    write_file(env.estimate.proc_stat, proc_stat(100, 200));
    write_file(env.estimate.cpuinfo, "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Processor\n");
  }
};

}  // namespace

TEST(Provenance, NamesRoundTripAndNoMeterIsAbsent) {
  for (const auto p : {ce::Provenance::measured, ce::Provenance::estimated, ce::Provenance::absent})
    EXPECT_EQ(ce::parse_provenance(ce::to_string(p)), p);
  EXPECT_FALSE(ce::parse_provenance("guessed").has_value());
  EXPECT_EQ(ce::NoMeter("none:x", "why").info().provenance, ce::Provenance::absent);
}

TEST(ProcStat, BusyIsUserNiceSystemIrqSoftirqPerCore) {
  const auto t = ce::parse_proc_stat(
      "cpu  1 2 3 4 5 6 7 8 9 10\n"
      "cpu0 10 20 30 999 888 40 50 777 0 0\n"
      "cpu12 1 1 1 1\n"  // an old kernel: four columns
      "intr 1 2 3\n",
      "/proc/stat");
  ASSERT_EQ(t.size(), 2U);
  EXPECT_EQ(t[0].core, 0);
  EXPECT_EQ(t[0].busy, 10U + 20 + 30 + 40 + 50);  // idle, iowait and steal are not busy
  EXPECT_EQ(t[1].core, 12);
  EXPECT_EQ(t[1].busy, 3U);
}

TEST(ProcStat, AShortOrMalformedLineNamesItsLine) {
  try {
    (void)ce::parse_proc_stat("cpu  1 2 3 4\ncpu0 1 2\n", "stat");
    FAIL() << "a core line of two numbers";
  } catch (const ctrl::DeviceError& e) {
    EXPECT_TRUE(contains(e.what(), "stat:2:")) << e.what();
  }
  EXPECT_THROW((void)ce::parse_proc_stat("cpu7x 1 2 3 4\n", "stat"), ctrl::DeviceError);
}

TEST(RatedCpus, MatchWholeWordsOfTheModelName) {
  const ce::RatedCpu* epyc = ce::find_rated_cpu("AMD EPYC 7763 64-Core Processor");
  ASSERT_NE(epyc, nullptr);
  EXPECT_EQ(epyc->model, "EPYC 7763");
  EXPECT_DOUBLE_EQ(epyc->watts_per_thread(), 280.0 / 128);
  ASSERT_NE(ce::find_rated_cpu("Intel(R) Xeon(R) Platinum 8480+"), nullptr);
  EXPECT_EQ(ce::find_rated_cpu("Intel(R) Xeon(R) Platinum 8480+")->threads, 112);
  ASSERT_NE(ce::find_rated_cpu("Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz"), nullptr);
  // Another SKU is not a near match: no rating rather than a wrong one.
  EXPECT_EQ(ce::find_rated_cpu("Intel(R) Xeon(R) Platinum 8480"), nullptr);
  EXPECT_EQ(ce::find_rated_cpu("AMD EPYC 77630"), nullptr);
  EXPECT_EQ(ce::find_rated_cpu("Intel(R) Xeon(R) CPU E5-2690 v3 @ 2.60GHz"), nullptr);
  // A VM that hides its SKU (the H200 host) has none.
  EXPECT_EQ(ce::find_rated_cpu("Intel(R) Xeon(R) Processor"), nullptr);
  EXPECT_EQ(ce::find_rated_cpu("AMD EPYC"), nullptr);
}

TEST(RatedCpus, EveryEntryIsConsistentAndFindsItself) {
  ASSERT_FALSE(ce::rated_cpus().empty());
  for (const ce::RatedCpu& cpu : ce::rated_cpus()) {
    EXPECT_GT(cpu.package_w, 0) << cpu.model;
    EXPECT_GT(cpu.threads, 0) << cpu.model;
    EXPECT_LE(cpu.watts_per_thread(), ce::max_watts_per_core) << cpu.model;
    EXPECT_FALSE(cpu.source.empty()) << cpu.model;
    EXPECT_EQ(ce::find_rated_cpu("Vendor " + std::string(cpu.model) + " Processor"), &cpu) << cpu.model;
  }
}

TEST(CpuInfo, TheFirstModelNameOrNone) {
  EXPECT_EQ(ce::cpuinfo_model_name("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7763 64-Core "
                                   "Processor  \nprocessor\t: 1\nmodel name\t: other\n"),
            "AMD EPYC 7763 64-Core Processor");
  EXPECT_EQ(ce::cpuinfo_model_name("processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\n"), "");
}

TEST(CpuRating, GivenElseTheTableElseWhyNot) {
  EstimateFixture f;
  std::string why;
  EXPECT_FALSE(ce::cpu_rating(f.env.estimate, {}, why).has_value());  // "Intel(R) Xeon(R) Processor"
  EXPECT_TRUE(contains(why, "CPU 'Intel(R) Xeon(R) Processor' is not in ctrl's table")) << why;
  EXPECT_TRUE(contains(why, "--cpu-power WATTS")) << why;

  write_file(f.env.estimate.cpuinfo, "model name\t: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz\n");
  const auto table = ce::cpu_rating(f.env.estimate, {}, why);
  ASSERT_TRUE(table.has_value());
  EXPECT_DOUBLE_EQ(table->watts_per_core, 150.0 / 40);
  EXPECT_TRUE(contains(table->origin, "Gold 6248: 150 W per package / 40 threads (Intel ARK)")) << table->origin;

  f.env.estimate.watts_per_core = 7.5;  // given wins over the table
  const auto given = ce::cpu_rating(f.env.estimate, {}, why);
  ASSERT_TRUE(given.has_value());
  EXPECT_DOUBLE_EQ(given->watts_per_core, 7.5);
  EXPECT_EQ(given->origin, "given by --cpu-power");

  for (const double bad : {0.0, -1.0, 350.0}) {
    f.env.estimate.watts_per_core = bad;
    EXPECT_THROW((void)ce::cpu_rating(f.env.estimate, {}, why), ctrl::UsageError) << bad;
  }
  f.env.estimate.watts_per_core.reset();
  f.env.estimate.cpuinfo = f.tmp.path() / "missing";
  EXPECT_FALSE(ce::cpu_rating(f.env.estimate, {}, why).has_value());
  EXPECT_TRUE(contains(why, "cannot read")) << why;
}

TEST(EstimatedCpuMeter, RatedPowerTimesBusyTimeOfItsOwnCores) {
  EstimateFixture f;
  ce::EstimatedCpuMeter m({1, 3}, {2.5, "given by --cpu-power"}, "estimate:test", f.env.estimate);
  EXPECT_TRUE(m.available());
  EXPECT_EQ(m.info().provenance, ce::Provenance::estimated);
  EXPECT_FALSE(m.info().has_power);
  EXPECT_DOUBLE_EQ(m.info().update_interval_s, 0.01);
  EXPECT_TRUE(contains(m.info().measures, "cores 1,3: 2.5 W per busy core")) << m.info().measures;
  EXPECT_DOUBLE_EQ(*m.energy_j(), 0.0);
  // Core 1 busy 50 ticks, core 3 30 ticks (0.8 s at 100 ticks/s); idle time and core 0 do not count.
  write_file(f.env.estimate.proc_stat, proc_stat(150, 230, 9000));
  EXPECT_DOUBLE_EQ(*m.energy_j(), 2.5 * 0.8);
  // A core's busy time going backwards (offline and back) is a failed sensor, named.
  write_file(f.env.estimate.proc_stat, proc_stat(10, 230));
  try {
    (void)m.energy_j();
    FAIL() << "busy time went backwards";
  } catch (const ctrl::DeviceError& e) {
    EXPECT_TRUE(contains(e.what(), "core 1 went backwards")) << e.what();
  }
}

TEST(EstimatedCpuMeter, RefusesNoCoresUnknownCoresAndBadRatings) {
  EstimateFixture f;
  const ce::CpuRating rating{3.0, "given by --cpu-power"};
  EXPECT_THROW(ce::EstimatedCpuMeter({}, rating, "e", f.env.estimate), ctrl::UsageError);
  EXPECT_THROW(ce::EstimatedCpuMeter({1, 1}, rating, "e", f.env.estimate), ctrl::UsageError);
  EXPECT_THROW(ce::EstimatedCpuMeter({1}, {0.0, "zero"}, "e", f.env.estimate), ctrl::UsageError);
  try {
    ce::EstimatedCpuMeter({1, 9}, rating, "e", f.env.estimate);
    FAIL() << "core 9 of a four-core /proc/stat";
  } catch (const ctrl::DeviceError& e) {
    EXPECT_TRUE(contains(e.what(), "no line for core 9")) << e.what();
  }
}

TEST(MakeMeter, CpuWithoutRaplIsEstimatedWhenRatedAndItsCoresAreKnown) {
  EstimateFixture f;
  f.env.estimate.watts_per_core = 2.5;
  auto spec = ce::DeviceSpec::cpu({0}, true, {1, 3});
  spec.label = "cpu:1,3";
  const auto m = ce::make_meter(spec, f.env);
  ASSERT_TRUE(m->available()) << m->absent_reason();
  EXPECT_EQ(m->info().provenance, ce::Provenance::estimated);
  EXPECT_EQ(m->info().name, "estimate:cpu:1,3 (2.5 W/core)");
  write_file(f.env.estimate.proc_stat, proc_stat(200, 200));
  EXPECT_DOUBLE_EQ(*m->energy_j(), 2.5 * 1.0);

  // Cores unknown: absent, with both reasons.
  const auto unknown = ce::make_meter(ce::DeviceSpec::cpu({0}), f.env);
  EXPECT_FALSE(unknown->available());
  EXPECT_TRUE(contains(unknown->absent_reason(), "absent; no estimate: the device's cores are not known"))
      << unknown->absent_reason();
  // No /proc/stat: absent; a core it does not list: a device that does not exist.
  f.env.estimate.proc_stat = f.tmp.path() / "missing-stat";
  EXPECT_FALSE(ce::make_meter(spec, f.env)->available());
  f.env.estimate.proc_stat = f.tmp.path() / "stat";
  EXPECT_THROW((void)ce::make_meter(ce::DeviceSpec::cpu({0}, true, {42}), f.env), ctrl::DeviceError);
  // Not a CPU device: no estimate.
  EXPECT_THROW((void)ce::make_cpu_estimate(ce::DeviceSpec::nvidia(0), f.env, "why"), ctrl::UsageError);
}

TEST(MakeMeter, ReadableRaplIsMeasuredAndUnreadableRaplEstimated) {
  EstimateFixture f;
  f.env.estimate.watts_per_core = 2.5;
  f.env.powercap_root = f.tmp.path() / "powercap";
  ce::testing::write_two_socket_tree(f.env.powercap_root);
  const auto spec = ce::DeviceSpec::cpu({0}, true, {1, 3});
  const auto measured = ce::make_meter(spec, f.env);
  EXPECT_EQ(measured->info().provenance, ce::Provenance::measured);  // a counter wins over a model
  EXPECT_EQ(measured->info().name.rfind("rapl:", 0), 0U);

  f.env.reader = [](const fs::path& file) -> ce::FileRead {
    if (file.filename() == "energy_uj") return {"", EACCES};
    return ce::read_small_file(file);
  };
  const auto estimated = ce::make_meter(spec, f.env);
  ASSERT_TRUE(estimated->available()) << estimated->absent_reason();
  EXPECT_EQ(estimated->info().provenance, ce::Provenance::estimated);
}

TEST(ListMeters, TheEstimateLineSaysItsRatingOrWhyNone) {
  EstimateFixture f;
  const auto line = [&] {
    for (const auto& l : ce::list_meters(f.env))
      if (l.name == "estimate") return l;
    return ce::MeterListing{};
  };
  EXPECT_FALSE(line().present);
  EXPECT_TRUE(contains(line().reason, "--cpu-power")) << line().reason;
  f.env.estimate.watts_per_core = 4.0;
  EXPECT_TRUE(line().present);
  EXPECT_EQ(line().provenance, ce::Provenance::estimated);
  EXPECT_TRUE(contains(line().measures, "4 W per busy core (given by --cpu-power)")) << line().measures;
}
