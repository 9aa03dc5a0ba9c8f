// Measured, estimated or absent: a processor's energy provenance through the loop. The team's
// meters (an estimate where a RAPL package is shared, estimates read without alignment), the
// profile file's energy_provenance column (and files written before it), the refusal of fronts
// by energy where a processor has none, and fronts that carry provenance or are of time only.
#include "catalog/catalog.hpp"
#include <ctrl/loop/front_file.hpp>
#include <ctrl/loop/machine.hpp>
#include <ctrl/loop/plan.hpp>
#include <ctrl/loop/profile_file.hpp>
#include <ctrl/loop/team.hpp>

#include "scratch_dir.hpp"
#include "ticking_clock.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace ctrl::loop {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A device whose counter never moves, measured or estimated as asked, counting its reads.
class FrozenMeter final : public energy::Meter {
 public:
  FrozenMeter(energy::Provenance p, double interval, std::shared_ptr<std::atomic<int>> reads)
      : reads_(std::move(reads)) {
    info_.name = p == energy::Provenance::estimated ? "test:estimate" : "test:counter";
    info_.update_interval_s = interval;
    info_.provenance = p;
  }
  const energy::MeterInfo& info() const override { return info_; }
  bool available() const override { return true; }
  std::optional<double> energy_j() override {
    ++*reads_;
    return 1.0;
  }

 private:
  std::shared_ptr<std::atomic<int>> reads_;
  energy::MeterInfo info_;
};

TeamOptions frozen_meters(energy::Provenance p, const std::shared_ptr<std::atomic<int>>& reads) {
  TeamOptions o;
  o.min_round_s = 0.002;
  o.clock = std::make_shared<test::TickingClock>();
  o.meters.estimate.cpuinfo = "/nonexistent/cpuinfo";
  o.make_meter = [=](const energy::DeviceSpec&) { return std::make_unique<FrozenMeter>(p, 0.05, reads); };
  return o;
}

TEST(TeamEnergy, AnEstimateIsReadOnceAtEachEndAndWindowedByTheFivePercentRule) {
  auto reads = std::make_shared<std::atomic<int>>(0);
  Team est({parse_device("cpu:0")}, frozen_meters(energy::Provenance::estimated, reads));
  EXPECT_EQ(est.info(0).energy_provenance, energy::Provenance::estimated);
  EXPECT_DOUBLE_EQ(est.min_window_s(), energy::min_window_s(0.05, 0.05));  // 2 x 0.05 / 5 %: 2 s
  auto p = apps::catalog().find("dgemm").make_problem(8, 8, 1, 1);
  const int before = *reads;
  (void)est.fill(*p, {{0, 8}}, 0.01);
  EXPECT_EQ(*reads - before, 2);  // no waiting for a sum of per-core ticks to move

  // A counter of the same interval is read until it moves (here: until the wait gives up).
  auto counted = std::make_shared<std::atomic<int>>(0);
  Team hw({parse_device("cpu:0")}, frozen_meters(energy::Provenance::measured, counted));
  EXPECT_DOUBLE_EQ(hw.min_window_s(), 5 * 0.05);
  const int start = *counted;
  (void)hw.fill(*p, {{0, 8}}, 0.01);
  EXPECT_GT(*counted - start, 2);
}

// Two CPU groups on one RAPL package: the package counter cannot tell them apart, so each is
// estimated from its own cores where a rating exists, and absent (saying why) where none does.
TEST(TeamEnergy, GroupsSharingAPackageAreEstimatedWhereRated) {
  if (energy_device(parse_device("cpu:0")).packages != energy_device(parse_device("cpu:1")).packages)
    GTEST_SKIP() << "cores 0 and 1 are in different packages here";
  test::ScratchDir dir("ctrl-provenance");
  const fs::path stat = dir.path() / "stat";
  std::ofstream(stat) << "cpu  0 0 0 0\ncpu0 10 0 0 100 0 0 0\ncpu1 20 0 0 100 0 0 0\n";
  auto reads = std::make_shared<std::atomic<int>>(0);
  TeamOptions o = frozen_meters(energy::Provenance::measured, reads);
  o.meters.estimate.proc_stat = stat;
  Team unrated({parse_device("cpu:0"), parse_device("cpu:1")}, o);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(unrated.info(i).energy_provenance, energy::Provenance::absent);
    EXPECT_TRUE(contains(unrated.info(i).energy_absent, "cannot be told apart; no estimate: "))
        << unrated.info(i).energy_absent;
  }
  o.meters.estimate.watts_per_core = 2.0;
  Team rated({parse_device("cpu:0"), parse_device("cpu:1")}, o);
  EXPECT_EQ(rated.info(0).energy_source, "estimate:cpu:0 (2 W/core)");
  EXPECT_EQ(rated.info(1).energy_source, "estimate:cpu:1 (2 W/core)");
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(rated.info(i).energy_provenance, energy::Provenance::estimated);
    EXPECT_TRUE(contains(rated.info(i).energy_measures, "2 W per busy core (given by --cpu-power)"))
        << rated.info(i).energy_measures;
  }
}

// A CPU estimate whose cores draw `watts` whatever this process does (other jobs on them), out of
// `full` with every core busy: energy = watts x the clock's seconds.
class BusyEstimate final : public energy::Meter {
 public:
  BusyEstimate(double watts, double full, std::shared_ptr<energy::Clock> clock)
      : watts_(watts), clock_(std::move(clock)), start_(clock_->now()) {
    info_.name = "test:estimate";
    info_.provenance = energy::Provenance::estimated;
    info_.full_power_w = full;
  }
  const energy::MeterInfo& info() const override { return info_; }
  bool available() const override { return true; }
  std::optional<double> energy_j() override {
    return watts_ * std::chrono::duration<double>(clock_->now() - start_).count();
  }

 private:
  double watts_;
  std::shared_ptr<energy::Clock> clock_;
  energy::Clock::time_point start_;
  energy::MeterInfo info_;
};

// On a busy machine the idle window of an estimate measures the other jobs' load. That is not the
// estimate's base power (it charges busy time only: 0 W), so no dynamic energy turns negative; the
// window says that another job shares the cores. Quiet cores are said to be at 0 W.
TEST(TeamEnergy, AnEstimatesBasePowerIsZeroAndBusyCoresAreSaid) {
  auto clock = std::make_shared<test::TickingClock>();
  auto team_drawing = [&](double watts) {
    TeamOptions o;
    o.min_round_s = 0.002;
    o.clock = clock;
    o.make_meter = [=](const energy::DeviceSpec&) { return std::make_unique<BusyEstimate>(watts, 8.0, clock); };
    return std::make_unique<Team>(std::vector<DeviceSpec>{parse_device("cpu:0")}, o);
  };
  auto busy = team_drawing(3.0);  // 37.5 % of the cores' full power
  const auto said = busy->measure_base_power(1.0);
  ASSERT_EQ(said.size(), 1U);
  EXPECT_TRUE(contains(said[0], "cpu:0: its cores were 38 % busy with other work")) << said[0];
  ASSERT_TRUE(busy->info(0).base_power_w.has_value());
  EXPECT_EQ(*busy->info(0).base_power_w, 0.0);
  auto quiet = team_drawing(0.2);  // 2.5 %: background
  const auto quiet_said = quiet->measure_base_power(1.0);
  ASSERT_EQ(quiet_said.size(), 1U);
  EXPECT_TRUE(contains(quiet_said[0], "base power 0 W (the estimate charges busy time only)")) << quiet_said[0];
  EXPECT_EQ(*quiet->info(0).base_power_w, 0.0);
}

class ProvenanceFiles : public ::testing::Test {
 public:
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = (dir_.path() / name).string();
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
    return p;
  }
  static std::string slurp(const std::string& p) {
    std::stringstream s;
    s << std::ifstream(p, std::ios::binary).rdbuf();
    return s.str();
  }
  ctrl::test::ScratchDir dir_{"ctrl-provenance"};
};

ProfileRow row(const std::string& proc, index_t size, const std::string& source, energy::Provenance p) {
  ProfileRow r;
  r.processor = proc;
  r.size = size;
  r.time = 0.01 * static_cast<double>(size) * (proc == "cuda:0" ? 0.25 : 1.0);
  r.energy = source == "none" ? 0.0 : 0.5 * static_cast<double>(size) * (proc == "cuda:0" ? 3.0 : 1.0);
  r.reps = 3;
  r.energy_source = source;
  r.energy_provenance = p;
  if (source != "none") r.base_power = 1.0;
  r.app = "dgemm";
  r.cols = 16;
  return r;
}

// A profile of cpu:0-3 (energy from `cpu_source`) and cuda:0 (measured), sizes 1 to 4.
std::string profile_text(const std::string& cpu_source, energy::Provenance cpu) {
  std::string text = profile_header() + "\n";
  for (index_t s = 1; s <= 4; ++s) {
    text += format_profile_row(row("cpu:0-3", s, cpu_source, cpu)) + "\n";
    text += format_profile_row(row("cuda:0", s, "nvml:0", energy::Provenance::measured)) + "\n";
  }
  return text;
}

TEST_F(ProvenanceFiles, TheColumnIsWrittenAndReadBack) {
  EXPECT_TRUE(contains(profile_header(), ",energy_source,energy_provenance,converged,"));
  const ProfileFile pf =
      parse_profile_file(profile_text("estimate:cpu:0-3 (3 W/core)", energy::Provenance::estimated), "p.csv");
  EXPECT_FALSE(pf.earlier_format);
  EXPECT_EQ(pf.rows[0].energy_provenance, energy::Provenance::estimated);
  EXPECT_EQ(pf.rows[1].energy_provenance, energy::Provenance::measured);
  EXPECT_EQ(processor_provenance(pf),
            (std::vector<energy::Provenance>{energy::Provenance::estimated, energy::Provenance::measured}));
  EXPECT_TRUE(processors_without_energy(pf).empty());
  EXPECT_NO_THROW(require_energy(pf, "p.csv", "--time-only"));
}

TEST_F(ProvenanceFiles, InconsistentOrUnknownProvenanceIsRefusedWrittenOrRead) {
  EXPECT_THROW((void)format_profile_row(row("cpu:0", 1, "none", energy::Provenance::measured)), UsageError);
  EXPECT_THROW((void)format_profile_row(row("cpu:0", 1, "nvml:0", energy::Provenance::absent)), UsageError);
  std::string text = profile_text("nvml:1", energy::Provenance::measured);
  const std::size_t at = text.find(",measured,");
  try {
    (void)parse_profile_file(text.replace(at, 10, ",guessed,"), "p.csv");
    FAIL() << "an unknown provenance";
  } catch (const UsageError& e) {
    EXPECT_TRUE(contains(e.what(), "p.csv:2: energy_provenance 'guessed'")) << e.what();
  }
}

// A file written before energy_provenance existed: fifteen columns. Its energies are measured
// where a source is named, absent where none is; resuming it rewrites it in the current format.
TEST_F(ProvenanceFiles, AnEarlierFileIsReadAndRewrittenWhenResumed) {
  const std::string header =
      "processor,size,time,energy,reps,batch,time_ci,energy_ci,energy_measured,base_power,energy_source,converged,"
      "gflops,app,cols";
  const std::string f = write("old.csv", header + "\n" +
                                             "cpu:0,8,0.5,0,3,1,0.01,,,,none,1,2.5,dgemm,64\n"
                                             "cuda:0,8,0.1,2.5,3,1,0.001,0.1,2.5,75,nvml:0,1,9.5,dgemm,64\n");
  EXPECT_TRUE(is_profile_file(f));
  const ProfileFile pf = read_profile_file(f);
  EXPECT_TRUE(pf.earlier_format);
  ASSERT_EQ(pf.rows.size(), 2U);
  EXPECT_EQ(pf.rows[0].energy_provenance, energy::Provenance::absent);
  EXPECT_EQ(pf.rows[1].energy_provenance, energy::Provenance::measured);
  EXPECT_DOUBLE_EQ(pf.rows[1].gflops, 9.5);
  EXPECT_EQ(pf.rows[1].cols, 64);
  EXPECT_EQ(processors_without_energy(pf), std::vector<std::string>{"cpu:0"});
  {
    ProfileWriter w(f);
    auto a = row("cpu:0", 16, "none", energy::Provenance::absent);
    auto b = row("cuda:0", 16, "nvml:0", energy::Provenance::measured);
    a.cols = b.cols = 64;
    w.write({a, b});
  }
  const std::string text = slurp(f);
  EXPECT_EQ(text.rfind(profile_header() + "\n", 0), 0U) << text;
  const ProfileFile now = read_profile_file(f);
  EXPECT_FALSE(now.earlier_format);
  EXPECT_EQ(now.complete_sizes, (std::vector<index_t>{8, 16}));
}

TEST_F(ProvenanceFiles, AFrontByEnergyIsRefusedWhereAProcessorHasNone) {
  const ProfileFile pf = parse_profile_file(profile_text("none", energy::Provenance::absent), "p.csv");
  EXPECT_EQ(processors_without_energy(pf), std::vector<std::string>{"cpu:0-3"});
  try {
    require_energy(pf, "p.csv", "--time-only");
    FAIL() << "cpu:0-3 has no energy";
  } catch (const MissingEnergyError& e) {
    const std::string m = e.what();
    EXPECT_TRUE(contains(m, "p.csv: cpu:0-3 has no energy, neither measured nor estimated")) << m;
    EXPECT_TRUE(contains(m, "for cpu:0-3, profile again with --cpu-power WATTS")) << m;
    EXPECT_TRUE(contains(m, "or ask for time only with --time-only")) << m;
  }
  // A GPU without a counter has no estimate to offer.
  std::string text = profile_header() + "\n";
  for (index_t s = 1; s <= 2; ++s)
    text += format_profile_row(row("cuda:0", s, "none", energy::Provenance::absent)) + "\n";
  try {
    require_energy(parse_profile_file(text, "g.csv"), "g.csv", "--time-only");
    FAIL() << "cuda:0 has no energy";
  } catch (const MissingEnergyError& e) {
    EXPECT_TRUE(contains(e.what(), "for cuda:0, no estimate exists")) << e.what();
    EXPECT_FALSE(contains(e.what(), "--cpu-power")) << e.what();
  }
}

TEST_F(ProvenanceFiles, APlanPicksByEnergyOnlyWhereEveryProcessorHasSome) {
  const std::string p = write("p.csv", profile_text("none", energy::Provenance::absent));
  const Workload& dgemm = apps::catalog().find("dgemm");
  PlanRequest r;
  r.profile = p;
  r.workload = 4;
  r.pick = Pick::parse("least-energy");
  EXPECT_THROW((void)plan_run(dgemm, r), MissingEnergyError);
  r.pick = Pick::parse("2");
  EXPECT_THROW((void)plan_run(dgemm, r), MissingEnergyError);
  r.pick = Pick::parse("fastest");  // a pick by time needs no energy
  EXPECT_EQ(plan_run(dgemm, r).total_rows(), 4);
  r.pick = Pick::parse("load-balanced");
  EXPECT_NO_THROW((void)plan_run(dgemm, r));

  const std::string e = write("e.csv", profile_text("estimate:cpu:0-3 (3 W/core)", energy::Provenance::estimated));
  r.profile = e;
  r.pick = Pick::parse("least-energy");
  EXPECT_NO_THROW((void)plan_run(dgemm, r));
}

TEST_F(ProvenanceFiles, FrontsCarryProvenanceAndTimeOnlyFrontsHaveNoEnergy) {
  FrontFile f;
  f.processors = {"cpu:0-3", "cuda:0"};
  f.workload = 4;
  f.front = {{0.1, 2.0, {1, 3}}, {0.3, 1.0, {4, 0}}};
  f.provenance = {energy::Provenance::estimated, energy::Provenance::measured};
  const std::string text = front_json(f);
  EXPECT_TRUE(contains(text, "\"cpu:0-3\": \"estimated\"")) << text;
  const FrontFile back = parse_front_file(text, "f.json");
  EXPECT_EQ(back.provenance, f.provenance);
  EXPECT_FALSE(back.time_only);

  FrontFile t = f;
  t.time_only = true;
  t.front = {{0.1, 0.0, {1, 3}}};
  const std::string time_text = front_json(t);
  EXPECT_TRUE(contains(time_text, "\"energy\": \"none\"")) << time_text;
  EXPECT_FALSE(contains(time_text, "base_power")) << time_text;
  const FrontFile time_back = parse_front_file(time_text, "t.json");
  EXPECT_TRUE(time_back.time_only);
  ASSERT_EQ(time_back.front.size(), 1U);
  EXPECT_EQ(time_back.front[0].distribution, (partition::Distribution{1, 3}));

  // A plan from it: the fastest point, predicted time but no predicted energy; no least-energy point.
  const std::string path = write("t.json", time_text);
  PlanRequest r;
  r.front = path;
  r.pick = Pick::parse("fastest");
  const Plan plan = plan_run(apps::catalog().find("dgemm"), r);
  EXPECT_FALSE(plan.energy.has_value());
  EXPECT_DOUBLE_EQ(*plan.time, 0.1);
  r.pick = Pick::parse("least-energy");
  try {
    (void)plan_run(apps::catalog().find("dgemm"), r);
    FAIL() << "a least-energy pick of a front of time only";
  } catch (const UsageError& e) {
    EXPECT_TRUE(contains(e.what(), "a front of time only")) << e.what();
  }
  // Provenance that does not fit the processors is refused, naming what is wrong.
  std::string bad = text;
  bad.replace(bad.find("\"estimated\""), 11, "\"guessed\"");
  EXPECT_THROW((void)parse_front_file(bad, "f.json"), UsageError);
  std::string missing = text;
  missing.replace(missing.find("\"cpu:0-3\": \"estimated\""), 9, "\"cpu:9\"");
  EXPECT_THROW((void)parse_front_file(missing, "f.json"), UsageError);
}

}  // namespace
}  // namespace ctrl::loop
