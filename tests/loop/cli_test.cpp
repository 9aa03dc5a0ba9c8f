// `ctrl devices | power | profile | run` end to end, through the built tool: outputs, files, the
// loop profile -> pareto -> run, resumption after an interruption, and exit codes (0 ok, 1 failure,
// 2 bad arguments or input, 130 interrupted).
#include <ctrl/config.hpp>
#include <ctrl/io/npy.hpp>
#include <ctrl/loop/machine.hpp>
#include <ctrl/partition/profile_csv.hpp>

#include <gtest/gtest.h>

#include "run_command.hpp"
#include "scratch_dir.hpp"

#include <nlohmann/json.hpp>
#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) { return ctrl::test::read_file(path); }

using Result = ctrl::test::CommandResult;

// Small and quick: a profile with tiny sizes on the two cores of the CI machine. The CPU's energy
// is estimated at 5 W per busy core where no counter measures it (RAPL, where there is one, wins),
// so that every profile has energy for its front, whatever this machine has.
const std::vector<std::string> quick = {"--min-round", "0.002", "--max-reps",   "4",   "--progress", "plain",
                                        "--cpu-power", "5",     "--min-window", "0.02"};

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(CTRL_TOOL)) GTEST_SKIP() << "not built: " << CTRL_TOOL;
  }

  Result run(const std::vector<std::string>& args, const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> argv{CTRL_TOOL};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), extra.begin(), extra.end());
    return ctrl::test::run_command(argv, dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // A profile of dgemm on cpu:0 and cpu:1, and its front.
  void make_profile_and_front(const std::string& app = "dgemm", const std::string& cols = "32") {
    const Result p = run({"profile", app, "--device", "cpu:0", "--device", "cpu:1", "--sizes", "4:16:4", "--cols", cols,
                          "--out", path("p.csv")},
                         quick);
    ASSERT_EQ(p.code, 0) << p.out << p.err;
    const Result f = run({"pareto", "--profile", path("p.csv"), "--workload", "20", "--format", "json"});
    ASSERT_EQ(f.code, 0) << f.err;
    std::ofstream(path("front.json")) << f.out;
  }

  ctrl::test::ScratchDir dir_{"ctrl-loop-cli"};
};

TEST_F(Cli, DevicesTableAndJson) {
  const Result t = run({"devices"});
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("CPU "), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("package 0"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("NUMA node"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("Energy meters"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("Processors to profile"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("\nnext: ctrl profile matadd"), std::string::npos) << t.out;  // what to do next
  const Result j = run({"devices", "--format", "json"});
  ASSERT_EQ(j.code, 0) << j.err;
  EXPECT_EQ(j.out, ctrl::loop::machine_report_json(ctrl::loop::describe_machine()));  // the library's report
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_GE(doc.at("cpu").at("logical_cores").get<int>(), 1);
  EXPECT_FALSE(doc.at("cpu").at("packages").empty());
  EXPECT_TRUE(doc.at("cpu").at("packages")[0].at("meter").contains("present"));
  EXPECT_TRUE(doc.at("gpus").is_array());
  EXPECT_FALSE(doc.at("meters").empty());
  EXPECT_FALSE(doc.at("suggested").empty());
  const Result s = run({"devices", "--format", "specs", "--groups", "1"});
  ASSERT_EQ(s.code, 0);
  EXPECT_EQ(s.out.rfind("cpu:", 0), 0U) << s.out;
  EXPECT_EQ(run({"devices", "--format", "yaml"}).code, 2);
}

TEST_F(Cli, PowerIdle) {
  const Result r = run({"power", "--idle", "--seconds", "0.3", "--device", "cpu:0", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc.at("devices").size(), 1U);
  const auto& d = doc.at("devices")[0];
  EXPECT_EQ(d.at("device"), "cpu:0");
  if (d.at("base_power_w").is_null())
    EXPECT_EQ(d.at("reason").get<std::string>().rfind("no sensor: ", 0), 0U);
  else
    EXPECT_GT(d.at("base_power_w").get<double>(), 0.0);
  const Result t = run({"power", "--idle", "--seconds", "0.2"});
  EXPECT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("cpu"), std::string::npos);
  const Result bad = run({"power", "--seconds", "1"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--idle"), std::string::npos) << bad.err;
  EXPECT_EQ(run({"power", "--idle", "--seconds", "0"}).code, 2);
  // A core this machine lacks is bad input, not a device without a sensor.
  const Result missing = run({"power", "--idle", "--seconds", "0.2", "--device", "cpu:4096"});
  EXPECT_EQ(missing.code, 2) << missing.out << missing.err;
  EXPECT_NE(missing.err.find("core 4096 does not exist on this machine"), std::string::npos) << missing.err;
}

// --cpu-power: checked wherever it is taken; with it, every CPU has energy, measured (RAPL, where
// readable here) or estimated, and says which.
TEST_F(Cli, CpuPowerIsCheckedAndEstimatesAreLabelled) {
  for (const char* bad : {"0", "-2", "500", "lots"}) {
    const Result r = run({"devices", "--cpu-power", bad});
    EXPECT_EQ(r.code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--cpu-power"), std::string::npos) << r.err;
  }
  const Result p =
      run({"profile", "dgemm", "--device", "cpu:0", "--sizes", "4", "--out", path("p.csv"), "--cpu-power", "500"});
  EXPECT_EQ(p.code, 2) << p.err;
  EXPECT_FALSE(fs::exists(path("p.csv")));

  const Result j = run({"devices", "--format", "json", "--cpu-power", "5"});
  ASSERT_EQ(j.code, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  const auto& meter = doc.at("cpu").at("packages")[0].at("meter");
  EXPECT_TRUE(meter.at("present").get<bool>()) << meter;
  EXPECT_NE(meter.at("provenance"), "absent") << meter;
  bool estimate_listed = false;
  for (const auto& m : doc.at("meters"))
    if (m.at("name") == "estimate") {
      estimate_listed = true;
      EXPECT_TRUE(m.at("present").get<bool>()) << m;
      EXPECT_EQ(m.at("provenance"), "estimated");
      EXPECT_NE(m.at("measures").get<std::string>().find("5 W per busy core (given by --cpu-power)"),
                std::string::npos);
    }
  EXPECT_TRUE(estimate_listed) << j.out;
  const Result t = run({"devices", "--cpu-power", "5"});
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("(estimated)"), std::string::npos) << t.out;
}

// Where no counter measures the CPU, its profiled energy is estimated and every output says so; a
// profile resumed with another rating would mix two models, and is refused.
TEST_F(Cli, EstimatedEnergyIsLabelledFromProfileToRun) {
  make_profile_and_front();
  const std::string csv = slurp(path("p.csv"));
  if (csv.find(",measured,") != std::string::npos) GTEST_SKIP() << "this machine measures its CPU (RAPL)";
  EXPECT_NE(csv.find(",estimate:cpu:0 (5 W/core),estimated,"), std::string::npos) << csv;
  EXPECT_NE(slurp(path("front.json")).find("\"cpu:0\": \"estimated\""), std::string::npos);
  const Result r =
      run({"run", "dgemm", "--front", path("front.json"), "--pick", "least-energy", "--profile", path("p.csv")}, quick);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("(estimated: estimate:cpu:"), std::string::npos) << r.out;
  const Result again =
      run({"profile", "dgemm", "--device", "cpu:0", "--device", "cpu:1", "--sizes", "4:20:4", "--cols", "32", "--out",
           path("p.csv"), "--min-round", "0.002", "--max-reps", "4", "--cpu-power", "7"});
  EXPECT_EQ(again.code, 2) << again.err;
  EXPECT_NE(again.err.find("resume with the same energy source (the same --cpu-power"), std::string::npos) << again.err;
  EXPECT_EQ(slurp(path("p.csv")), csv);
}

TEST_F(Cli, PowerCheckComparesCountersWithPowerReadings) {
  const Result r = run({"power", "--check", "--seconds", "0.2", "--device", "cpu:0", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc.at("devices").size(), 1U);
  const auto& d = doc.at("devices")[0];
  EXPECT_EQ(d.at("device"), "cpu:0");
  // No CPU meter has power readings (RAPL, an estimate), and without one there is no sensor.
  EXPECT_FALSE(d.at("compared").get<bool>()) << d;
  EXPECT_FALSE(d.at("reason").get<std::string>().empty());
  const Result t = run({"power", "--check", "--seconds", "0.2", "--device", "cpu:0"});
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("cpu:0        not compared: "), std::string::npos) << t.out;
  for (const auto& bad : {std::vector<std::string>{"power", "--idle", "--check"}, std::vector<std::string>{"power"},
                          std::vector<std::string>{"power", "--check", "--interval-ms", "0"},
                          std::vector<std::string>{"power", "--check", "--seconds", "-1"}}) {
    const Result b = run(bad);
    EXPECT_EQ(b.code, 2) << bad.back() << ": " << b.err;
  }
}

TEST_F(Cli, ProfileWritesAProfileForPareto) {
  const Result r = run({"profile", "dgemm", "--device", "cpu:0", "--device", "cpu:1", "--sizes", "4:12:4", "--cols",
                        "24", "--out", path("p.csv")},
                       quick);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("profile: step 3/3:"), std::string::npos) << r.err;  // plain lines, not a bar
  EXPECT_NE(r.err.find("cpu:1 12 rows"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos);
  EXPECT_NE(r.out.find("next: ctrl pareto"), std::string::npos) << r.out;
  const auto profile = ctrl::partition::read_profile_csv(path("p.csv"));
  ASSERT_EQ(profile.size(), 2U);
  EXPECT_EQ(profile[0].name(), "cpu:0");
  EXPECT_EQ(profile[1].name(), "cpu:1");
  EXPECT_EQ(profile[0].size(), 3U);
  const std::string text = slurp(path("p.csv"));
  EXPECT_EQ(text.rfind("processor,size,time,energy,reps,batch,time_ci,energy_ci", 0), 0U) << text;
  EXPECT_NE(text.find(",dgemm,24"), std::string::npos);
}

TEST_F(Cli, ProfileResumesAnInterruptedFile) {
  const std::vector<std::string> args = {"profile", "fft2d", "--device", "cpu:0", "--device", "cpu:1",
                                         "--sizes", "2:8:2", "--cols",   "16",    "--out",    path("p.csv")};
  ASSERT_EQ(run(args, quick).code, 0);
  // Cut the file inside its last size, as an interruption would.
  std::string text = slurp(path("p.csv"));
  const std::size_t last = text.rfind('\n', text.size() - 2);
  text.resize(last + 10);
  std::ofstream(path("p.csv"), std::ios::binary | std::ios::trunc) << text;
  const Result r = run(args, quick);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("resuming"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("1 step measured now, 3 already there"), std::string::npos) << r.out;
  EXPECT_EQ(ctrl::partition::read_profile_csv(path("p.csv"))[1].size(), 4U);
  // Other devices against the same file: refused, nothing measured.
  std::vector<std::string> other = args;
  other[3] = "cpu:1";
  other[5] = "cpu:0";
  const Result o = run(other, quick);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("repeat the same command to resume"), std::string::npos) << o.err;
}

TEST_F(Cli, ProfileStopsOnInterruptAndResumes) {
  const std::vector<std::string> args = {CTRL_TOOL,    "profile", "dgemm",       "--device",    "cpu:0",
                                         "--device",   "cpu:1",   "--sizes",     "8:4000:8",    "--cols",
                                         "96",         "--out",   path("p.csv"), "--min-round", "0.01",
                                         "--max-reps", "5",       "--progress",  "none"};
  const pid_t pid = ctrl::test::spawn(args);
  ASSERT_GE(pid, 0);
  // Ctrl-C once three sizes are in the file (a header and two rows each), however long they took:
  // 500 sizes, so that the profile is still running then. The bound only turns a hang into a failure.
  const auto lines = [&] {
    const std::string text = slurp(path("p.csv"));
    return std::count(text.begin(), text.end(), '\n');
  };
  int status = 0;
  bool ended = false;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  while (lines() < 7 && !ended && std::chrono::steady_clock::now() < give_up) {
    ended = ::waitpid(pid, &status, WNOHANG) == pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!ended) {
    ::kill(pid, SIGINT);
    ::waitpid(pid, &status, 0);
  }
  ASSERT_FALSE(ended) << "the profile ended by itself before three sizes were measured";
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  const std::size_t kept = ctrl::partition::read_profile_csv(path("p.csv"))[0].size();
  EXPECT_GE(kept, 3U);
  EXPECT_LT(kept, 50U);
  // The same command, limited to the sizes already there, has nothing to do.
  std::vector<std::string> again(args.begin() + 1, args.end());
  again[7] = "8";
  const Result r = run(again);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("0 steps measured now, 1 already there"), std::string::npos) << r.out;
}

TEST_F(Cli, RunTheFrontsPointsAndASplit) {
  make_profile_and_front();
  for (const std::string pick : {"fastest", "least-energy", "load-balanced", "even", "1"}) {
    const Result r =
        run({"run", "dgemm", "--front", path("front.json"), "--pick", pick, "--profile", path("p.csv")}, quick);
    ASSERT_EQ(r.code, 0) << pick << ": " << r.out << r.err;
    EXPECT_NE(r.out.find("check: passed"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("distribution (20 rows)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("predicted"), std::string::npos);
  }
  const Result j =
      run({"run", "dgemm", "--split", "cpu:0=7", "--split", "cpu:1=0", "--cols", "40", "--format", "json"}, quick);
  ASSERT_EQ(j.code, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc.at("rows"), 7);
  EXPECT_EQ(doc.at("cols"), 40);
  EXPECT_TRUE(doc.at("check").at("ok").get<bool>());
  ASSERT_EQ(doc.at("processors").size(), 2U);
  EXPECT_EQ(doc.at("processors")[1].at("rows"), 0);
  EXPECT_TRUE(doc.at("processors")[1].at("time").at("measured").is_null());
  EXPECT_GT(doc.at("total").at("time").at("measured").at("mean").get<double>(), 0.0);
  EXPECT_TRUE(doc.at("total").at("time").at("predicted").is_null());  // no profile, no prediction
  // With the profile of the same N, predictions per processor.
  const Result p =
      run({"run", "dgemm", "--split", "cpu:0=8", "--split", "cpu:1=12", "--profile", path("p.csv"), "--format", "json"},
          quick);
  ASSERT_EQ(p.code, 0) << p.err;
  const auto pd = nlohmann::json::parse(p.out);
  EXPECT_EQ(pd.at("cols"), 32);
  EXPECT_GT(pd.at("processors")[0].at("time").at("predicted").get<double>(), 0.0);
  EXPECT_FALSE(pd.at("total").at("time").at("error").is_null());
}

// A budget names its point and why; a budget no point meets is exit 3, naming the bound and the
// nearest point.
TEST_F(Cli, RunTheBestPointWithinABudget) {
  make_profile_and_front();
  const Result r =
      run({"run", "dgemm", "--profile", path("p.csv"), "--workload", "20", "--pick", "energy@time+10%"}, quick);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("\nchosen: least energy within +10 % of the fastest time (time ≤ "), std::string::npos) << r.out;
  const Result j =
      run({"run", "dgemm", "--front", path("front.json"), "--pick", "time@energy<=1kJ", "--format", "json"}, quick);
  ASSERT_EQ(j.code, 0) << j.out << j.err;
  EXPECT_NE(nlohmann::json::parse(j.out).at("chosen_because").get<std::string>().find("fastest within 1000 J"),
            std::string::npos)
      << j.out;
  const Result none = run({"run", "dgemm", "--front", path("front.json"), "--pick", "energy@time<=1us"}, quick);
  EXPECT_EQ(none.code, 3) << none.out << none.err;
  EXPECT_NE(none.err.find("no point of the front "), std::string::npos) << none.err;
  EXPECT_NE(none.err.find("has time ≤ 1.0 us; the nearest is point 1 of"), std::string::npos) << none.err;
}

// --learn: the run's rows go into its profile (the profile's own kept), and the next plan predicts
// them; a profile the run cannot teach is refused before the run, the file untouched.
TEST_F(Cli, RunLearnsIntoItsProfile) {
  make_profile_and_front();
  const std::string before = slurp(path("p.csv"));
  const Result other = run({"run", "dgemm", "--profile", path("p.csv"), "--split", "cpu:0=20", "--learn"}, quick);
  EXPECT_EQ(other.code, 2) << other.out << other.err;
  EXPECT_NE(other.err.find("the run ran cpu:0"), std::string::npos) << other.err;
  EXPECT_EQ(other.out.find("check:"), std::string::npos) << "ran: " << other.out;
  EXPECT_EQ(slurp(path("p.csv")), before);
  const Result none = run({"run", "dgemm", "--split", "cpu:0=8", "--learn"}, quick);
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("--learn needs --profile"), std::string::npos) << none.err;

  const Result r =
      run({"run", "dgemm", "--profile", path("p.csv"), "--split", "cpu:0=6", "--split", "cpu:1=14", "--learn"}, quick);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("learned: 2 rows added to " + path("p.csv")), std::string::npos) << r.out;
  const std::string after = slurp(path("p.csv"));
  EXPECT_EQ(after.rfind(before, 0), 0U) << "the profile's rows are kept as they were";
  EXPECT_NE(after.find("cpu:0,6,"), std::string::npos) << after;
  EXPECT_NE(after.find("cpu:1,14,"), std::string::npos) << after;
  const Result j =
      run({"run", "dgemm", "--profile", path("p.csv"), "--split", "cpu:0=6", "--split", "cpu:1=14", "--format", "json"},
          quick);
  ASSERT_EQ(j.code, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_TRUE(doc.at("off_prediction").is_array());
  EXPECT_EQ(doc.at("learned_rows"), 0);
  const auto rows = ctrl::partition::read_profile_csv(path("p.csv"));
  EXPECT_DOUBLE_EQ(doc.at("processors")[0].at("time").at("predicted").get<double>(), rows[0].find(6)->time);
  EXPECT_EQ(run({"pareto", "--profile", path("p.csv"), "--workload", "20"}).code, 0);
}

// --refine: the front's sizes and their neighbours measured into its profile, once.
TEST_F(Cli, ProfileRefinesTheSizesOfAFront) {
  make_profile_and_front();
  const std::size_t rows = ctrl::partition::read_profile_csv(path("p.csv"))[0].size();
  const Result r =
      run({"profile", "dgemm", "--refine", path("front.json"), "--out", path("p.csv"), "--cols", "32"}, quick);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_GT(ctrl::partition::read_profile_csv(path("p.csv"))[0].size(), rows);
  const Result again =
      run({"profile", "dgemm", "--refine", path("front.json"), "--out", path("p.csv"), "--cols", "32"}, quick);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.out.find("is measured already"), std::string::npos) << again.out;
  const Result both = run({"profile", "dgemm", "--refine", path("front.json"), "--sizes", "4", "--out", path("p.csv")});
  EXPECT_EQ(both.code, 2);
  EXPECT_NE(both.err.find("--refine chooses the sizes"), std::string::npos) << both.err;
  const Result empty = run({"profile", "dgemm", "--refine", path("front.json"), "--out", path("none.csv")});
  EXPECT_EQ(empty.code, 2);
  EXPECT_NE(empty.err.find("holds no profile to refine"), std::string::npos) << empty.err;
}

TEST_F(Cli, RunFft2dFromTheProfileAlone) {
  make_profile_and_front("fft2d", "64");
  const Result r = run({"run", "fft2d", "--profile", path("p.csv"), "--workload", "24", "--pick", "fastest"}, quick);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("check: passed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Parseval"), std::string::npos) << r.out;
}

TEST_F(Cli, DevicesWritesASelectionForThisHost) {
  const Result r = run({"devices", "--write-selection", path("sel.txt"), "--groups", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string text = slurp(path("sel.txt"));
  EXPECT_NE(text.find("\nhost "), std::string::npos) << "one process: a host line: " << text;
  EXPECT_NE(text.find(": cpu:"), std::string::npos) << text;
  EXPECT_FALSE(fs::exists(path("sel.txt.tmp")));
  const Result bad = run({"devices", "--write-selection", path("no/such/dir/sel.txt")});
  EXPECT_EQ(bad.code, 2) << bad.err;
  EXPECT_NE(bad.err.find("cannot write the selection file"), std::string::npos) << bad.err;
}

TEST_F(Cli, RunWritesTheOutputMatrixOnlyWhenItIsRight) {
  const Result r = run(
      {"run", "fft2d", "--split", "cpu:0=5", "--split", "cpu:1=3", "--cols", "16", "--output", path("Y.npy")}, quick);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto header = ctrl::npy::read_header(path("Y.npy"));
  EXPECT_EQ(header.dtype, "<c8");
  EXPECT_EQ(header.shape, (std::vector<std::size_t>{8, 16}));
  const Result d = run({"run", "dgemm", "--split", "cpu:0=4", "--cols", "8", "--output", path("C.npy")}, quick);
  ASSERT_EQ(d.code, 0) << d.err;
  const auto c = ctrl::npy::load<double>(path("C.npy"));
  EXPECT_EQ(c.shape, (std::vector<std::size_t>{4, 8}));
  // Rows dealt (mandelbrot): the picture is written in its own order, whatever the split.
  const Result whole =
      run({"run", "mandelbrot", "--split", "cpu:0=16", "--cols", "12", "--output", path("M1.npy")}, quick);
  ASSERT_EQ(whole.code, 0) << whole.out << whole.err;
  const Result dealt = run({"run", "mandelbrot", "--split", "cpu:0=5", "--split", "cpu:1=11", "--cols", "12",
                            "--iterations", "1000", "--output", path("M2.npy")},
                           quick);
  ASSERT_EQ(dealt.code, 0) << dealt.out << dealt.err;
  EXPECT_EQ(slurp(path("M1.npy")), slurp(path("M2.npy")));
  // Without --selection, a processor named with a host is refused.
  const Result host = run({"run", "dgemm", "--split", "node1/cpu:0=4"}, quick);
  EXPECT_EQ(host.code, 2);
  EXPECT_NE(host.err.find("names a host"), std::string::npos) << host.err;
}

// ---- files: regular files only, no output over an input, one writer per profile (docs/tool.md) ----

bool is_fifo(const std::string& p) { return fs::is_fifo(fs::symlink_status(p)); }

TEST_F(Cli, AFifoIsRefusedAsAnInputOrAnOutputWithoutBlocking) {
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  const std::vector<std::vector<std::string>> cases = {
      {"profile", "dgemm", "--device", "cpu:0", "--sizes", "4", "--out", path("fifo")},
      {"run", "dgemm", "--front", path("fifo"), "--pick", "fastest"},
      {"run", "dgemm", "--split", "cpu:0=4", "--cols", "8", "--output", path("fifo")},
      {"run", "dgemm", "--split", "cpu:0=4", "--cols", "8", "--json", path("fifo")},
      {"run", "dgemm", "--split", "cpu:0=4", "--cols", "8", "--profile", path("fifo")},
      {"devices", "--write-selection", path("fifo")},
  };
  for (const auto& args : cases) {
    const Result r = run(args, args[0] == "devices" ? std::vector<std::string>{} : quick);
    EXPECT_EQ(r.code, 2) << args[0] << " " << args[args.size() - 2] << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(path("fifo")), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("FIFO"), std::string::npos) << r.err;
    EXPECT_TRUE(is_fifo(path("fifo")));
  }
}

TEST_F(Cli, AnOutputThatIsAnInputIsRefusedBeforeAnyWork) {
  make_profile_and_front();
  const std::string front = slurp(path("front.json")), profile = slurp(path("p.csv"));
  for (const auto& extra :
       {std::vector<std::string>{"--json", path("front.json")}, std::vector<std::string>{"--json", path("p.csv")},
        std::vector<std::string>{"--output", path("p.csv")}}) {
    std::vector<std::string> args = {"run",    "dgemm",   "--front",   path("front.json"),
                                     "--pick", "fastest", "--profile", path("p.csv")};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = run(args, quick);
    EXPECT_EQ(r.code, 2) << extra[0] << " " << extra[1] << "\n" << r.err;
    EXPECT_NE(r.err.find("an output may not overwrite an input"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("check:"), std::string::npos) << "it ran: " << r.out;
  }
  EXPECT_EQ(slurp(path("front.json")), front);
  EXPECT_EQ(slurp(path("p.csv")), profile);
}

// A second `ctrl profile` on the same --out fails at once: the test holds the lock as a running
// profile would.
TEST_F(Cli, ASecondProfileOnTheSameFileIsRefused) {
  const std::vector<std::string> args = {"profile", "dgemm",  "--device", "cpu:0", "--sizes",
                                         "4,8",     "--cols", "16",       "--out", path("p.csv")};
  {
    const int fd = ::open(path("p.csv").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
    const Result r = run(args, quick);
    ::close(fd);
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(path("p.csv")), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("another ctrl command is writing it"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(path("p.csv")), "");
  }
  const Result r = run(args, quick);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(ctrl::partition::read_profile_csv(path("p.csv"))[0].size(), 2U);
}

TEST_F(Cli, AProfileWithACutHeaderIsNotResumed) {
  const std::string cut = "processor,size,ti";
  std::ofstream(path("p.csv"), std::ios::binary) << cut;
  const Result r =
      run({"profile", "dgemm", "--device", "cpu:0", "--sizes", "4", "--cols", "16", "--out", path("p.csv")}, quick);
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(path("p.csv") + ":1: the header is cut short"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(path("p.csv")), cut);
}

// A failed profile leaves no file of its own; a resumed one keeps its permissions through the
// rewrite that drops an interrupted size.
TEST_F(Cli, AFailedProfileLeavesNoEmptyFile) {
  const Result r =
      run({"profile", "dgemm", "--device", "cpu:0", "--sizes", "4", "--out", path("p.csv"), "--cols", "99999999999"},
          quick);
  EXPECT_NE(r.code, 0);
  EXPECT_FALSE(fs::exists(path("p.csv"))) << r.err;
}

// The old fixed temporary name (sel.txt.tmp) followed a planted link; outputs are written through
// exclusive temporary files of unpredictable names.
TEST_F(Cli, APlantedLinkBesideAnOutputIsNotFollowed) {
  std::ofstream(path("victim")) << "precious";
  fs::create_symlink(path("victim"), path("sel.txt.tmp"));
  const Result r = run({"devices", "--write-selection", path("sel.txt"), "--groups", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(path("victim")), "precious");
  EXPECT_NE(slurp(path("sel.txt")).find(": cpu:"), std::string::npos);
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << "a temporary file left: " << e.path();
}

// The first SIGTERM ends `ctrl profile` after the size in progress: exit 130, the sizes measured
// kept. The test waits for the first size's progress line (an event), not for a time.
TEST_F(Cli, TheFirstSigtermEndsAProfile) {
  const std::vector<std::string> args = {CTRL_TOOL,        "profile",     "dgemm",      "--device",   "cpu:0",
                                         "--sizes",        "8:4000:8",    "--cols",     "64",         "--out",
                                         path("p.csv"),    "--min-round", "0.002",      "--max-reps", "3",
                                         "--idle-seconds", "0",           "--progress", "plain"};
  int err[2];
  ASSERT_EQ(::pipe(err), 0);
  const pid_t pid = ctrl::test::spawn(args, err[1]);
  ASSERT_GE(pid, 0);
  ::close(err[1]);
  std::string text;
  char buffer[4096];
  bool signalled = false;
  for (;;) {
    const ssize_t n = ::read(err[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (!signalled && text.find("profile: step 1/") != std::string::npos) {
      ::kill(pid, SIGTERM);
      signalled = true;
    }
  }
  ::close(err[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(signalled) << text;
  ASSERT_TRUE(WIFEXITED(status)) << "ended by a signal: " << status << "\n" << text;
  EXPECT_EQ(WEXITSTATUS(status), 130) << text;
  // Said on stderr, where a script that keeps stdout's report still sees it.
  EXPECT_NE(text.find("ctrl: profile: interrupted: the steps measured so far are in"), std::string::npos) << text;
  const std::size_t kept = ctrl::partition::read_profile_csv(path("p.csv"))[0].size();
  EXPECT_GE(kept, 1U);
  EXPECT_LT(kept, 500U);
}

TEST_F(Cli, BadArgumentsExitWith2AndSayWhy) {
  make_profile_and_front();
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"profile", "sgemm", "--device", "cpu:0", "--sizes", "4", "--out", path("x.csv")}, "unknown application"},
      {{"profile", "dgemm", "--device", "cpu:0", "--sizes", "8:4:1", "--out", path("x.csv")}, "TO is below FROM"},
      {{"profile", "dgemm", "--device", "cpu:0", "--device", "cpu:0-1", "--sizes", "4", "--out", path("x.csv")},
       "share core 0"},
      {{"profile", "dgemm", "--device", "tpu:0", "--sizes", "4", "--out", path("x.csv")}, "tpu"},
      {{"profile", "dgemm", "--device", "cpu:0", "--sizes", "4", "--out", path("x.csv"), "--min-reps", "1"},
       "--min-reps"},
      {{"profile", "dgemm", "--device", "cpu:0", "--sizes", "4", "--out", path("front.json")}, "not a profile"},
      {{"profile", "dgemm", "--device", "cpu:0", "--sizes", "cpu:1=4", "--out", path("x.csv")},
       "cpu:1 is not one of the processors profiled"},
      {{"profile", "dgemm", "--device", "cpu:0", "--device", "cpu:1", "--sizes", "4", "--sizes", "cpu:1=4,8", "--out",
        path("x.csv")},
       "every processor needs as many"},
      {{"profile", "dgemm", "--device", "cpu:0", "--sizes", "cpu:0=", "--out", path("x.csv")}, "--sizes"},
      {{"profile", "dgemm", "--device", "cpu:0", "--steps", "1", "--out", path("x.csv")}, "--steps 1"},
      // Durations are bounded (1e10 s would overflow the clocks that wait), seeds are not negative.
      {{"profile", "dgemm", "--device", "cpu:0", "--min-window", "-5", "--out", path("x.csv")}, "--min-window"},
      {{"profile", "dgemm", "--device", "cpu:0", "--min-window", "nan", "--out", path("x.csv")}, "--min-window"},
      {{"profile", "dgemm", "--device", "cpu:0", "--min-round", "1e10", "--out", path("x.csv")}, "--min-round"},
      {{"profile", "dgemm", "--device", "cpu:0", "--idle-seconds", "inf", "--out", path("x.csv")}, "--idle-seconds"},
      {{"profile", "dgemm", "--device", "cpu:0", "--precision", "0", "--out", path("x.csv")}, "--precision"},
      {{"profile", "dgemm", "--device", "cpu:0", "--seed", "-1", "--out", path("x.csv")}, "--seed"},
      {{"run", "dgemm", "--split", "cpu:0=4", "--min-round", "1e10"}, "--min-round"},
      // An empty file name is no file: refused, not taken as "no output".
      {{"run", "dgemm", "--split", "cpu:0=4", "--json", ""}, "--json: an empty file name"},
      {{"run", "dgemm", "--split", "cpu:0=4", "--output", ""}, "--output: an empty file name"},
      {{"profile", "dgemm", "--device", "cpu:0", "--out", ""}, "--out: an empty file name"},
      {{"pareto", "--profile", path("p.csv"), "--workload", "20", "--plot", ""}, "--plot: an empty file name"},
      {{"devices", "--write-selection", ""}, "--write-selection: an empty file name"},
      {{"run", "dgemm", "--split", "cpu:0"}, "DEVICE=ROWS"},
      {{"run", "dgemm", "--split", "cpu:0=0"}, "no rows"},
      {{"run", "dgemm"}, "--split"},
      {{"run", "dgemm", "--front", path("front.json")}, "--pick"},
      {{"run", "dgemm", "--front", path("front.json"), "--pick", "99"}, "front.json has "},
      {{"run", "dgemm", "--front", path("front.json"), "--pick", "load-balanced"}, "needs --profile"},
      {{"run", "dgemm", "--front", path("front.json"), "--pick", "even"}, "--pick even needs --profile"},
      {{"run", "dgemm", "--front", path("p.csv"), "--pick", "fastest"}, "not JSON"},
      {{"run", "fft2d", "--front", path("front.json"), "--pick", "fastest", "--profile", path("p.csv")},
       "profile of dgemm"},
      {{"run", "dgemm", "--split", "cpu:0=4", "--cols", "16", "--profile", path("p.csv")}, "measured with N = 32"},
      {{"run", "dgemm", "--pick", "fastest"}, "--profile and --workload"},
      {{"run", "dgemm", "--front", path("front.json"), "--pick", "energy@time+5"}, "a relative bound ends with %"},
      {{"run", "dgemm", "--split", "cpu:0=4", "--rank-timeout", "inf"}, "--rank-timeout inf: give seconds above 0"},
      {{"profile", "dgemm", "--device", "cpu:0", "--rank-timeout", "1e300", "--out", path("x.csv")},
       "at most 604800 (a week)"},
  };
  for (const auto& c : cases) {
    const Result r = run(c.args, {"--progress", "none"});
    std::string line;
    for (const auto& a : c.args) line += a + " ";
    EXPECT_EQ(r.code, 2) << line << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << line << "\nstderr: " << r.err;
  }
}

// Sizes and distributions whose element counts or sums wrap used to corrupt the heap (a tile
// written past its end), and a hand-edited front whose distribution is not its workload ran as
// another workload. Every one is refused before anything is allocated, naming the option or file.
TEST_F(Cli, SizesAndDistributionsBeyondTheLimitsExit2) {
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> says;
  };
  const std::vector<Case> cases = {
      {{"run", "dgemm", "--split", "cpu:0=2305843009213693952", "--cols", "16"},
       {"--split", "dgemm's A", "exceed the limit"}},
      {{"run", "fft2d", "--split", "cpu:0=1152921504606846976", "--cols", "16"},
       {"--split", "fft2d's X", "exceed the limit"}},
      {{"run", "dgemm", "--split", "cpu:0=9223372036854775807", "--split", "cpu:1=1"}, {"--split", "beyond the limit"}},
      {{"run", "fft2d", "--split", "cpu:0=1", "--cols", "4294967312"},
       {"--cols", "exceeds 2147483647"}},  // cut to 16 by FFTW
      {{"profile", "dgemm", "--device", "cpu:0", "--sizes", "2305843009213693952", "--out", path("big.csv")},
       {"--sizes up to 2305843009213693952", "exceed the limit"}},
      {{"profile", "dgemm", "--device", "cpu:0", "--sizes", "1:9223372036854775807:9223372036854775800", "--out",
        path("big.csv")},
       {"--sizes", "exceed"}},
  };
  for (const auto& c : cases) {
    const Result r = run(c.args, {"--progress", "none", "--no-energy"});
    std::string line;
    for (const auto& a : c.args) line += a + " ";
    EXPECT_EQ(r.code, 2) << line << "\n" << r.out << r.err;
    for (const auto& s : c.says) EXPECT_NE(r.err.find(s), std::string::npos) << line << "\nstderr: " << r.err;
  }
  EXPECT_FALSE(fs::exists(path("big.csv")));
}

TEST_F(Cli, AFrontMustSumToItsWorkload) {
  auto front = [&](const std::string& workload, const std::string& rows) {
    std::ofstream(path("front.json")) << R"({"processors": ["cpu:0"], "workload": )" << workload
                                      << R"(, "front": [{"distribution": [)" << rows
                                      << R"(], "time": 1.0, "energy": 1.0}]})";
    return run({"run", "dgemm", "--front", path("front.json"), "--pick", "fastest", "--cols", "16"},
               {"--progress", "none", "--no-energy"});
  };
  const Result wrong = front("20", "7");  // used to run 7 rows and report them against 20
  EXPECT_EQ(wrong.code, 2) << wrong.err;
  EXPECT_NE(
      wrong.err.find(path("front.json") + ": point 1: the distribution sums to 7, not to the front's workload 20"),
      std::string::npos)
      << wrong.err;
  const Result huge = front("2305843009213693952", "2305843009213693952");  // consistent, but too big
  EXPECT_EQ(huge.code, 2) << huge.err;
  EXPECT_NE(huge.err.find("exceed the limit"), std::string::npos) << huge.err;
  const Result negative = front("4", "-4, 8");
  EXPECT_EQ(negative.code, 2) << negative.err;
}

// A size within the limits that no machine's memory holds (A alone is 2^62 bytes) is a run-time
// failure naming the array and its bytes, not the library's "std::bad_alloc". Under ASan, a
// failed malloc must return null rather than end the process.
TEST_F(Cli, AnArrayThatMemoryCannotHoldIsExit1NamingIt) {
  const char* asan = std::getenv("ASAN_OPTIONS");
  const Result r = ctrl::test::run_command(
      {"env",
       std::string("ASAN_OPTIONS=") + (asan != nullptr ? std::string(asan) + ":" : "") + "allocator_may_return_null=1",
       CTRL_TOOL, "run", "dgemm", "--split", "cpu:0=2147483647", "--cols", "268435456", "--progress", "none",
       "--no-energy"},
      dir_);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("cannot allocate 4611686016279904256 bytes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("for tile 'A'"), std::string::npos) << r.err;
}

// --base-power is checked whether or not some processor has a meter (it was accepted unread).
TEST_F(Cli, BasePowerIsCheckedWithoutAMeter) {
  for (const char* bad : {"cpu:0", "cpu:0=lots", "cpu:0=-3"}) {
    const Result r = run({"run", "dgemm", "--split", "cpu:0=4", "--cols", "16", "--base-power", bad},
                         {"--progress", "none", "--no-energy"});
    EXPECT_EQ(r.code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--base-power"), std::string::npos) << r.err;
  }
}

// Every application of the tool goes through profile -> pareto -> run, and its run passes its check.
class CliApp : public Cli, public ::testing::WithParamInterface<std::string> {};

TEST_P(CliApp, ProfileParetoAndRunTheFastestPoint) {
  const std::string app = GetParam();
  const Result p = run({"profile", app, "--device", "cpu:0", "--device", "offload:1", "--sizes", "3,6", "--cols", "16",
                        "--out", path("p.csv")},
                       quick);
  ASSERT_EQ(p.code, 0) << p.out << p.err;
  EXPECT_NE(p.out.find(app + ": "), std::string::npos) << p.out;
  const Result f = run({"pareto", "--profile", path("p.csv"), "--workload", "9", "--format", "json"});
  ASSERT_EQ(f.code, 0) << f.err;
  std::ofstream(path("front.json")) << f.out;
  const Result r =
      run({"run", app, "--front", path("front.json"), "--pick", "fastest", "--profile", path("p.csv")}, quick);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("check: passed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("distribution (9 rows)"), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Loop, CliApp,
                         ::testing::Values("dgemm", "fft2d", "matadd", "blackscholes", "matmul", "jacobi",
                                           "recurrence"),
                         [](const auto& p) { return p.param; });

// An application's parameters are options of profile and run; they are part of what a profile
// measured, so a run (or a resumed profile) with other values is refused.
TEST_F(Cli, ParametersAreOptionsAndPartOfAProfilesIdentity) {
  const Result help = run({"profile", "--help"});
  ASSERT_EQ(help.code, 0) << help.err;
  for (const char* o :
       {"--iterations", "--riskfree", "--volatility", "jacobi: the number of Jacobi sweeps (default 100)"})
    EXPECT_NE(help.out.find(o), std::string::npos) << o << " in:\n" << help.out;

  const Result p = run({"profile", "jacobi", "--iterations", "3", "--device", "cpu:0", "--device", "cpu:1", "--sizes",
                        "4,8", "--cols", "16", "--out", path("p.csv")},
                       quick);
  ASSERT_EQ(p.code, 0) << p.out << p.err;
  EXPECT_NE(p.out.find("3 Jacobi sweeps"), std::string::npos) << p.out;
  EXPECT_NE(slurp(path("p.csv")).find(",jacobi iterations=3,16"), std::string::npos) << slurp(path("p.csv"));

  const std::vector<std::string> split{"--split", "cpu:0=5", "--split", "cpu:1=7", "--profile", path("p.csv")};
  const Result r = run({"run", "jacobi", "--iterations", "3", "--format", "json", split[0], split[1], split[2],
                        split[3], split[4], split[5]},
                       quick);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc.at("parameters").at("iterations"), 3);
  EXPECT_TRUE(doc.at("check").at("ok").get<bool>());

  // The same profile for the default sweeps: refused, naming both.
  const Result other = run({"run", "jacobi", split[0], split[1], split[2], split[3], split[4], split[5]}, quick);
  EXPECT_EQ(other.code, 2) << other.err;
  EXPECT_NE(other.err.find("is a profile of jacobi iterations=3, not of jacobi"), std::string::npos) << other.err;
  // Resuming it with other values: refused too, the file untouched.
  const std::string before = slurp(path("p.csv"));
  const Result resume = run({"profile", "jacobi", "--iterations", "4", "--device", "cpu:0", "--device", "cpu:1",
                             "--sizes", "4,8,12", "--cols", "16", "--out", path("p.csv")},
                            quick);
  EXPECT_EQ(resume.code, 2) << resume.err;
  EXPECT_NE(resume.err.find("jacobi iterations=4"), std::string::npos) << resume.err;
  EXPECT_EQ(slurp(path("p.csv")), before);

  const Result bs = run({"run", "blackscholes", "--riskfree", "0.05", "--volatility", "0.2", "--split", "cpu:0=33"},
                        {"--progress", "none", "--no-energy"});
  ASSERT_EQ(bs.code, 0) << bs.err;
  EXPECT_NE(bs.out.find("with riskfree=0.05 volatility=0.2"), std::string::npos) << bs.out;
  EXPECT_NE(bs.out.find("check: passed"), std::string::npos) << bs.out;
}

TEST_F(Cli, AParameterTheApplicationDoesNotTakeOrABadValueExits2) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"jacobi", "--riskfree", "0.1"}, "jacobi takes no parameter 'riskfree' (its parameters: iterations)"},
      {{"dgemm", "--iterations", "3"}, "dgemm takes no parameter 'iterations' (it has none)"},
      {{"jacobi", "--iterations", "2.5"}, "jacobi: iterations = 2.5 is not an integer"},
      {{"recurrence", "--iterations", "-1"}, "recurrence: iterations = -1 is below the least allowed (at least 0)"},
      {{"blackscholes", "--volatility", "0"}, "blackscholes: volatility = 0 is below the least allowed (above 0)"},
      {{"blackscholes", "--riskfree", "nan"}, "blackscholes: riskfree = nan is not a finite number"},
  };
  for (const auto& [args, message] : cases) {
    std::vector<std::string> argv{"run"};
    argv.insert(argv.end(), args.begin(), args.end());
    for (const char* a : {"--split", "cpu:0=4", "--cols", "8", "--progress", "none", "--no-energy"})
      argv.emplace_back(a);
    const Result r = run(argv);
    EXPECT_EQ(r.code, 2) << args[0] << " " << args[1] << ": " << r.out << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
}

// ---- the command line's conventions (issue #18: a new user's first hour) ----------------------

// Every line of an error on stderr is "ctrl: ..." (a parse error may add where to read more).
void expect_ctrl_errors(const Result& r, const std::string& what) {
  std::istringstream lines(r.err);
  std::string line;
  bool any = false;
  while (std::getline(lines, line)) {
    any = true;
    EXPECT_TRUE(line.rfind("ctrl: ", 0) == 0 || line.rfind("Run 'ctrl", 0) == 0) << what << ": " << line;
  }
  EXPECT_TRUE(any) << what << ": no message";
}

const char* const subcommand_list = "(the subcommands: devices, power, profile, pareto, run)";

TEST_F(Cli, VersionSaysTheVersionAndTheBackends) {
  for (const char* flag : {"--version", "-V"}) {
    const Result r = run({flag});
    ASSERT_EQ(r.code, 0) << flag << ": " << r.err;
    EXPECT_EQ(r.out.rfind(std::string("ctrl ") + CTRL_VERSION_STRING + "\n", 0), 0U) << r.out;
    EXPECT_NE(r.out.find("backends: cpu, offload"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find(", cuda (the CUDA backend is built)") != std::string::npos, CTRL_HAVE_CUDA_BACKEND != 0)
        << r.out;
    EXPECT_NE(r.out.find("MPI: "), std::string::npos) << r.out;
    EXPECT_EQ(r.err, "");
  }
}

TEST_F(Cli, HelpIsASubcommandToo) {
  const Result top = run({"help"});
  ASSERT_EQ(top.code, 0) << top.err;
  EXPECT_EQ(top.out, run({"--help"}).out);
  for (const char* sub : {"devices", "power", "profile", "pareto", "run"})
    EXPECT_NE(top.out.find(sub), std::string::npos);

  const Result pareto = run({"help", "pareto"});
  ASSERT_EQ(pareto.code, 0) << pareto.err;
  EXPECT_NE(pareto.out.find("ctrl pareto"), std::string::npos) << pareto.out;
  EXPECT_NE(pareto.out.find("--workload"), std::string::npos) << pareto.out;
  EXPECT_EQ(pareto.out, run({"pareto", "--help"}).out);

  const Result bogus = run({"help", "bogus"});
  EXPECT_EQ(bogus.code, 2);
  EXPECT_EQ(bogus.out, "");
  EXPECT_EQ(bogus.err, std::string("ctrl: help: unknown subcommand 'bogus' ") + subcommand_list + "\n");
}

TEST_F(Cli, NoSubcommandOrAnUnknownOneExits2) {
  const Result none = run({});
  EXPECT_EQ(none.code, 2);
  EXPECT_EQ(none.out, "");
  EXPECT_NE(none.err.find("ctrl [OPTIONS] [SUBCOMMAND]"), std::string::npos) << none.err;  // the usage
  for (const char* sub : {"devices", "power", "profile", "pareto", "run"})
    EXPECT_NE(none.err.find(sub), std::string::npos);

  const Result bogus = run({"bogus"});
  EXPECT_EQ(bogus.code, 2);
  EXPECT_EQ(bogus.out, "");
  EXPECT_EQ(bogus.err, std::string("ctrl: unknown subcommand 'bogus' ") + subcommand_list + "\n");
}

// CLI11's own refusals read like every other error: "ctrl: ...", exit 2, and where to read more.
TEST_F(Cli, ParseErrorsArePrefixedAndSayWhereToReadMore) {
  const Result missing = run({"pareto", "--workload", "4"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(missing.err, "ctrl: --profile is required\nRun 'ctrl pareto --help' for more information.\n");
  const std::vector<std::vector<std::string>> cases = {
      {"--bogus"},
      {"devices", "--format", "yaml"},
      {"power", "--idle", "--seconds"},
      {"profile", "dgemm", "--device", "cpu:0", "--steps"},
      {"run", "dgemm", "--split", "cpu:0=4", "--nonsense"},
      {"pareto", "--profile", "p.csv", "--workload", "4", "extra"},
  };
  for (const auto& args : cases) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 2) << args.front() << " " << args.back() << ": " << r.err;
    expect_ctrl_errors(r, args.front() + " " + args.back());
  }
  // And the errors of the commands themselves.
  expect_ctrl_errors(run({"run", "dgemm", "--split", "cpu:0"}), "--split cpu:0");
}

// Outputs are checked before any work: a path that cannot be written fails at once, naming the
// option, the path and why, with nothing measured and nothing printed on stdout.
TEST_F(Cli, OutputsThatCannotBeWrittenFailBeforeAnyWork) {
  fs::create_directory(path("adir"));
  struct Case {
    std::vector<std::string> args;
    std::string option, file, why;
  };
  const std::vector<Case> cases = {
      {{"run", "dgemm", "--split", "cpu:0=4", "--cols", "8", "--json", path("none/r.json")},
       "--json",
       path("none/r.json"),
       "does not exist"},
      {{"run", "dgemm", "--split", "cpu:0=4", "--cols", "8", "--output", path("adir")},
       "--output",
       path("adir"),
       "a directory"},
      {{"profile", "dgemm", "--device", "cpu:0", "--sizes", "4", "--out", path("none/p.csv")},
       "--out",
       path("none/p.csv"),
       "does not exist"},
      {{"profile", "dgemm", "--device", "cpu:0", "--sizes", "4", "--out", path("adir")},
       "--out",
       path("adir"),
       "a directory"},
  };
  for (const auto& c : cases) {
    const Result r = run(c.args, quick);
    EXPECT_EQ(r.code, 2) << c.option << ": " << r.err;
    EXPECT_NE(r.err.find("ctrl: " + c.option + " " + c.file + ": "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.why), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << "it ran: " << r.out;
    EXPECT_EQ(r.err.find("profile: "), std::string::npos) << "it measured: " << r.err;
  }
  EXPECT_FALSE(fs::exists(path("none")));
}

// With no NVIDIA driver at all, the message says so, not that the driver is too old (what the CUDA
// runtime says). Runs only where the CUDA backend is built and no driver is installed.
TEST_F(Cli, NoDriverIsNotAnOldDriver) {
  if (!CTRL_HAVE_CUDA_BACKEND) GTEST_SKIP() << "no CUDA backend in this build";
  if (void* lib = ::dlopen("libcuda.so.1", RTLD_LAZY)) {
    ::dlclose(lib);
    GTEST_SKIP() << "an NVIDIA driver is installed here";
  }
  const std::string words = "no NVIDIA driver on this machine (libcuda.so.1 not found)";
  const Result r = run({"run", "matadd", "--split", "cuda:0=4", "--progress", "none", "--no-energy"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("cuda:0: " + words), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("insufficient"), std::string::npos) << r.err;
  const Result d = run({"devices"});
  ASSERT_EQ(d.code, 0) << d.err;
  EXPECT_NE(d.out.find("GPU  none: " + words), std::string::npos) << d.out;
}

// The CUDA libraries a process loaded, from the dynamic loader's own account (LD_DEBUG=files).
std::vector<std::string> gpu_libraries_loaded(const std::string& loader_log) {
  std::vector<std::string> found;
  for (const char* lib : {"libcudart", "libcublas", "libcufft", "libctrl_cuda", "libctrl_catalog_cuda"})
    if (loader_log.find(std::string("file=") + lib) != std::string::npos) found.emplace_back(lib);
  return found;
}

// A command that makes no GPU controller loads no CUDA library, so that the tool starts at once
// and runs on nodes that have none (the GPU build of the applications and the CUDA backend are
// loaded when a GPU controller is made); the GPU suite checks that cuda:0 still runs.
TEST_F(Cli, NoGpuNoCudaLibraries) {
  make_profile_and_front("matadd");
  const std::vector<std::vector<std::string>> commands = {
      {"--help"},
      {"pareto", "--profile", path("p.csv"), "--workload", "20"},
      {"profile", "dgemm", "--device", "cpu:0", "--sizes", "4", "--cols", "16", "--out", path("q.csv")},
      {"run", "matadd", "--split", "cpu:0=4", "--cols", "16", "--no-energy"},
  };
  for (const auto& c : commands) {
    std::vector<std::string> argv{"env", "LD_DEBUG=files", CTRL_TOOL};
    argv.insert(argv.end(), c.begin(), c.end());
    if (c[0] == "profile" || c[0] == "run") argv.insert(argv.end(), quick.begin(), quick.end());
    const Result r = ctrl::test::run_command(argv, dir_);
    ASSERT_EQ(r.code, 0) << c[0] << ": " << r.err;
    EXPECT_EQ(gpu_libraries_loaded(r.err), std::vector<std::string>{}) << c[0];
    EXPECT_NE(r.err.find("file=libctrl"), std::string::npos) << "LD_DEBUG said nothing: " << r.err.substr(0, 500);
  }
}

// ./run asked for help prints its usage and succeeds; a word it does not know is an error.
TEST_F(Cli, TheRunScriptsHelp) {
  for (const char* ask : {"--help", "-h", "help"}) {
    const Result r = ctrl::test::run_command({CTRL_RUN_SCRIPT, ask}, dir_);
    EXPECT_EQ(r.code, 0) << ask << ": " << r.err;
    EXPECT_EQ(r.out.rfind("usage: ./run demo", 0), 0U) << r.out;
    EXPECT_EQ(r.err, "");
  }
  const Result bogus = ctrl::test::run_command({CTRL_RUN_SCRIPT, "bogus"}, dir_);
  EXPECT_EQ(bogus.code, 2);
  EXPECT_EQ(bogus.out, "");
  EXPECT_NE(bogus.err.find("unknown command 'bogus'"), std::string::npos) << bogus.err;
  EXPECT_NE(bogus.err.find("usage: ./run demo"), std::string::npos) << bogus.err;
}

}  // namespace
