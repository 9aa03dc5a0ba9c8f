// The measurement loop: teams of processors, rounds, the stopping rule, the profile file (format,
// reading back, an interrupted file) and a profile that is interrupted and resumed.
#include "catalog/catalog.hpp"
#include <ctrl/loop/learn.hpp>
#include <ctrl/loop/measure.hpp>
#include <ctrl/loop/profile_file.hpp>
#include <ctrl/loop/profile.hpp>
#include <ctrl/loop/team.hpp>

#include <ctrl/partition/profile_csv.hpp>

#include "scratch_dir.hpp"
#include "ticking_clock.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ctrl::loop {
namespace {

namespace fs = std::filesystem;

class TempDir : public ::testing::Test {
 public:
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static void spit(const std::string& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << text;
  }
  ctrl::test::ScratchDir dir_{"ctrl-workloads"};
};

TeamOptions quick() {
  TeamOptions o;
  o.min_round_s = 0.002;
  return o;
}

// Options whose CPU estimate has no rating (no /proc/cpuinfo to rate by, none given): what a test
// expects must not depend on whether this machine's CPU is in ctrl's table.
TeamOptions unrated(TeamOptions o = {}) {
  o.meters.estimate.cpuinfo = "/nonexistent/cpuinfo";
  return o;
}

TEST(Team, RejectsDuplicateAndOverlappingProcessors) {
  EXPECT_THROW(Team({parse_device("cpu:0"), parse_device("cpu:0")}), UsageError);
  EXPECT_THROW(Team({parse_device("cpu:0-1"), parse_device("offload:1")}), UsageError);
  EXPECT_THROW(Team(std::vector<DeviceSpec>{}), UsageError);
  EXPECT_THROW(Team({parse_device("nosuchkind:0")}), UsageError);
}

TEST(Team, RoundsTimeEveryProcessorWithWork) {
  Team team({parse_device("cpu:0"), parse_device("offload:1")}, quick());
  ASSERT_EQ(team.size(), 2U);
  EXPECT_EQ(team.info(0).name, "cpu:0");
  EXPECT_EQ(team.info(1).name, "offload:1");
  auto p = apps::catalog().find("dgemm").make_problem(40, 32, 2, 1);
  const std::vector<Block> blocks{{0, 25}, {25, 40}};
  const RoundResult r = team.run(*p, blocks, 3);
  EXPECT_EQ(r.batch, 3);
  EXPECT_GT(r.time_s[0], 0.0);
  EXPECT_GT(r.time_s[1], 0.0);
  EXPECT_GE(r.wall_s, std::max(r.time_s[0], r.time_s[1]) * 0.999);
  EXPECT_TRUE(p->verify(blocks).ok);
  // A processor without rows does not run.
  const RoundResult idle = team.run(*p, {{0, 40}, {40, 40}}, 1);
  EXPECT_EQ(idle.time_s[1], 0.0);
  EXPECT_GT(idle.time_s[0], 0.0);
}

// Another job on a CPU group's core (docs/loop.md, "Another job on the cores"): a process spinning
// on core 0 beside cpu:0's rounds takes part of the core's time, and the round says so.
TEST(Team, ARoundSaysWhenAnotherProcessTookItsCores) {
  if (!std::ifstream("/proc/thread-self/schedstat")) GTEST_SKIP() << "this kernel keeps no schedstat";
  Team team({parse_device("cpu:0")}, quick());
  auto p = apps::catalog().find("dgemm").make_problem(64, 64, 1, 1);
  const pid_t rival = ::fork();  // another job: a process spinning on core 0
  ASSERT_GE(rival, 0);
  if (rival == 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    ::sched_setaffinity(0, sizeof one, &one);
    std::atomic<std::uint64_t> spins{0};  // work with an effect, that no compiler removes
    for (;;) spins.fetch_add(1, std::memory_order_relaxed);
  }
  const RoundResult r = team.fill(*p, {{0, 64}}, 0.5);
  ::kill(rival, SIGKILL);
  ::waitpid(rival, nullptr, 0);
  ASSERT_EQ(r.cores_taken.size(), 1U);
  EXPECT_GE(r.cores_taken[0], ctrl::loop::contended_share);
  EXPECT_LE(r.cores_taken[0], 1.0);

  MeasureResult m;
  m.processors.resize(1);
  m.processors[0].cores_taken = r.cores_taken[0];
  const auto lines = contention_notes(team, m, "at sizes 64");
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_EQ(lines[0].rfind("cpu:0: other work took ", 0), 0U) << lines[0];
  EXPECT_NE(lines[0].find("at sizes 64 (another job shares its cores)"), std::string::npos) << lines[0];
  m.processors[0].cores_taken = 0.01;
  EXPECT_TRUE(contention_notes(team, m, "in this run").empty());
}

TEST(Team, EnergyIsAbsentWithoutASensorAndSaysWhy) {
  Team team({parse_device("cpu:0")});
  const auto& info = team.info(0);
  if (info.has_energy()) GTEST_SKIP() << "this machine measures " << info.energy_source;
  EXPECT_EQ(info.energy_source, "none");
  EXPECT_EQ(info.energy_absent.rfind("no sensor: ", 0), 0U) << info.energy_absent;
  EXPECT_FALSE(team.any_energy());
  EXPECT_EQ(team.min_window_s(), 0.0);
  TeamOptions no;
  no.energy = false;
  Team off({parse_device("cpu:0")}, no);
  EXPECT_FALSE(off.info(0).has_energy());
}

// A device at constant power whose counter, like NVML's, changes only every `interval` seconds
// of `clock`: the team's clock (TeamOptions::clock), so that what the team reads and when it
// reads it are one story, however the threads were scheduled.
class CoarseMeter final : public energy::Meter {
 public:
  CoarseMeter(double watts, double interval, std::string name, energy::Clock& clock)
      : watts_(watts),
        interval_s_(interval),
        interval_(std::chrono::duration_cast<energy::Clock::duration>(std::chrono::duration<double>(interval))),
        clock_(clock),
        t0_(clock.now()) {
    info_.name = std::move(name);
    info_.measures = "a test device";
    info_.update_interval_s = interval;
  }
  const energy::MeterInfo& info() const override { return info_; }
  bool available() const override { return true; }
  std::optional<double> energy_j() override {
    const auto updates = (clock_.now() - t0_) / interval_;  // whole updates, in integers: no rounding at an update
    return watts_ * static_cast<double>(updates) * interval_s_;
  }

 private:
  double watts_, interval_s_;
  energy::Clock::duration interval_;
  energy::Clock& clock_;
  energy::Clock::time_point t0_;
  energy::MeterInfo info_;
};

TeamOptions with_coarse_meters(double watts, double interval) {
  TeamOptions o = unrated();
  o.min_round_s = 0.002;
  o.min_window_s = 0.15;
  auto clock = std::make_shared<test::TickingClock>();
  o.clock = clock;
  o.make_meter = [=](const energy::DeviceSpec& d) -> std::unique_ptr<energy::Meter> {
    std::string name = "test:";
    for (const int p : d.packages) name += std::to_string(p);
    return std::make_unique<CoarseMeter>(watts, interval, name, *clock);
  };
  return o;
}

TEST(Team, AlignsCoarseCountersSoThatBasePowerCancels) {
  // 100 W on a counter that moves every 50 ms: a window read at arbitrary moments is off by up to
  // 2 x 5 J; read at counter updates, by one read's duration (three ticks of the test clock).
  Team team({parse_device("cpu:0")}, with_coarse_meters(100.0, 0.05));
  ASSERT_TRUE(team.info(0).has_energy());
  EXPECT_EQ(team.info(0).energy_source, "test:0");
  EXPECT_DOUBLE_EQ(team.min_window_s(), 0.15);
  auto p = apps::catalog().find("dgemm").make_problem(16, 16, 1, 1);
  team.set_base_power(0, 100.0, "given");
  for (int k = 0; k < 3; ++k) {
    const RoundResult r = team.fill(*p, {{0, 16}}, 0.15);
    ASSERT_TRUE(r.dynamic_j[0].has_value());
    EXPECT_GE(r.window_s, 0.15);
    EXPECT_LT(std::fabs(*r.dynamic_j[0] * r.runs[0]), 1.0) << "window " << r.window_s;
  }
  team.set_base_power(0, 0.0, "given");
  const RoundResult r = team.fill(*p, {{0, 16}}, 0.15);
  EXPECT_NEAR(*r.dynamic_j[0] * r.runs[0], 100.0 * r.window_s, 1.0);
}

TEST(Team, ProcessorsSharingAMeterHaveNoEnergyOfTheirOwn) {
  Team team({parse_device("cpu:0"), parse_device("cpu:1")}, with_coarse_meters(10.0, 0.05));
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_FALSE(team.info(i).has_energy());
    EXPECT_NE(team.info(i).energy_absent.find("cannot be told apart"), std::string::npos) << team.info(i).energy_absent;
  }
}

TEST(Team, BatchesShortRuns) {
  TeamOptions o = unrated();
  o.min_round_s = 0.1;
  Team team({parse_device("cpu:0")}, o);
  EXPECT_EQ(team.batch_for(0.2), 1);
  EXPECT_EQ(team.batch_for(0.01), 10);
  EXPECT_EQ(team.batch_for(0.03), 4);
}

// A platform whose executions take scripted times, with no clock: the first `slow` executions
// take 50 ms, every later one 7 ms; rounds should last 20 ms.
class ScriptedPlatform final : public Platform {
 public:
  explicit ScriptedPlatform(int slow) : slow_(slow) { info_.name = "scripted:0"; }
  std::size_t size() const override { return 1; }
  const ProcessorInfo& info(std::size_t) const override { return info_; }
  double round_seconds() const override { return 0.02; }
  int batch_for(double run_s) const override {
    return run_s >= 0.02 ? 1 : static_cast<int>(std::ceil(0.02 / run_s - 1e-9));
  }
  RoundResult run(Problem&, const std::vector<Block>&, int batch) override {
    double total = 0;
    for (int k = 0; k < batch; ++k) total += executions_++ < slow_ ? 0.05 : 0.007;
    round_lengths.push_back(total);
    RoundResult r;
    r.batch = batch;
    r.runs = {batch};
    r.wall_s = total / batch;
    r.time_s = {total / batch};
    r.dynamic_j = {std::nullopt};
    return r;
  }
  RoundResult fill(Problem& p, const std::vector<Block>& b, double) override { return run(p, b, 1); }
  void set_base_power(std::size_t, double, std::string) override {}
  std::vector<std::string> measure_base_power(double) override { return {}; }
  std::unique_ptr<Problem> make_problem(const Workload&, const std::vector<Block>&, index_t, std::uint64_t) override {
    return nullptr;
  }
  Check verify(const Problem&, const std::vector<Block>&) override { return {}; }
  void write_output(const Problem&, const std::vector<Block>&, const std::string&) override {}

  std::vector<double> round_lengths;  // every round's seconds, warm-up and calibration included

 private:
  ProcessorInfo info_;
  int slow_, executions_ = 0;
};

// Rounds last --min-round whatever the first executions cost: a batch sized from a slow first
// run gave rounds of a third of it (the offload kind's +57 % to +141 % against its profile).
TEST(Measure, BatchesFillTheRoundAfterSlowFirstExecutions) {
  for (const int slow : {1, 2, 3}) {
    SCOPED_TRACE(slow);
    ScriptedPlatform platform(slow);
    auto problem = apps::catalog().find("matadd").make_problem(2, 2, 1, 1);
    const StopRule rule{3, 3, 0.5, 0};
    const MeasureResult m = measure(platform, *problem, {{0, 2}}, rule, RoundMode::executions);
    EXPECT_EQ(m.batch, 3);  // 3 x 7 ms >= 20 ms
    ASSERT_GE(platform.round_lengths.size(), 3U);
    for (std::size_t k = platform.round_lengths.size() - 3; k < platform.round_lengths.size(); ++k)
      EXPECT_GE(platform.round_lengths[k], 0.02) << "measured round " << k;
    EXPECT_NEAR(m.wall.mean, 0.007, 1e-12);
    EXPECT_EQ(m.reps, 3);
  }
}

TEST(Measure, StopsWhenTheIntervalsAreNarrowOrAtTheBound) {
  Team team({parse_device("cpu:0"), parse_device("cpu:1")}, quick());
  auto p = apps::catalog().find("fft2d").make_problem(32, 64, 2, 1);
  const std::vector<Block> blocks{{0, 16}, {16, 32}};
  StopRule loose{3, 20, 10.0, 0};  // a 1000 % interval: met as soon as min_reps are done
  int rounds_seen = 0;
  const MeasureResult a =
      measure(team, *p, blocks, loose, RoundMode::executions, [&](const RoundProgress&) { ++rounds_seen; });
  EXPECT_EQ(a.reps, 3);
  EXPECT_EQ(rounds_seen, 3 + a.discarded);  // every round reported, also those a larger batch dropped
  EXPECT_TRUE(a.converged);
  EXPECT_EQ(a.processors[0].time.n, 3U);
  EXPECT_FALSE(a.processors[0].energy.has_value() && !team.info(0).has_energy());
  StopRule tight{2, 4, 1e-9, 0};  // never met: stops at max_reps
  const MeasureResult b = measure(team, *p, blocks, tight, RoundMode::fill);
  EXPECT_EQ(b.reps, 4);
  EXPECT_FALSE(b.converged);
  EXPECT_NE(b.limiting.find("time of"), std::string::npos);
  StopFlag stop{true};
  const MeasureResult c = measure(team, *p, blocks, loose, RoundMode::fill, {}, &stop);
  EXPECT_TRUE(c.interrupted);
  EXPECT_EQ(c.reps, 0);
  EXPECT_THROW((StopRule{1, 5, 0.1, 0}.validate()), UsageError);
  EXPECT_THROW((StopRule{5, 4, 0.1, 0}.validate()), UsageError);
  EXPECT_THROW((StopRule{3, 5, 0, 0}.validate()), UsageError);
}

using ProfileFileTest = TempDir;

ProfileRow row(const std::string& proc, index_t size, double t) {
  ProfileRow r;
  r.processor = proc;
  r.size = size;
  r.time = t;
  r.reps = 3;
  r.time_ci = t / 100;
  r.app = "dgemm";
  r.cols = 64;
  r.gflops = 1.5;
  return r;
}

TEST_F(ProfileFileTest, WritesWhatCtrlParetoReads) {
  const std::string f = path("p.csv");
  {
    ProfileWriter w(f);
    w.write({row("cpu:0,2", 8, 0.5), row("cuda:0", 8, 0.25)});
    auto r = row("cpu:0,2", 16, 1.0);
    auto g = row("cuda:0", 16, 0.5);
    g.energy = 12.5;
    g.energy_measured = 12.5;
    g.energy_ci = 0.1;
    g.base_power = 75.0;
    g.energy_source = "nvml:0";
    g.energy_provenance = energy::Provenance::measured;
    w.write({r, g});
  }
  EXPECT_TRUE(is_profile_file(f));
  const ProfileFile pf = read_profile_file(f);
  EXPECT_EQ(pf.processors, (std::vector<std::string>{"cpu:0,2", "cuda:0"}));  // the comma survives quoting
  EXPECT_EQ(pf.complete_sizes, (std::vector<index_t>{8, 16}));
  EXPECT_EQ(pf.rows.size(), 4U);
  EXPECT_EQ(pf.dropped_rows, 0U);
  EXPECT_EQ(pf.rows[3].energy_source, "nvml:0");
  EXPECT_DOUBLE_EQ(*pf.rows[3].base_power, 75.0);
  EXPECT_FALSE(pf.rows[2].base_power.has_value());
  const auto profile = partition::read_profile_csv(f);  // `ctrl pareto`'s reader
  ASSERT_EQ(profile.size(), 2U);
  EXPECT_EQ(profile[0].name(), "cpu:0,2");
  EXPECT_DOUBLE_EQ(profile[1].find(16)->energy, 12.5);
  EXPECT_DOUBLE_EQ(profile[0].find(8)->time, 0.5);
}

TEST_F(ProfileFileTest, AnInterruptedFileKeepsItsCompleteSizes) {
  const std::string f = path("p.csv");
  {
    ProfileWriter w(f);
    w.write({row("cpu:0", 8, 0.5), row("cpu:1", 8, 0.6)});
    w.write({row("cpu:0", 16, 1.0), row("cpu:1", 16, 1.1)});
  }
  // An interruption in the middle of a size: one whole row of it, and a cut line.
  std::string text = slurp(f);
  text += format_profile_row(row("cpu:0", 24, 1.5)) + "\n" + format_profile_row(row("cpu:1", 24, 1.6)).substr(0, 9);
  spit(f, text);
  const ProfileFile pf = read_profile_file(f);
  EXPECT_EQ(pf.complete_sizes, (std::vector<index_t>{8, 16}));
  EXPECT_EQ(pf.rows.size(), 4U);
  EXPECT_EQ(pf.dropped_rows, 2U);
  // Rewriting keeps exactly the complete sizes, then appends.
  {
    ProfileWriter w(f);
    EXPECT_EQ(w.existing().dropped_rows, 2U);
    w.write({row("cpu:0", 24, 1.5), row("cpu:1", 24, 1.6)});
  }
  const ProfileFile again = read_profile_file(f);
  EXPECT_EQ(again.complete_sizes, (std::vector<index_t>{8, 16, 24}));
  EXPECT_EQ(again.dropped_rows, 0U);
  EXPECT_EQ(partition::read_profile_csv(f)[1].size(), 3U);
}

// read_profile: the one reader of `ctrl pareto` and `ctrl run`, for either kind of file.
TEST_F(ProfileFileTest, ReadProfileTakesEitherKindOfFileAndOnlyCompleteSizes) {
  const std::string f = path("p.csv");
  {
    ProfileWriter w(f);
    w.write({row("cpu:0", 8, 0.5), row("cpu:1", 8, 0.6)});
  }
  spit(f, slurp(f) + format_profile_row(row("cpu:0", 16, 1.0)) + "\n" +
              format_profile_row(row("cpu:1", 16, 1.1)).substr(0, 7));  // interrupted in size 16
  const LoadedProfile loaded = read_profile(f);
  ASSERT_TRUE(loaded.file.has_value());
  EXPECT_EQ(loaded.file->dropped_rows, 2U);
  ASSERT_EQ(loaded.profile.size(), 2U);
  EXPECT_EQ(loaded.profile[0].size(), 1U);                   // size 16 was not measured on every processor
  EXPECT_THROW(partition::read_profile_csv(f), UsageError);  // the cut line, for a reader of plain CSV

  spit(path("plain.csv"), "Processor , Size,Time,Energy,note\na,2,1.5,3,x\nb,2,1,2,y\n");
  const LoadedProfile plain = read_profile(path("plain.csv"));
  EXPECT_FALSE(plain.file.has_value());
  EXPECT_EQ(plain.profile.names(), (std::vector<std::string>{"a", "b"}));

  spit(path("started.csv"), profile_header() + "\n");
  try {
    (void)read_profile(path("started.csv"));
    FAIL() << "a profile without a complete size was read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("started.csv: no size has been measured"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)read_profile(path("missing.csv")), UsageError);
}

TEST_F(ProfileFileTest, ForeignAndMalformedFilesAreRefused) {
  EXPECT_TRUE(read_profile_file(path("missing.csv")).rows.empty());
  spit(path("empty.csv"), "");
  EXPECT_TRUE(read_profile_file(path("empty.csv")).rows.empty());
  spit(path("cut-header.csv"), profile_header().substr(0, 12));  // not resumed: appending would corrupt it
  try {
    read_profile_file(path("cut-header.csv"));
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("cut-header.csv:1: the header is cut short"), std::string::npos) << e.what();
  }
  spit(path("other.csv"), "processor,size,time,energy\ncpu,1,1,1\n");
  EXPECT_THROW(read_profile_file(path("other.csv")), UsageError);
  spit(path("bad.csv"), profile_header() + "\ncpu:0,8,abc,0,3,1,0,,,,none,absent,1,1,dgemm,64,,1,,profile\n");
  try {
    read_profile_file(path("bad.csv"));
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.csv:2: non-numeric time 'abc'"), std::string::npos) << e.what();
  }
  spit(path("twice.csv"), profile_header() + "\n" + format_profile_row(row("cpu:0", 8, 1)) + "\n" +
                              format_profile_row(row("cpu:0", 8, 1)) + "\n");
  EXPECT_THROW(read_profile_file(path("twice.csv")), UsageError);
}

// One writer per file: the second fails at once, naming the file. A writer that wrote nothing
// into the file it created removes it.
TEST_F(ProfileFileTest, OneWriterAtATime) {
  const std::string f = path("p.csv");
  {
    ProfileWriter first(f);
    try {
      ProfileWriter second(f);
      FAIL() << "no error";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(f + ": another ctrl command is writing it"), std::string::npos) << e.what();
    }
    first.write({row("cpu:0", 8, 0.5)});
  }
  EXPECT_EQ(read_profile_file(f).rows.size(), 1U);
  { ProfileWriter again(f); }  // the file was there: kept
  EXPECT_EQ(read_profile_file(f).rows.size(), 1U);
  { ProfileWriter unused(path("new.csv")); }
  EXPECT_FALSE(std::filesystem::exists(path("new.csv")));
}

ProfileRow learned_row(const std::string& proc, index_t size, double t) {
  ProfileRow r = row(proc, size, t);
  r.learned = true;
  return r;
}

// Rows a run added: kept apart from the profile's steps, taken at their size by both readers,
// kept by a rewrite; files without the column are the profile's alone.
TEST_F(ProfileFileTest, RowsARunAddedAreTakenAtTheirSize) {
  const std::string f = path("p.csv");
  {
    ProfileWriter w(f);
    w.write({row("cpu:0", 8, 0.5), row("cpu:1", 8, 0.6)});
    w.write({row("cpu:0", 16, 1.0), row("cpu:1", 16, 1.1)});
  }
  {
    ProfileWriter w(f, "--profile");
    w.write({learned_row("cpu:0", 8, 0.3), learned_row("cpu:1", 12, 0.9)});
  }
  {
    ProfileWriter w(f, "--profile");
    w.write({learned_row("cpu:0", 8, 0.35)});  // a later run at the same size: the last one counts
  }
  ProfileFile pf = read_profile_file(f);
  EXPECT_EQ(pf.rows.size(), 4U);
  ASSERT_EQ(pf.learned.size(), 3U);
  EXPECT_EQ(pf.complete_sizes, (std::vector<index_t>{8, 16}));
  EXPECT_EQ(pf.dropped_rows, 0U);
  const partition::Profile mine = to_partition_profile(pf);
  const partition::Profile plain = partition::read_profile_csv(f);  // the partition library's reader
  for (const partition::Profile* p : {&mine, &plain}) {
    EXPECT_DOUBLE_EQ((*p)[0].find(8)->time, 0.35);
    EXPECT_DOUBLE_EQ((*p)[0].find(16)->time, 1.0);
    EXPECT_DOUBLE_EQ((*p)[1].find(8)->time, 0.6);
    EXPECT_DOUBLE_EQ((*p)[1].find(12)->time, 0.9);
  }
  // An interrupted profile step after them: the rewrite keeps the learned rows.
  spit(f, slurp(f) + format_profile_row(row("cpu:0", 24, 1.5)) + "\n");
  {
    ProfileWriter w(f);
    EXPECT_EQ(w.existing().dropped_rows, 1U);
    w.write({row("cpu:0", 24, 1.5), row("cpu:1", 24, 1.6)});
  }
  pf = read_profile_file(f);
  EXPECT_EQ(pf.learned.size(), 3U);
  EXPECT_EQ(pf.complete_sizes, (std::vector<index_t>{8, 16, 24}));
  // The format before the column: every row the profile's.
  std::string old = slurp(f);
  std::string out;
  for (std::size_t at = 0; at < old.size();) {
    const std::size_t nl = old.find('\n', at);
    std::string line = old.substr(at, nl - at);
    if (line.find(",run") != std::string::npos) {
      at = nl + 1;
      continue;
    }
    out += line.substr(0, line.rfind(',')) + "\n";
    at = nl + 1;
  }
  spit(f, out);
  pf = read_profile_file(f);
  EXPECT_TRUE(pf.earlier_format);
  EXPECT_EQ(pf.rows.size(), 6U);
  EXPECT_TRUE(pf.learned.empty());
  spit(f, profile_header() + "\n" + format_profile_row(row("cpu:0", 8, 0.5)));
  std::string text = slurp(f);
  text.replace(text.rfind(",profile"), 8, ",runs");
  spit(f, text + "\n");
  try {
    (void)read_profile_file(f);
    ADD_FAILURE() << "read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("measured_in 'runs' is neither profile nor run"), std::string::npos)
        << e.what();
  }
}

// learn(): one row per processor with rows, the file untouched when it is not the run's profile;
// drifts(): a processor that left its prediction by more than its interval and 10 %.
TEST_F(ProfileFileTest, ARunTeachesItsProfileAndNamesWhatDrifted) {
  const std::string f = path("p.csv");
  {
    ProfileWriter w(f);
    w.write({row("cpu:0", 8, 0.5), row("cpu:1", 8, 0.6)});
    w.write({row("cpu:0", 16, 1.0), row("cpu:1", 16, 1.1)});
  }
  const Workload& dgemm = apps::catalog().find("dgemm");
  Plan plan;
  plan.processors = {"cpu:0", "cpu:1"};
  plan.rows = {12, 0};
  plan.cols = 64;
  plan.profile = f;
  RunOutcome outcome;
  outcome.cols = 64;
  outcome.check.ok = true;
  outcome.measured.reps = 4;
  outcome.measured.processors.resize(2);
  outcome.measured.processors[0].runs_per_round = 6.4;
  ProcessorRun a;
  a.name = "cpu:0";
  a.rows = 12;
  a.time = {4, 0.9, 0.01, 0.02};
  a.predicted.time = 0.75;
  ProcessorRun b;
  b.name = "cpu:1";
  outcome.processors = {a, b};
  const std::string before = slurp(f);
  const auto refused = [&](const Workload& app, const Plan& p, const RunOutcome& o, const std::string& says) {
    try {
      (void)learn(f, app, p, o, "--profile");
      ADD_FAILURE() << "learned";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
    EXPECT_EQ(slurp(f), before);
  };
  refused(apps::catalog().find("matadd"), plan, outcome, "is a profile of dgemm, not of matadd");
  Plan other = plan;
  other.cols = 32;
  refused(dgemm, other, outcome, "measured with N = 64, the run with N = 32");
  other = plan;
  other.processors = {"cpu:0", "cpu:2"};
  refused(dgemm, other, outcome, "profiles cpu:0, cpu:1, the run ran cpu:0, cpu:2");
  RunOutcome wrong = outcome;
  wrong.check.ok = false;
  refused(dgemm, plan, wrong, "the run's check failed");
  EXPECT_THROW(check_learnable(f, apps::catalog().find("matadd"), plan), UsageError);

  const std::vector<ProfileRow> added = learn(f, dgemm, plan, outcome, "--profile");
  ASSERT_EQ(added.size(), 1U);  // cpu:1 had no rows
  const ProfileFile pf = read_profile_file(f);
  ASSERT_EQ(pf.learned.size(), 1U);
  EXPECT_EQ(pf.learned[0].processor, "cpu:0");
  EXPECT_EQ(pf.learned[0].size, 12);
  EXPECT_DOUBLE_EQ(pf.learned[0].time, 0.9);
  EXPECT_EQ(pf.learned[0].reps, 4);
  EXPECT_EQ(pf.learned[0].batch, 6);
  EXPECT_DOUBLE_EQ(to_partition_profile(pf)[0].find(12)->time, 0.9);

  // 0.9 s against 0.75 predicted: 20 % off, beyond ±0.02 + 10 %.
  const std::vector<Drift> d = drifts(outcome);
  ASSERT_EQ(d.size(), 1U);
  EXPECT_EQ(d[0].processor, "cpu:0");
  EXPECT_NE(d[0].advice.find("cpu:0 at 12 rows took 900 ms against 750 ms predicted (+20.0 %)"), std::string::npos)
      << d[0].advice;
  EXPECT_NE(d[0].advice.find("--learn"), std::string::npos);
  outcome.processors[0].time.mean = 0.82;  // 9.3 % off: within 0.02 + 10 %
  EXPECT_TRUE(drifts(outcome).empty());
}

// --refine: the sizes a front's points use and their neighbours, less those measured, as many for
// every processor.
TEST_F(ProfileFileTest, ARefinementMeasuresTheFrontsSizesAndTheirNeighbours) {
  const std::string f = path("p.csv");
  {
    ProfileWriter w(f);
    w.write({row("cpu:0", 8, 0.5), row("cpu:1", 8, 0.6)});
    w.write({row("cpu:0", 16, 1.0), row("cpu:1", 16, 1.1)});
  }
  const ProfileFile pf = read_profile_file(f);
  const partition::Front front{{1.0, 2.0, {8, 12}}, {1.2, 1.5, {10, 10}}};
  const auto sizes = refine_sizes(front, {"cpu:0", "cpu:1"}, pf, 1, 1);
  ASSERT_EQ(sizes.size(), 2U);
  EXPECT_EQ(sizes[0].first, "cpu:0");
  EXPECT_EQ(sizes[0].second, (std::vector<index_t>{7, 9, 10, 11, 12}));  // 8 is measured; 12 continues the list
  EXPECT_EQ(sizes[1].second, (std::vector<index_t>{9, 10, 11, 12, 13}));
  // Granules of 4: neighbours 4 rows away, all measured here: nothing to refine.
  ProfileFile fours;
  for (const index_t x : {4, 8, 12})
    for (const char* p : {"cpu:0", "cpu:1"}) fours.rows.push_back(row(p, x, 0.1 * static_cast<double>(x)));
  EXPECT_TRUE(refine_sizes({{1.0, 1.0, {8, 8}}}, {"cpu:0", "cpu:1"}, fours, 4, 4).empty());
  // 1000 rows: the neighbours are 2 % away, in granules.
  const auto wide = refine_sizes({{1.0, 1.0, {1000, 0}}}, {"cpu:0", "cpu:1"}, fours, 4, 4);
  ASSERT_EQ(wide.size(), 2U);
  EXPECT_EQ(wide[0].second, (std::vector<index_t>{980, 1000, 1020}));
  EXPECT_EQ(wide[1].second.size(), 3U);  // cpu:1 has none of its own: above its largest measured size
  EXPECT_GT(wide[1].second.front(), 12);
}

// Stops the profile after `after` sizes, as Ctrl-C does.
class StopAfter final : public ProfileObserver {
 public:
  StopAfter(StopFlag& flag, std::size_t after) : flag_(flag), after_(after) {}
  void size_end(const Step&, const MeasureResult&, const std::vector<ProfileRow>&) override {
    if (++done_ == after_) flag_.store(true);
  }
  void note(const std::string& line) override { notes.push_back(line); }
  std::vector<std::string> notes;

 private:
  StopFlag& flag_;
  std::size_t after_;
  std::size_t done_ = 0;
};

using ProfileRun = TempDir;

TEST_F(ProfileRun, EnergyColumnsFromAMeter) {
  const Workload& app = apps::catalog().find("fft2d");
  ProfileRequest req;
  req.cols = 32;
  req.devices = {parse_device("cpu:0")};
  req.sizes = {8, 16};
  req.out = path("p.csv");
  req.rule = {2, 3, 10.0, 0};
  req.team = with_coarse_meters(50.0, 0.02);
  req.idle_seconds = 0.3;  // measured "awake": 50 W, so the dynamic energy is about 0
  ProfileObserver quiet;
  const ProfileOutcome o = run_profile(app, req, quiet);
  ASSERT_EQ(o.processors.size(), 1U);
  ASSERT_TRUE(o.processors[0].base_power_w.has_value());
  EXPECT_NEAR(*o.processors[0].base_power_w, 50.0, 1.0);  // aligned readings: well within one update
  ASSERT_TRUE(o.platform_base_power.has_value());
  const ProfileFile pf = read_profile_file(req.out);
  ASSERT_EQ(pf.rows.size(), 2U);
  for (const auto& r : pf.rows) {
    EXPECT_EQ(r.energy_source, "test:0");
    ASSERT_TRUE(r.base_power && r.energy_measured && r.energy_ci);
    EXPECT_DOUBLE_EQ(*r.base_power, *o.processors[0].base_power_w);
    EXPECT_GE(r.energy, 0.0);  // clamped
    EXPECT_EQ(r.energy, std::max(0.0, *r.energy_measured));
    EXPECT_LT(std::fabs(*r.energy_measured) * r.batch, 5.0);
  }
  // Given base power 0: the energy column is total energy, 50 W x time per run.
  ProfileRequest total = req;
  total.out = path("q.csv");
  total.base_power = {{"cpu:0", 0.0}};
  run_profile(app, total, quiet);
  for (const auto& r : read_profile_file(total.out).rows) {
    EXPECT_DOUBLE_EQ(*r.base_power, 0.0);
    EXPECT_GT(r.energy, 0.0);
  }
}

// An interrupted profile of `name` resumes; its file refuses other processors, applications, N.
void interrupted_then_resumed(const std::string& name, const std::string& other_name, TempDir& dir) {
  const Workload& app = apps::catalog().find(name);
  ProfileRequest req;
  req.cols = 24;
  req.devices = {parse_device("cpu:0"), parse_device("cpu:1")};
  req.sizes = {4, 8, 12, 16};
  req.out = dir.path(name + ".csv");
  req.rule = {2, 3, 10.0, 0};
  req.team = quick();
  req.idle_seconds = 0;
  StopFlag stop{false};
  StopAfter first(stop, 2);
  const ProfileOutcome a = run_profile(app, req, first, &stop);
  EXPECT_TRUE(a.interrupted);
  EXPECT_EQ(a.measured, 2U);
  EXPECT_EQ(read_profile_file(req.out).complete_sizes, (std::vector<index_t>{4, 8}));

  // A cut line, as if killed while writing; then the same request resumes.
  std::ofstream(req.out, std::ios::app) << "cpu:0,12,0.1";
  StopFlag never{false};
  StopAfter second(never, 100);
  const ProfileOutcome b = run_profile(app, req, second, &never);
  EXPECT_FALSE(b.interrupted);
  EXPECT_EQ(b.resumed, 2U);
  EXPECT_EQ(b.measured, 2U);
  ASSERT_FALSE(second.notes.empty());
  EXPECT_NE(second.notes.front().find("resuming"), std::string::npos) << second.notes.front();
  const ProfileFile pf = read_profile_file(req.out);
  EXPECT_EQ(pf.complete_sizes, (std::vector<index_t>{4, 8, 12, 16}));
  EXPECT_EQ(pf.dropped_rows, 0U);
  for (const auto& r : pf.rows) {
    EXPECT_GT(r.time, 0.0);
    EXPECT_EQ(r.cols, 24);
    EXPECT_EQ(r.app, name);
    EXPECT_GE(r.reps, 2);
  }
  // Nothing left: a third run measures nothing.
  StopAfter third(never, 100);
  EXPECT_EQ(run_profile(app, req, third, &never).measured, 0U);

  // Other processors, application or N: refused, the file untouched.
  const std::string before = TempDir::slurp(req.out);
  ProfileRequest other = req;
  other.devices = {parse_device("cpu:1"), parse_device("cpu:0")};
  EXPECT_THROW(run_profile(app, other, third), UsageError);
  other = req;
  EXPECT_THROW(run_profile(apps::catalog().find(other_name), other, third), UsageError);
  other.cols = 32;
  EXPECT_THROW(run_profile(app, other, third), UsageError);
  EXPECT_EQ(TempDir::slurp(req.out), before);
}

TEST_F(ProfileRun, InterruptedThenResumed) { interrupted_then_resumed("dgemm", "fft2d", *this); }
// The case studies' profiles resume alike; jacobi's blocks run alone, their halos kept.
TEST_F(ProfileRun, CaseStudiesInterruptedThenResumed) {
  interrupted_then_resumed("jacobi", "matadd", *this);
  interrupted_then_resumed("blackscholes", "dgemm", *this);
}

}  // namespace
}  // namespace ctrl::loop
