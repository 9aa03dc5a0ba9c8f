// `ctrl pareto`'s report of the paper's analysis end to end: the load-balanced solution and the
// even split, gains, load imbalance, time budgets (--budget, and its errors: exit 2), and the
// dynamic- against total-energy optimum, in the table, the JSON (still a front file for
// `ctrl run`) and the plot.
#include "cli_fixture.hpp"

#include <ctrl/loop/front_file.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ctrl::partition {
namespace {

class AnalysisCli : public Cli {};

INSTANTIATE_TEST_SUITE_P(Binaries, AnalysisCli, binaries(), binary_name);

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The paper's worked example (analysis_test.cpp has every number by hand).
TEST_P(AnalysisCli, TheTableShowsThePapersAnalysis) {
  const Result r = run({"--profile", fixture("paper_example.csv"), "--workload", "4"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* s :
       {"  load-balanced              3 s             10 J   (1 1 1 1)   times 1 to 3 s (66.67 % apart)",
        "  even split                 3 s             10 J   (1 1 1 1)", "Against the load-balanced solution",
        "  time-optimal         50.0 %      100.0 %    0.667   strong\n",
        "  energy-optimal      -50.0 %      400.0 %        2   strong\n",
        "the front's 3 points: 0 balanced, 0 weak, 3 strong (LIR 0.667 to 2)",
        "  against the even split: time-optimal 50.0 % time, 100.0 % energy; energy-optimal -50.0 % time, 400.0 % "
        "energy\n",
        "Least dynamic energy within a time budget (against the time-optimal point, 2 s, 5 J)",
        "  +5 %      (<= 2.1 s)  point 1 ", "0.0 % less energy at 0.0 % more time",
        "Dynamic- against total-energy optimum: not compared: it needs the platform's base power: give --base-power "
        "W; ",
        "LIR  imbalance\n", "   0.667  strong      time-optimal\n", "         1  strong\n"})
    EXPECT_TRUE(has(r.out, s)) << s << "\n" << r.out;
}

TEST_P(AnalysisCli, BudgetsAreRepeatable) {
  const Result r = run({"--profile", fixture("paper_example.csv"), "--workload", "4", "--budget", "50%", "--budget",
                        "200%", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto budgets = nlohmann::json::parse(r.out)["analysis"]["budgets"];
  ASSERT_EQ(budgets.size(), 2u) << "the default 5 % is replaced by the budgets given";
  EXPECT_EQ(budgets[0]["budget"], 0.5);
  EXPECT_EQ(budgets[0]["point"], 2);
  EXPECT_EQ(budgets[0]["distribution"], nlohmann::json({2, 1, 0, 1}));
  EXPECT_EQ(budgets[0]["slowdown"], 0.5);
  EXPECT_NEAR(budgets[0]["energy_saving"].get<double>(), 0.2, 1e-15);
  EXPECT_EQ(budgets[1]["point"], 3);
  const Result table = run({"--profile", fixture("paper_example.csv"), "--workload", "4", "--budget", "12.5%"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_TRUE(has(table.out, "  +12.5 %   (<= 2.25 s)  point 1 ")) << table.out;
}

TEST_P(AnalysisCli, BadBudgetsExitWith2BeforeAnyWork) {
  for (const char* bad : {"5", "0.05", "abc%", "%", "-5%", "nan%", "inf%", "5%%", "5 %", ""}) {
    const Result r = run({"--profile", fixture("paper_example.csv"), "--workload", "4", "--budget", bad});
    EXPECT_EQ(r.code, 2) << bad << ": " << r.err;
    EXPECT_EQ(r.out, "") << bad;
    EXPECT_TRUE(has(r.err, "--budget")) << bad << ": " << r.err;
  }
  const Result negative = run({"--profile", fixture("paper_example.csv"), "--workload", "4", "--budget", "-5%"});
  EXPECT_TRUE(has(negative.err, "ctrl: --budget: '-5%' is negative")) << negative.err;
  const Result bare = run({"--profile", fixture("paper_example.csv"), "--workload", "4", "--budget", "5"});
  EXPECT_TRUE(has(bare.err, "ctrl: --budget: '5' is not a percentage: write it as 5%")) << bare.err;
}

TEST_P(AnalysisCli, JsonCarriesTheAnalysisAndStaysAFrontFile) {
  const Result r = run({"--profile", fixture("paper_example.csv"), "--workload", "4", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["load_balanced"]["distribution"], nlohmann::json({1, 1, 1, 1}));
  EXPECT_EQ(doc["load_balanced"]["fastest_processor_time"], 1.0);
  EXPECT_EQ(doc["load_balanced"]["slowest_processor_time"], 3.0);
  EXPECT_EQ(doc["even_split"]["distribution"], nlohmann::json({1, 1, 1, 1}));
  const auto& a = doc["analysis"];
  EXPECT_EQ(a["front_size"], 3);
  EXPECT_EQ(a["gains"]["time_optimal"]["time"], 0.5);
  EXPECT_EQ(a["gains"]["energy_optimal"]["energy"], 4.0);
  EXPECT_EQ(a["gains_against_even_split"]["time_optimal"]["time"], 0.5);
  EXPECT_EQ(a["imbalance"]["strong"]["points"], 3);
  EXPECT_EQ(a["imbalance"]["weak"]["lir_min"], nullptr);
  EXPECT_EQ(a["budgets"][0]["budget"], 0.05);
  EXPECT_TRUE(has(a["energy_optima"]["reason"].get<std::string>(), "give --base-power W"));
  EXPECT_EQ(a["unmetered"], nlohmann::json::array());
  for (const auto& point : doc["front"]) EXPECT_EQ(point["imbalance"], "strong");
  EXPECT_EQ(doc["front"][2]["lir"], 2.0);
  EXPECT_EQ(doc["time_optimal"], doc["front"][0]);
  // `ctrl run --front` reads it as it reads any front file.
  const loop::FrontFile f = loop::parse_front_file(r.out, "front.json");
  EXPECT_EQ(f.front.size(), 3u);
  EXPECT_EQ(f.front[1].distribution, (Distribution{2, 1, 0, 1}));
}

TEST_P(AnalysisCli, EnergyOptimaWithABasePower) {
  const Result given =
      run({"--profile", fixture("paper_example.csv"), "--workload", "4", "--base-power", "1", "--format", "json"});
  ASSERT_EQ(given.code, 0) << given.err;
  const auto o = nlohmann::json::parse(given.out)["analysis"]["energy_optima"];
  EXPECT_EQ(o["base_power"], 1.0);
  EXPECT_EQ(o["base_power_origin"], "from --base-power");
  EXPECT_EQ(o["dynamic_optimum"]["distribution"], nlohmann::json({2, 2, 0, 0}));
  EXPECT_EQ(o["total_optimum"]["distribution"], nlohmann::json({2, 0, 2, 0}));
  EXPECT_EQ(o["total_optimum"]["total_energy"], 7.0);
  EXPECT_EQ(o["same"], false);
  EXPECT_EQ(o["total_excess"], 8.0 / 7.0 - 1.0);
  EXPECT_EQ(o["dynamic_excess"], 1.5);
  // The same under --energy total: the front and the gains in total energy, the optima alike.
  const Result total =
      run({"--profile", fixture("paper_example.csv"), "--workload", "4", "--energy", "total", "--base-power", "1"});
  ASSERT_EQ(total.code, 0) << total.err;
  for (const char* s : {"Dynamic- against total-energy optimum (base power 1 W, from --base-power)",
                        "  total optimum               2              5              7   (2 0 2 0)",
                        "minimising dynamic energy costs 14.3 % more total energy; minimising total energy, 150.0 % "
                        "more dynamic",
                        "Least total energy within a time budget"})
    EXPECT_TRUE(has(total.out, s)) << s << "\n" << total.out;
  // A `ctrl profile` file with a base power for every processor: their sum, said so.
  const Result profile = run({"--profile", fixture("ctrl_profile.csv"), "--workload", "4", "--format", "json"});
  ASSERT_EQ(profile.code, 0) << profile.err;
  const auto p = nlohmann::json::parse(profile.out)["analysis"]["energy_optima"];
  EXPECT_EQ(p["base_power"], 67.5);
  EXPECT_TRUE(has(p["base_power_origin"].get<std::string>(), "the sum of the base powers in")) << p;
  // Without a base power to sum (a plain CSV has none): not compared, and why. (A `ctrl profile`
  // file with a processor without energy gets no front at all: energy_provenance_test.)
  const Result none = run({"--profile", fixture("paper_example.csv"), "--workload", "4"});
  ASSERT_EQ(none.code, 0) << none.err;
  EXPECT_TRUE(has(none.out, "not compared: it needs the platform's base power: give --base-power W; ")) << none.out;
}

// The plot marks the even split and each budget's point, and draws each budget's time limit.
TEST_P(AnalysisCli, PlotMarksTheBalancedSolutionsAndTheBudgets) {
  const fs::path svg = dir_ / "front.svg";
  const Result r =
      run({"--profile", fixture("paper_example.csv"), "--workload", "4", "--budget", "50%", "--plot", svg.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string text = slurp(svg);
  for (const char* s : {"data-mark=\"load-balanced\"", "data-mark=\"even split\"", "data-mark=\"within +50 % time\"",
                        ">within +50 % time (2 1 0 1)<", "load-balanced (equal times)", "even split (equal rows)",
                        "least energy within +50 % time: 20.0 % less energy", "class=\"budget\"", ">+50 %<"})
    EXPECT_TRUE(has(text, s)) << s << "\n" << text;
}

}  // namespace
}  // namespace ctrl::partition
