// One front, everywhere: loop::compute_front gives the report `ctrl pareto --format json` prints,
// byte for byte, on the test profiles and with the command's options; its errors are typed; at a
// cluster's scale the approximate front comes with every part of the report that applies, and the
// parts that do not say why.
#include "cli_fixture.hpp"

#include <ctrl/loop/front.hpp>
#include <ctrl/loop/plan.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

namespace ctrl::partition {
namespace {

class FrontReportCli : public Cli {
 protected:
  // The command's JSON for `args`, and the library's for `request` on the same profile.
  void expect_same(const std::vector<std::string>& args, loop::FrontRequest request) const {
    std::vector<std::string> argv{"--profile", request.profile, "--workload", std::to_string(request.workload),
                                  "--format",  "json"};
    argv.insert(argv.end(), args.begin(), args.end());
    const Result r = run(argv);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, loop::front_report_json(loop::compute_front(request))) << request.profile;
  }
};

INSTANTIATE_TEST_SUITE_P(Binaries, FrontReportCli, binaries(), binary_name);

loop::FrontRequest request(const std::string& profile, Size workload) {
  loop::FrontRequest r;
  r.profile = fixture(profile);
  r.workload = workload;
  r.names.base_power = "--base-power";  // the command names its option where the report does
  return r;
}

TEST_P(FrontReportCli, TheLibrarysReportIsTheCommandsByteForByte) {
  expect_same({}, request("paper_example.csv", 4));
  expect_same({}, request("good.csv", 3));
  expect_same({}, request("ctrl_profile.csv", 7));  // a `ctrl profile` file: provenance, base powers
  loop::FrontRequest total = request("paper_example.csv", 4);
  total.energy = EnergyKind::total;
  total.base_power = 2.5;
  total.budgets = {0.1, 0.5};
  expect_same({"--energy", "total", "--base-power", "2.5", "--budget", "10%", "--budget", "50%"}, total);
  loop::FrontRequest measured = request("ctrl_profile.csv", 6);
  measured.sizes.measured_only = true;
  expect_same({"--measured-only"}, measured);
}

TEST(FrontReport, ErrorsAreTyped) {
  loop::FrontRequest r = request("paper_example.csv", 4);
  r.profile = fixture("does_not_exist.csv");
  EXPECT_THROW(loop::compute_front(r), UsageError);
  ctrl::test::ScratchDir dir{"ctrl-front-report"};
  { std::ofstream(dir / "even.csv") << "processor,size,time,energy\na,2,1,1\na,4,2,2\nb,2,1,1\nb,4,2,2\n"; }
  r = request("paper_example.csv", 3);
  r.profile = (dir / "even.csv").string();  // measured sizes only (a plain CSV): no exact split of 3
  EXPECT_THROW(loop::compute_front(r), loop::InfeasibleError);
  r.workload = 9;  // above the capacity, 8
  EXPECT_THROW(loop::compute_front(r), UsageError);
  r = request("no_energy_profile.csv", 64);
  EXPECT_THROW(loop::compute_front(r), loop::MissingEnergyError);
  r.time_only = true;  // time only needs no energy
  EXPECT_EQ(loop::compute_front(r).front.size(), 1U);
  r = request("paper_example.csv", 4);
  r.energy = EnergyKind::total;  // a plain CSV holds no base power
  try {
    (void)loop::compute_front(r);
    ADD_FAILURE() << "no error";
  } catch (const loop::MissingBasePowerError& e) {
    EXPECT_NE(std::string(e.what()).find("needs the platform's base power"), std::string::npos) << e.what();
  }
  for (const double bad : {-1.0, std::nan("")}) {
    r = request("paper_example.csv", 4);
    r.base_power = bad;
    EXPECT_THROW(loop::compute_front(r), UsageError);
    r = request("paper_example.csv", 4);
    r.options.epsilon = bad;
    EXPECT_THROW(loop::compute_front(r), UsageError);
  }
  r = request("paper_example.csv", 0);
  EXPECT_THROW(loop::compute_front(r), UsageError);
}

// 10,000 processors in six classes (Slurm ranges), n = 160,000: the approximate front and what of
// the analysis applies; the balanced distributions need the exact tables, and the report says so.
TEST(FrontReport, AClusterGetsItsApproximateFrontAndSaysWhatItLeavesOut) {
  ctrl::test::ScratchDir dir{"ctrl-front-report"};
  const auto path = dir.path() / "cluster.csv";
  {
    std::ofstream out(path);
    out << "processor,size,time,energy\n";
    const int counts[] = {2000, 2000, 2000, 1500, 1500, 1000};
    int first = 1;
    for (int c = 0; c < 6; ++c) {
      const double speed = 1 + c * 1.7, power = 20 + 30 * ((c * 7) % 6);
      const std::string name =
          "node[" + std::to_string(first) + "-" + std::to_string(first + counts[c] - 1) + "]/p" + std::to_string(c);
      first += counts[c];
      for (int x = 4; x <= 64; x += 4) {
        const double t = x / speed * 1e-3 * (1 + 0.01 * ((x * (c + 3)) % 7));
        out << name << ',' << x << ',' << t << ',' << t * power * (1 + 0.02 * ((x + c) % 5)) << '\n';
      }
    }
  }
  loop::FrontRequest r;
  r.profile = path.string();
  r.workload = 160'000;
  r.options.epsilon = 0.01;
  const loop::FrontReport report = loop::compute_front(r);
  EXPECT_EQ(report.processors.size(), 10'000U);
  EXPECT_EQ(report.classes, 6U);
  ASSERT_GE(report.front.size(), 2U);
  for (const auto& s : report.front) {
    Size sum = 0;
    for (const Size x : s.distribution) sum += x;
    EXPECT_EQ(sum, r.workload);
  }
  ASSERT_TRUE(report.analysis.has_value());  // budgets and imbalance need no balanced distribution
  EXPECT_FALSE(report.analysis->budgets.empty());
  EXPECT_FALSE(report.load_balanced.has_value());
  ASSERT_EQ(report.omitted.size(), 1U);
  EXPECT_NE(report.omitted[0].find("load-balanced"), std::string::npos) << report.omitted[0];
  const auto doc = nlohmann::json::parse(loop::front_report_json(report));
  EXPECT_EQ(doc.at("omitted").size(), 1U);
  EXPECT_TRUE(doc.at("load_balanced").is_null());
}

// Sizes whose intervals did not meet the profile's precision are named, per processor, in the
// report, its JSON and the table: their predictions are less certain.
TEST(FrontReport, UnconvergedSizesAreNamed) {
  ctrl::test::ScratchDir dir{"ctrl-front-report"};
  std::ifstream in(fixture("ctrl_profile.csv"));
  std::ofstream out(dir / "p.csv");
  std::string line;
  std::getline(in, line);
  out << line << '\n';
  const std::size_t converged = 11;  // the column, in this file's header
  ASSERT_NE(line.find(",converged,"), std::string::npos) << line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::size_t from = 0;
    for (std::size_t at; (at = line.find(',', from)) != std::string::npos; from = at + 1)
      cells.push_back(line.substr(from, at - from));
    cells.push_back(line.substr(from));
    if (cells[0] == "cpu:0" && (cells[1] == "1" || cells[1] == "2")) cells[converged] = "0";
    for (std::size_t i = 0; i < cells.size(); ++i) out << (i ? "," : "") << cells[i];
    out << '\n';
  }
  out.close();
  loop::FrontRequest r;
  r.profile = (dir / "p.csv").string();
  r.workload = 5;
  const loop::FrontReport report = loop::compute_front(r);
  ASSERT_EQ(report.unconverged.size(), 1U);
  EXPECT_EQ(report.unconverged[0].processor, "cpu:0");
  EXPECT_EQ(report.unconverged[0].sizes, 2U);
  EXPECT_EQ(report.unconverged[0].of, 4U);
  const auto doc = nlohmann::json::parse(loop::front_report_json(report));
  EXPECT_EQ(doc.at("unconverged").at(0).at("sizes"), 2);
  loop::FrontRequest all = r;
  all.profile = fixture("ctrl_profile.csv");
  EXPECT_TRUE(loop::compute_front(all).unconverged.empty());
}

}  // namespace
}  // namespace ctrl::partition
