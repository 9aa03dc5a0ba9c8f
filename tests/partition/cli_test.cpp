// `ctrl pareto` end to end: outputs, the plot, and the exit codes (0 ok, 2 bad input, 3 the
// workload cannot be split). Runs the command-only driver, and the full `ctrl` tool when it is
// built.
#include "cli_fixture.hpp"

#include <ctrl/loop/profile_file.hpp>

#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace ctrl::partition {
namespace {

INSTANTIATE_TEST_SUITE_P(Binaries, Cli, binaries(), binary_name);

TEST_P(Cli, TableIsTheDefault) {
  const Result r = run({"--profile", fixture("paper_example.csv"), "--workload", "4"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("3 Pareto-optimal distributions"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("time-optimal"), std::string::npos);
  EXPECT_NE(r.out.find("energy-optimal"), std::string::npos);
  EXPECT_NE(r.out.find("P3"), std::string::npos);
}

TEST_P(Cli, JsonIsTheLibrarysFront) {
  const Result r = run({"--profile", fixture("paper_example.csv"), "--workload", "4", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["processors"], nlohmann::json({"P0", "P1", "P2", "P3"}));
  EXPECT_EQ(doc["workload"], 4);
  EXPECT_EQ(doc["energy"], "dynamic");
  EXPECT_EQ(doc["base_power"], 0.0);
  const Front expected = hepopta(read_profile_csv(fixture("paper_example.csv")), 4);
  ASSERT_EQ(doc["front"].size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(doc["front"][i]["time"].get<double>(), expected[i].time);
    EXPECT_EQ(doc["front"][i]["energy"].get<double>(), expected[i].energy);
    EXPECT_EQ(doc["front"][i]["distribution"].get<Distribution>(), expected[i].distribution);
  }
  EXPECT_EQ(doc["time_optimal"], doc["front"][0]);
  EXPECT_EQ(doc["time_optimal"]["distribution"], nlohmann::json({2, 0, 2, 0}));
}

TEST_P(Cli, TotalEnergyAndThePaperAlgorithm) {
  const Result dp = run({"--profile", fixture("paper_example.csv"), "--workload", "4", "--energy", "total",
                         "--base-power", "0.5", "--format", "json"});
  ASSERT_EQ(dp.code, 0) << dp.err;
  const auto doc = nlohmann::json::parse(dp.out);
  EXPECT_EQ(doc["energy"], "total");
  EXPECT_EQ(doc["base_power"], 0.5);
  const Front expected = htpopta(read_profile_csv(fixture("paper_example.csv")), 4, 0.5);
  ASSERT_EQ(doc["front"].size(), expected.size());
  EXPECT_EQ(doc["front"][0]["energy"].get<double>(), expected[0].energy);
  const Result paper = run({"--profile", fixture("paper_example.csv"), "--workload", "4", "--energy", "total",
                            "--base-power", "0.5", "--format", "json", "--algorithm", "paper"});
  ASSERT_EQ(paper.code, 0) << paper.err;
  EXPECT_EQ(nlohmann::json::parse(paper.out), doc);
}

TEST_P(Cli, CsvHasOneRowPerPoint) {
  const Result r = run({"--profile", fixture("paper_example.csv"), "--workload", "4", "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "time,energy,P0,P1,P2,P3\n2,5,2,0,2,0\n3,4,2,1,0,1\n6,2,2,2,0,0\n");
}

TEST_P(Cli, PlotMarksTheThreeDistributions) {
  const fs::path svg = dir_ / "front.svg";
  const Result r = run({"--profile", fixture("paper_example.csv"), "--workload", "4", "--plot", svg.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string text = slurp(svg);
  EXPECT_EQ(text.rfind("<svg", 0), 0u);
  EXPECT_NE(text.find("</svg>"), std::string::npos);
  for (const char* s : {"parallel execution time (s)", "dynamic energy (J)", "time-optimal", "energy-optimal",
                        "load-balanced", "Pareto-optimal (3 points)", "#1f5fd6"})
    EXPECT_NE(text.find(s), std::string::npos) << s;
  // Two processors' worth of work on four: no load-balanced split, and the legend says so.
  const Result none = run({"--profile", fixture("paper_example.csv"), "--workload", "2", "--plot", svg.string()});
  ASSERT_EQ(none.code, 0) << none.err;
  EXPECT_NE(slurp(svg).find("load-balanced: none"), std::string::npos);
}

// The plot goes to a regular file, never over the profile it is computed from; a FIFO is refused
// as the profile or the plot instead of blocking (docs/tool.md, "Files").
TEST_P(Cli, ThePlotIsARegularFileAndNotTheProfile) {
  const fs::path csv = dir_ / "p.csv";
  fs::copy_file(fixture("paper_example.csv"), csv);
  const std::string before = slurp(csv);
  const Result same = run({"--profile", csv.string(), "--workload", "4", "--plot", csv.string()});
  EXPECT_EQ(same.code, 2) << same.err;
  EXPECT_NE(same.err.find("an output may not overwrite an input"), std::string::npos) << same.err;
  EXPECT_EQ(same.out, "") << "it computed the front";
  EXPECT_EQ(slurp(csv), before);
  const fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const auto& args :
       {std::vector<std::string>{"--profile", fifo.string(), "--workload", "4"},
        std::vector<std::string>{"--profile", csv.string(), "--workload", "4", "--plot", fifo.string()}}) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(fifo.string() + ": a FIFO, not a regular file"), std::string::npos) << r.err;
  }
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
  // Replaced atomically, keeping its permissions, with no temporary file left.
  const fs::path svg = dir_ / "front.svg";
  std::ofstream(svg) << "old";
  fs::permissions(svg, fs::perms::owner_read | fs::perms::owner_write);
  ASSERT_EQ(run({"--profile", csv.string(), "--workload", "4", "--plot", svg.string()}).code, 0);
  EXPECT_EQ(slurp(svg).rfind("<svg", 0), 0u);
  EXPECT_EQ(fs::status(svg).permissions(), fs::perms::owner_read | fs::perms::owner_write);
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << "a temporary file left: " << e.path();
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// A profile without an energy sensor (as `ctrl profile` writes it on a machine without one): the
// front's plot has no energy axis and says that energy was not measured, and by which processors;
// the profile's plot has a time line per processor and no energy axis.
TEST_P(Cli, PlotsWithoutEnergySaySo) {
  const fs::path front = dir_ / "front.svg", profile = dir_ / "profile.svg";
  // A profile without energy gets time only, and asks for it (AProcessorWithoutEnergyGetsTimeOnly).
  const Result r = run({"--profile", fixture("no_energy_profile.csv"), "--workload", "80", "--time-only", "--plot",
                        front.string(), "--plot-profile", profile.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string f = slurp(front);
  for (const char* s :
       {"energy not measured", "no processor has an energy sensor", "cpu:0  (no energy sensor)",
        "cpu:1  (no energy sensor)", "parallel execution time (ms)", ">time-optimal (", ">load-balanced ("})
    EXPECT_NE(f.find(s), std::string::npos) << s << "\n" << f;
  for (const char* s : {"energy (J)", "energy (mJ)", "energy (µJ)", "energy (kJ)", "energy-optimal"})
    EXPECT_EQ(f.find(s), std::string::npos) << s;
  const std::string p = slurp(profile);
  EXPECT_EQ(occurrences(p, "class=\"series\" data-panel=\"time\""), 2u) << p;
  EXPECT_EQ(occurrences(p, "data-panel=\"energy\""), 0u);
  EXPECT_NE(p.find("energy not measured"), std::string::npos);
  EXPECT_NE(p.find("time per run (ms)"), std::string::npos);
}

TEST_P(Cli, PlotProfileHasOneLinePerProcessor) {
  const fs::path profile = dir_ / "profile.svg";
  const Result r =
      run({"--profile", fixture("paper_example.csv"), "--workload", "4", "--plot-profile", profile.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string p = slurp(profile);
  EXPECT_EQ(p.rfind("<svg", 0), 0u);
  for (const char* name : {"P0", "P1", "P2", "P3"})
    for (const char* panel : {"time", "energy"})
      EXPECT_EQ(occurrences(p, std::string("data-panel=\"") + panel + "\" data-processor=\"" + name + "\""), 1u)
          << panel << " " << name;
  EXPECT_NE(p.find("dynamic energy per run (J)"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ / "front.svg"));
  // Checked before any work like --plot: not the profile, not the other plot.
  const fs::path csv = dir_ / "p.csv";
  fs::copy_file(fixture("paper_example.csv"), csv);
  for (const auto& args : {std::vector<std::string>{"--plot-profile", csv.string()},
                           std::vector<std::string>{"--plot", profile.string(), "--plot-profile", profile.string()}}) {
    std::vector<std::string> all{"--profile", csv.string(), "--workload", "4"};
    all.insert(all.end(), args.begin(), args.end());
    const Result bad = run(all);
    EXPECT_EQ(bad.code, 2) << bad.err;
    EXPECT_EQ(bad.out, "") << "it computed the front";
  }
}

// The time-optimal, energy-optimal and load-balanced distributions are one point here: each is
// drawn apart from the others and labelled with its name and distribution.
TEST_P(Cli, CoincidentMarksAreAllVisibleAndLabelled) {
  const fs::path csv = dir_ / "square.csv", svg = dir_ / "front.svg";
  std::ofstream(csv) << "processor,size,time,energy\nP0,1,1,1\nP0,2,2,4\nP0,3,3,9\nP1,1,1,1\nP1,2,2,4\nP1,3,3,9\n";
  const Result r = run({"--profile", csv.string(), "--workload", "4", "--plot", svg.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string text = slurp(svg);
  std::vector<std::string> where;
  for (const std::string name : {"time-optimal", "energy-optimal", "load-balanced"}) {
    const auto at = text.find("data-mark=\"" + name + "\" transform=\"translate(");
    ASSERT_NE(at, std::string::npos) << name << "\n" << text;
    where.push_back(text.substr(at, text.find(')', at) - at).substr(name.size() + 12));
    EXPECT_EQ(occurrences(text, ">" + name + " (2 2)<"), 1u) << name;
  }
  EXPECT_NE(where[0], where[1]);
  EXPECT_NE(where[0], where[2]);
  EXPECT_NE(where[1], where[2]);
  EXPECT_NE(text.find("Pareto-optimal (1 point)"), std::string::npos);
}

// A plot that cannot be written is refused before the front is computed: nothing on stdout, exit 2,
// the option, the path and why.
TEST_P(Cli, APlotThatCannotBeWrittenFailsBeforeTheTable) {
  const std::string good = fixture("paper_example.csv");
  fs::create_directory(dir_ / "adir");
  struct Case {
    std::string plot, why;
  };
  std::vector<Case> cases = {
      {(dir_ / "none" / "f.svg").string(), "directory '" + (dir_ / "none").string() + "' does not exist"},
      {(dir_ / "adir").string(), "a directory, not a regular file"}};
  if (::geteuid() != 0) {  // root may write anywhere
    fs::create_directory(dir_ / "locked");
    std::ofstream(dir_ / "locked" / "old.svg") << "old";  // an existing file is replaced through its directory
    fs::permissions(dir_ / "locked", fs::perms::owner_read | fs::perms::owner_exec);
    cases.push_back({(dir_ / "locked" / "new.svg").string(), "is not writable"});
    cases.push_back({(dir_ / "locked" / "old.svg").string(), "is not writable"});
  }
  for (const auto& format : {"table", "json", "csv"})
    for (const auto& c : cases) {
      const Result r = run({"--profile", good, "--workload", "4", "--format", format, "--plot", c.plot});
      EXPECT_EQ(r.code, 2) << c.plot << ": " << r.err;
      EXPECT_EQ(r.out, "") << "it printed the front first";
      EXPECT_NE(r.err.find("ctrl: --plot " + c.plot + ": " + c.why), std::string::npos) << r.err;
    }
  std::error_code ec;
  fs::permissions(dir_ / "locked", fs::perms::owner_all, ec);
}

// --threads past the cores this process may use is bad input (exit 2) naming both: threads past
// the cores gain nothing, and --threads 100000 took every process the system allows.
TEST_P(Cli, ThreadsPastTheCoresAreBadInput) {
  const Result r = run({"--profile", fixture("paper_example.csv"), "--workload", "4", "--threads", "100000"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("threads: 100000 asked, more than the "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" this process may use (its CPU affinity)"), std::string::npos) << r.err;
  EXPECT_EQ(run({"--profile", fixture("paper_example.csv"), "--workload", "4", "--threads", "1"}).code, 0);
}

// --energy total without --base-power: 0 W would make total energy dynamic energy in silence. The
// profile's own base powers are summed when it has one for every processor, and the output says
// so; otherwise the user is asked for --base-power.
TEST_P(Cli, TotalEnergyNeedsABasePower) {
  const Result r = run({"--profile", fixture("paper_example.csv"), "--workload", "4", "--energy", "total"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("ctrl: --energy total needs the platform's base power: give --base-power W", 0), 0U) << r.err;
  EXPECT_NE(r.err.find("holds no base powers (only `ctrl profile` files record them)"), std::string::npos) << r.err;
  // A processor without a sensor has no base power, and before that no energy: refused for that.
  const Result missing =
      run({"--profile", fixture("ctrl_profile_no_gpu_sensor.csv"), "--workload", "4", "--energy", "total"});
  EXPECT_EQ(missing.code, 2) << missing.err;
  EXPECT_NE(missing.err.find("cuda:0 has no energy"), std::string::npos) << missing.err;

  const std::string profile = fixture("ctrl_profile.csv");
  const Result table = run({"--profile", profile, "--workload", "4", "--energy", "total"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("with base power 67.5 W (the sum of the base powers in " + profile +
                           ": cpu:0 12.5 W, cuda:0 55 W)"),
            std::string::npos)
      << table.out;
  const Result json = run({"--profile", profile, "--workload", "4", "--energy", "total", "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out)["base_power"], 67.5);
  EXPECT_NE(json.err.find("pareto: base power 67.5 W: the sum of the base powers in " + profile), std::string::npos)
      << json.err;
  // Given, it is used as given.
  const Result given = run({"--profile", profile, "--workload", "4", "--energy", "total", "--base-power", "10"});
  ASSERT_EQ(given.code, 0) << given.err;
  EXPECT_NE(given.out.find("with base power 10 W (from --base-power)"), std::string::npos) << given.out;
}

// A `ctrl profile` file in which a processor has no energy (the fixture is of the format before
// energy_provenance, so this is also an earlier file read): no front of time and energy, which
// would count it as free (exit 2, saying what supplies it), but the time-optimal distribution with
// --time-only, in every format and plot.
TEST_P(Cli, AProcessorWithoutEnergyGetsTimeOnly) {
  const std::string profile = fixture("ctrl_profile_no_gpu_sensor.csv");
  const Result refused = run({"--profile", profile, "--workload", "4"});
  EXPECT_EQ(refused.code, 2) << refused.err;
  EXPECT_EQ(refused.out, "");
  EXPECT_EQ(refused.err.rfind("ctrl: " + profile + ": cuda:0 has no energy, neither measured nor estimated", 0), 0U)
      << refused.err;
  EXPECT_NE(refused.err.find("for cuda:0, no estimate exists"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("ask for time only with --time-only"), std::string::npos) << refused.err;

  const Result table = run({"--profile", profile, "--workload", "4", "--time-only"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_EQ(table.out.rfind("Time only (--time-only: energy is not compared): workload 4 on 2 processors", 0), 0U)
      << table.out;
  EXPECT_NE(table.out.find("energies: cpu:0 measured, cuda:0 absent"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("time-optimal"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find(" J "), std::string::npos) << "an energy in a table of time only:\n" << table.out;

  const Result json = run({"--profile", profile, "--workload", "4", "--time-only", "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["energy"], "none");
  ASSERT_EQ(doc["front"].size(), 1U);
  EXPECT_FALSE(doc["front"][0].contains("energy"));
  EXPECT_EQ(doc["front"][0]["distribution"], nlohmann::json({1, 3}));  // max(1 s, 1.5 s): the fastest
  EXPECT_EQ(doc["energy_provenance"]["cuda:0"], "absent");

  const Result csv = run({"--profile", profile, "--workload", "4", "--time-only", "--format", "csv"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(csv.out, "time,cpu:0,cuda:0,interpolated\n1.5,1,3,0\n");  // both parts measured

  const std::string svg = (dir_ / "t.svg").string();
  ASSERT_EQ(run({"--profile", profile, "--workload", "4", "--time-only", "--plot", svg}).code, 0);
  EXPECT_NE(slurp(svg).find("energy not compared"), std::string::npos);

  const Result both = run({"--profile", profile, "--workload", "4", "--time-only", "--energy", "total"});
  EXPECT_EQ(both.code, 2);
  EXPECT_NE(both.err.find("--time-only compares no energy"), std::string::npos) << both.err;
}

// Where every processor has energy, the front says which is measured and which estimated.
TEST_P(Cli, TheFrontSaysWhichEnergiesAreEstimated) {
  const Result measured = run({"--profile", fixture("ctrl_profile.csv"), "--workload", "4", "--format", "json"});
  ASSERT_EQ(measured.code, 0) << measured.err;
  EXPECT_EQ(nlohmann::json::parse(measured.out)["energy_provenance"],
            nlohmann::json({{"cpu:0", "measured"}, {"cuda:0", "measured"}}));

  // The same profile with the CPU estimated, in the current format.
  std::string text =
      "processor,size,time,energy,reps,batch,time_ci,energy_ci,energy_measured,base_power,energy_source,"
      "energy_provenance,converged,gflops,app,cols\n";
  for (int k = 1; k <= 4; ++k) {
    const std::string size = std::to_string(k), cpu_t = std::to_string(k) + ".0", gpu_t = std::to_string(0.5 * k);
    text += "cpu:0," + size + "," + cpu_t + "," + std::to_string(2 * k) +
            ",5,1,0.01,0.05,1,0.2,estimate:cpu:0 (3 W/core),estimated,1,1.5,dgemm,64\n";
    text += "cuda:0," + size + "," + gpu_t + "," + std::to_string(1.5 * k) +
            ",5,1,0.01,0.02,1,55,nvml:0,measured,1,3,dgemm,64\n";
  }
  const fs::path estimated = dir_ / "estimated.csv";
  std::ofstream(estimated) << text;
  const Result table = run({"--profile", estimated.string(), "--workload", "4"});
  ASSERT_EQ(table.code, 0) << table.err << "\n" << text;
  EXPECT_NE(table.out.find("energies: cpu:0 estimated, cuda:0 measured"), std::string::npos) << table.out;
}

TEST_P(Cli, MeasuredDgemmProfile) {
  const auto pts = testing::dgemm_points();
  const fs::path csv = dir_ / "dgemm.csv";
  {
    std::ofstream out(csv);
    out.precision(17);
    out << "processor,size,time,energy\n";
    const double speed[] = {1.0, 0.45, 1.7}, cost[] = {1.0, 1.6, 0.7};
    for (int k = 0; k < 3; ++k)
      for (const auto& q : pts)
        out << "dev" << k << ',' << q.size << ',' << q.time * speed[k] << ',' << q.energy * cost[k] << '\n';
  }
  const Result r =
      run({"--profile", csv.string(), "--workload", "50016", "--format", "json", "--plot", (dir_ / "d.svg").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  const Front expected = hepopta(read_profile_csv(csv.string()), 50016);
  ASSERT_GT(expected.size(), 1u);
  ASSERT_EQ(doc["front"].size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(doc["front"][i]["distribution"].get<Distribution>(), expected[i].distribution);
  EXPECT_NE(slurp(dir_ / "d.svg").find("</svg>"), std::string::npos);
}

// A `ctrl profile` file measured every 64 rows: any workload up to its capacity splits, sizes
// between measured ones interpolated, and every format marks the points that rest on them.
TEST_P(Cli, AnyWorkloadUpToTheCapacityOfACtrlProfileSplits) {
  const fs::path csv = dir_ / "p64.csv";
  {
    std::ofstream out(csv);
    out << loop::profile_header() << '\n';
    for (Size x = 64; x <= 1024; x += 64)
      for (const auto& [name, per_row, watts] :
           {std::tuple{"cpu:0-14", 1e-4, 60.0}, std::tuple{"cuda:0", 1e-5, 300.0}}) {
        loop::ProfileRow r;
        r.processor = name;
        r.size = x;
        r.time = 2e-4 + per_row * static_cast<double>(x);
        r.energy = watts * r.time;
        r.energy_source = "test";
        r.energy_provenance = energy::Provenance::measured;
        r.app = "dgemm";
        r.cols = 64;
        out << loop::format_profile_row(r) << '\n';
      }
  }
  const Result table = run({"--profile", csv.string(), "--workload", "600"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("sizes: any multiple of 1 row up to each processor's largest measured size"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("rest on sizes between measured ones (interpolated), not measured"), std::string::npos);
  EXPECT_NE(table.out.find("   ~\n"), std::string::npos) << table.out;
  const Result csv_out = run({"--profile", csv.string(), "--workload", "600", "--format", "csv"});
  ASSERT_EQ(csv_out.code, 0) << csv_out.err;
  EXPECT_EQ(csv_out.out.rfind("time,energy,cpu:0-14,cuda:0,interpolated\n", 0), 0U) << csv_out.out;
  const Result json = run({"--profile", csv.string(), "--workload", "600", "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  for (const auto& point : doc["front"]) {
    const auto x = point["distribution"].get<Distribution>();
    EXPECT_EQ(x[0] + x[1], 600);
    const bool measured = (x[0] == 0 || x[0] % 64 == 0) && (x[1] == 0 || x[1] % 64 == 0);
    EXPECT_EQ(point["interpolated"].get<std::string>().empty(), measured) << point.dump();
  }
  // Random workloads up to the capacity (2048): a front every time.
  std::mt19937_64 rng(600);
  std::uniform_int_distribution<Size> pick(1, 2048);
  for (int k = 0; k < 40; ++k) {
    const std::string n = std::to_string(pick(rng));
    const Result r = run({"--profile", csv.string(), "--workload", n, "--format", "csv"});
    EXPECT_EQ(r.code, 0) << n << ": " << r.err;
  }
  const Result above = run({"--profile", csv.string(), "--workload", "2049"});
  EXPECT_EQ(above.code, 2);
  EXPECT_NE(above.err.find("above the capacity of the profile, 2048"), std::string::npos) << above.err;
  // The paper's discrete model: 600 is no sum of measured sizes; a granularity of 64: not a multiple.
  EXPECT_EQ(run({"--profile", csv.string(), "--workload", "600", "--measured-only"}).code, 3);
  const Result off = run({"--profile", csv.string(), "--workload", "600", "--granularity", "64"});
  EXPECT_EQ(off.code, 2);
  EXPECT_NE(off.err.find("granularity, 64 rows: try 576"), std::string::npos) << off.err;
}

TEST_P(Cli, InfeasibleWorkloadExitsWith3) {
  const Result r = run({"--profile", fixture("even_sizes.csv"), "--workload", "7"});
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("cannot be split exactly"), std::string::npos) << r.err;
  const Result above = run({"--profile", fixture("even_sizes.csv"), "--workload", "14"});  // beyond 4 + 6
  EXPECT_EQ(above.code, 2);
  EXPECT_NE(above.err.find("above the capacity of the profile, 10"), std::string::npos) << above.err;
  EXPECT_EQ(run({"--profile", fixture("even_sizes.csv"), "--workload", "8"}).code, 0);
}

struct BadFile {
  const char* file;
  const char* where;
};

TEST_P(Cli, BadProfilesExitWith2NamingFileAndLine) {
  for (const BadFile& bad :
       {BadFile{"missing_column.csv", ":1: "}, BadFile{"non_numeric_time.csv", ":3: "},
        BadFile{"non_numeric_size.csv", ":3: "}, BadFile{"negative_time.csv", ":3: "},
        BadFile{"negative_energy.csv", ":2: "}, BadFile{"infinite_energy.csv", ":3: "}, BadFile{"nan_time.csv", ":2: "},
        BadFile{"fractional_size.csv", ":3: "}, BadFile{"zero_size.csv", ":2: "}, BadFile{"negative_size.csv", ":2: "},
        BadFile{"duplicate.csv", ":5: "}, BadFile{"empty.csv", ": "}, BadFile{"header_only.csv", ": "},
        BadFile{"ragged.csv", ":3: "}, BadFile{"no_such_file.csv", ": "}}) {
    const Result r = run({"--profile", fixture(bad.file), "--workload", "2"});
    EXPECT_EQ(r.code, 2) << bad.file;
    EXPECT_NE(r.err.find(fixture(bad.file) + bad.where), std::string::npos) << bad.file << ": " << r.err;
  }
}

TEST_P(Cli, BadArgumentsExitWith2) {
  const std::string good = fixture("paper_example.csv");
  for (const char* w : {"0", "-4", "1.5", "abc", "", "4x", "99999999999999999999"}) {
    const Result r = run({"--profile", good, "--workload", w});
    EXPECT_EQ(r.code, 2) << "workload '" << w << "'";
    EXPECT_NE(r.err.find("--workload"), std::string::npos) << r.err;
  }
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--profile", good, "--workload", "4", "--energy", "total", "--base-power=-1"},
        std::vector<std::string>{"--profile", good, "--workload", "4", "--base-power", "watts"},
        std::vector<std::string>{"--profile", good, "--workload", "4", "--base-power", "inf"},
        std::vector<std::string>{"--profile", good, "--workload", "4", "--energy", "static"},
        std::vector<std::string>{"--profile", good, "--workload", "4", "--format", "xml"},
        std::vector<std::string>{"--workload", "4"}, std::vector<std::string>{"--profile", good},
        std::vector<std::string>{"--profile", good, "--workload", "4", "--plot", "/nonexistent-dir/x/front.svg"}}) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 2) << ::testing::PrintToString(args) << "\n" << r.err;
    EXPECT_FALSE(r.err.empty());
  }
  const Result neg = run({"--profile", good, "--workload", "4", "--base-power", "-1"});
  EXPECT_EQ(neg.code, 2) << neg.err;
}

// A cluster profile with ranges: the approximate front (said in the table and the JSON), every
// exact point within 1 + epsilon of it, and the classes counted; bad --epsilon and ranges exit 2.
TEST_P(Cli, EpsilonAndClassesOfACluster) {
  const fs::path csv = dir_ / "cluster.csv";
  {
    std::ofstream out(csv);
    out << "processor,size,time,energy\n";
    for (int x = 1; x <= 12; ++x) {
      out << "node[01-06]/cpu," << x << ',' << 1.0 * x + (x % 3) * 0.3 << ',' << 2.0 * x + (x % 4) * 0.7 << '\n';
      out << "node[01-06]/gpu," << x << ',' << 0.3 * x + 0.4 << ',' << 1.1 * x + (x % 5) * 0.9 << '\n';
    }
  }
  const Result table = run({"--profile", csv.string(), "--workload", "70", "--epsilon", "0.02"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("12 processors in 2 classes of identical profiles"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("approximate front (--epsilon 0.02): every exact Pareto point is within a factor 1.02"),
            std::string::npos)
      << table.out;
  const Result json = run({"--profile", csv.string(), "--workload", "70", "--epsilon", "0.02", "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["epsilon"], 0.02);
  EXPECT_EQ(doc["classes"], 2);
  ASSERT_EQ(doc["processors"].size(), 12u);
  EXPECT_EQ(doc["processors"][0], "node01/cpu");
  for (const Solution& s : hepopta(read_profile_csv(csv.string()), 70)) {
    bool covered = false;
    for (const auto& pt : doc["front"])
      covered = covered || (pt["time"].get<double>() <= 1.02 * s.time * (1 + 1e-12) &&
                            pt["energy"].get<double>() <= 1.02 * s.energy * (1 + 1e-12));
    EXPECT_TRUE(covered) << s.time << " " << s.energy;
  }
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--epsilon", "0"}, std::vector<std::string>{"--epsilon", "-0.1"},
        std::vector<std::string>{"--epsilon", "1%"},
        std::vector<std::string>{"--epsilon", "0.01", "--algorithm", "paper"},
        std::vector<std::string>{"--epsilon", "0.01", "--time-only"}}) {
    std::vector<std::string> all{"--profile", csv.string(), "--workload", "70"};
    all.insert(all.end(), args.begin(), args.end());
    const Result r = run(all);
    EXPECT_EQ(r.code, 2) << ::testing::PrintToString(args) << "\n" << r.err;
    EXPECT_NE(r.err.find("--epsilon"), std::string::npos) << r.err;
  }
  const fs::path bad = dir_ / "bad_range.csv";
  std::ofstream(bad) << "processor,size,time,energy\nnode[01-06/cpu,1,1,1\n";
  const Result r = run({"--profile", bad.string(), "--workload", "2"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(bad.string() + ":2: malformed processor range 'node[01-06/cpu'"), std::string::npos) << r.err;
}

// --memory-limit: a limit the sweep's tables pass at once (1K) gives the front of no limit, point
// for point and distribution for distribution; sizes it cannot read exit 2 naming the option.
TEST_P(Cli, MemoryLimitKeepsTheFront) {
  const fs::path csv = dir_ / "distinct.csv";
  {
    std::ofstream out(csv);
    out << "processor,size,time,energy\n";
    for (int p = 0; p < 5; ++p)
      for (int x = 1; x <= 14; ++x)
        out << "p" << p << ',' << x << ',' << (1.0 + 0.3 * p) * x + (x * (p + 2) % 5) * 0.4 << ','
            << (2.5 - 0.35 * p) * x + (x * (p + 3) % 7) * 0.6 << '\n';
  }
  const auto front = [&](const std::string& limit) {
    std::vector<std::string> args{"--profile", csv.string(), "--workload", "41", "--format", "json"};
    if (!limit.empty()) args.insert(args.end(), {"--memory-limit", limit});
    const Result r = run(args);
    EXPECT_EQ(r.code, 0) << limit << "\n" << r.err;
    return nlohmann::json::parse(r.out)["front"];
  };
  const auto unlimited = front("none");
  ASSERT_GT(unlimited.size(), 3u);
  EXPECT_EQ(front(""), unlimited);
  EXPECT_EQ(front("1K"), unlimited);
  EXPECT_EQ(front("0.5MiB"), unlimited);
  for (const std::string bad : {"0", "-1", "2X", "1.5Q", "G", "abc", "1e400"}) {
    const Result r = run({"--profile", csv.string(), "--workload", "41", "--memory-limit", bad});
    EXPECT_EQ(r.code, 2) << bad << "\n" << r.err;
    EXPECT_NE(r.err.find("--memory-limit: '" + bad + "' is not a size"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace ctrl::partition

namespace ctrl::partition {
namespace {

// A report that cannot be written to stdout (a full disk, a closed stdout) is exit 1 naming stdout,
// never exit 0 with the output lost.
TEST_P(Cli, AFailedWriteToStdoutIsAFailureNamingIt) {
  for (const char* to : {"> /dev/full", ">&-"}) {
    for (const char* format : {"json", "table"}) {
      const std::string err = (dir_ / "stderr").string();
      const std::string cmd = ctrl::test::shell_quote(GetParam()) + " pareto --profile " +
                              ctrl::test::shell_quote(fixture("paper_example.csv")) + " --workload 4 --format " +
                              format + " " + to + " 2> " + ctrl::test::shell_quote(err);
      const int status = std::system(cmd.c_str());
      ASSERT_TRUE(WIFEXITED(status)) << cmd;
      EXPECT_EQ(WEXITSTATUS(status), 1) << cmd;
      EXPECT_NE(slurp(err).find("ctrl: cannot write to stdout"), std::string::npos) << cmd << "\n" << slurp(err);
    }
  }
}

}  // namespace
}  // namespace ctrl::partition
