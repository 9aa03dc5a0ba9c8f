// The plots of `ctrl pareto` (tools/ctrl/cli: svg_plot, front_svg, profile_svg): units chosen from the
// data, nice ticks, a front without energy drawn without an energy axis, coincident marks all
// visible and labelled, and one line per processor in the profile plot. Content only.
#include "front_svg.hpp"
#include "profile_svg.hpp"
#include "svg_plot.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace ctrl::tool {
namespace {

using plot::Axis;
using plot::Quantity;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST(SvgAxis, UnitsFollowTheData) {
  EXPECT_EQ(plot::unit_for(Quantity::time, 3.2).symbol, "s");
  EXPECT_EQ(plot::unit_for(Quantity::time, 0.0468).symbol, "ms");
  EXPECT_EQ(plot::unit_for(Quantity::time, 2.5e-6).symbol, "µs");
  EXPECT_EQ(plot::unit_for(Quantity::time, 4e-8).symbol, "ns");
  EXPECT_EQ(plot::unit_for(Quantity::time, 0).symbol, "s");
  EXPECT_EQ(plot::unit_for(Quantity::energy, 0.5).symbol, "mJ");
  EXPECT_EQ(plot::unit_for(Quantity::energy, 1.99).symbol, "J");
  EXPECT_EQ(plot::unit_for(Quantity::energy, 2500).symbol, "kJ");
  EXPECT_EQ(plot::unit_for(Quantity::count, 9999).name, "");
  EXPECT_EQ(plot::unit_for(Quantity::count, 16384).name, "thousands");
  EXPECT_EQ(plot::unit_for(Quantity::count, 16777216).name, "millions");
  EXPECT_EQ(plot::format_quantity(0.013024, Quantity::time), "13.02 ms");
  EXPECT_EQ(plot::format_quantity(1.98813, Quantity::energy), "1.988 J");
  EXPECT_EQ(plot::format_quantity(0.000439, Quantity::energy), "439 µJ");
}

TEST(SvgAxis, TicksAreNiceValuesInTheUnit) {
  const Axis ax = Axis::fit(0.0121, 0.0468, Quantity::time);
  EXPECT_EQ(ax.unit.symbol, "ms");
  EXPECT_EQ(ax.title("time"), "time (ms)");
  EXPECT_LE(ax.lo, 12.1);
  EXPECT_GE(ax.hi, 46.8);
  const double mantissa = ax.step / std::pow(10.0, std::floor(std::log10(ax.step)));
  EXPECT_TRUE(std::set<double>({1, 2, 2.5, 5}).count(std::round(mantissa * 10) / 10)) << ax.step;
  const auto ticks = ax.ticks();
  ASSERT_GE(ticks.size(), 4u);
  ASSERT_LE(ticks.size(), 12u);
  for (const double t : ticks) EXPECT_NEAR(t / ax.step, std::round(t / ax.step), 1e-9) << t;
  // A step of 2.5 needs one decimal; a step of 5 none.
  Axis quarter;
  quarter.step = 2.5;
  EXPECT_EQ(quarter.tick_label(7.5), "7.5");
  quarter.step = 5;
  EXPECT_EQ(quarter.tick_label(10), "10");
  // Never below zero, also for one value.
  EXPECT_EQ(Axis::fit(0, 0, Quantity::energy).lo, 0);
  EXPECT_GT(Axis::fit(0.2, 0.2, Quantity::time).hi, 200);
}

FrontReport report(std::vector<std::string> processors, partition::Front front,
                   std::optional<partition::Solution> balanced) {
  FrontReport r;
  r.profile_path = "profile.csv";
  r.processors = std::move(processors);
  r.workload = 64;
  r.front = std::move(front);
  r.load_balanced = std::move(balanced);
  return r;
}

TEST(SvgFront, MillisecondFrontSaysMs) {
  const FrontReport r =
      report({"cpu", "gpu"}, {{0.0121, 2.4, {0, 64}}, {0.0250, 1.7, {16, 48}}, {0.0468, 0.9, {40, 24}}},
             partition::Solution{0.031, 1.5, {32, 32}});
  const std::string svg = front_svg(r, {{true, true}, true, true});
  EXPECT_TRUE(has(svg, "parallel execution time (ms)")) << svg;
  EXPECT_TRUE(has(svg, "dynamic energy (J)"));
  EXPECT_FALSE(has(svg, "time (s)"));
  EXPECT_TRUE(has(svg, ">40<") || has(svg, ">45<") || has(svg, ">50<")) << "a tick in ms";
  EXPECT_TRUE(has(svg, ">12.1 ms, 2.4 J<"));
  EXPECT_TRUE(has(svg, ">(0 64)<"));
  EXPECT_FALSE(has(svg, "energy not measured"));
  // Labels on the plot: the marked points by name and distribution.
  EXPECT_TRUE(has(svg, ">load-balanced (32 32)<"));
  EXPECT_TRUE(has(svg, ">time-optimal (0 64)<"));
  EXPECT_TRUE(has(svg, ">energy-optimal (40 24)<"));
}

TEST(SvgFront, WithoutEnergyThereIsNoEnergyAxis) {
  // What `ctrl profile` writes without a sensor: every energy 0, one point on the front.
  const FrontReport r = report({"cpu:0", "cpu:1"}, {{0.0032, 0, {40, 24}}}, partition::Solution{0.0041, 0, {32, 32}});
  const std::string svg = front_svg(r, {{false, false}, true, false});
  EXPECT_TRUE(has(svg, "energy not measured")) << svg;
  EXPECT_TRUE(has(svg, "no processor has an energy sensor"));
  EXPECT_TRUE(has(svg, "cpu:0  (no energy sensor)"));
  EXPECT_TRUE(has(svg, "parallel execution time (ms)"));
  EXPECT_FALSE(std::regex_search(svg, std::regex("energy \\((µ|m|k)?J\\)"))) << "an energy axis";
  EXPECT_FALSE(has(svg, "Pareto front:"));
  EXPECT_TRUE(has(svg, ">time-optimal (40 24): 3.2 ms<"));
  EXPECT_TRUE(has(svg, ">load-balanced (32 32): 4.1 ms<"));
  // Also when the coverage is unknown but every energy is 0.
  EXPECT_TRUE(has(front_svg(r), "energy not measured"));
  // Partly measured: an energy axis, and the processors without a sensor named.
  const FrontReport part = report({"cpu:0-7", "cuda:0"}, {{0.013, 1.99, {0, 64}}, {0.38, 0, {64, 0}}}, std::nullopt);
  const std::string mixed = front_svg(part, {{false, true}, true, true});
  EXPECT_TRUE(has(mixed, "dynamic energy (J)"));
  EXPECT_TRUE(has(mixed, "cpu:0-7  (no energy sensor)"));
  EXPECT_FALSE(has(mixed, "cuda:0  (no energy sensor)"));
  EXPECT_TRUE(has(mixed, "load-balanced: none"));
}

TEST(SvgFront, CoincidentMarksAreAllVisibleAndLabelled) {
  const partition::Solution only{0.002, 0.008, {2, 2}};
  const std::string svg = front_svg(report({"P0", "P1"}, {only}, only), {{true, true}, true, true});
  std::set<std::string> where;
  for (const char* name : {"time-optimal", "energy-optimal", "load-balanced"}) {
    const std::regex mark(std::string("data-mark=\"") + name + "\" transform=\"translate\\(([0-9.]+,[0-9.]+)\\)\"");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(svg, m, mark)) << name << "\n" << svg;
    where.insert(m[1]);
    EXPECT_EQ(count(svg, std::string(">") + name + " (2 2)<"), 1u) << name;
  }
  EXPECT_EQ(where.size(), 3u) << "two marks drawn on one spot";
  EXPECT_TRUE(has(svg, "Pareto-optimal (1 point)"));
  EXPECT_TRUE(has(svg, "parallel execution time (ms)"));
  EXPECT_TRUE(has(svg, "dynamic energy (mJ)"));
}

// The even split and each budget's point are marked and labelled, each budget's time limit drawn;
// at most four budgets are drawn (the table lists them all).
TEST(SvgFront, EvenSplitAndBudgetsAreMarked) {
  FrontReport r = report({"cpu", "gpu"}, {{0.0121, 2.4, {0, 64}}, {0.0125, 1.7, {16, 48}}, {0.0468, 0.9, {40, 24}}},
                         partition::Solution{0.031, 1.5, {20, 44}});
  r.even_split = partition::Solution{0.040, 1.6, {32, 32}};
  r.analysis = partition::analyse_front(r.front, r.load_balanced, {0.05, 0.5});
  const std::string svg = front_svg(r, {{true, true}, true, true});
  EXPECT_TRUE(has(svg, ">even split (32 32)<")) << svg;
  EXPECT_TRUE(has(svg, "even split (equal rows)"));
  EXPECT_TRUE(has(svg, "load-balanced (equal times)"));
  // 12.5 ms is within both 12.7 ms and 18.2 ms: one point, two marks fanned out around it.
  EXPECT_TRUE(has(svg, ">within +5 % time (16 48)<"));
  EXPECT_TRUE(has(svg, ">within +50 % time (16 48)<"));
  EXPECT_TRUE(has(svg, "least energy within +5 % time: 29.2 % less energy"));
  EXPECT_EQ(count(svg, "class=\"budget\""), 2u);
  r.analysis = partition::analyse_front(r.front, r.load_balanced, {0.01, 0.02, 0.03, 0.04, 0.05, 0.06});
  const std::string many = front_svg(r, {{true, true}, true, true});
  EXPECT_EQ(count(many, "data-mark=\"within +"), 4u);
  EXPECT_FALSE(has(many, "within +5 % time"));
}

// A legend longer than the page makes the page taller; the plot keeps its place and size.
TEST(SvgFront, TheLegendIsNeverCutOff) {
  std::vector<std::string> names;
  for (int i = 0; i < 14; ++i) names.push_back("p" + std::to_string(i));
  partition::Distribution x(14, 0);
  x[0] = 64;
  FrontReport r = report(names, {{0.0121, 2.4, x}}, std::nullopt);
  const std::string small = front_svg(r, {{}, false, true});
  EXPECT_TRUE(has(small, "height=\"600\""));
  r.even_split = partition::Solution{0.02, 3.0, x};
  r.analysis = partition::analyse_front(r.front, std::nullopt, {0.05, 0.1, 0.2, 0.3});
  const std::string tall = front_svg(r, {std::vector<bool>(14, false), true, true});
  std::smatch m;
  ASSERT_TRUE(std::regex_search(tall, m, std::regex("height=\"([0-9.]+)\" viewBox")));
  EXPECT_GT(std::stod(m[1]), 600.0);
  EXPECT_TRUE(has(tall, "... 2 more"));
}

loop::LoadedProfile loaded_profile(bool gpu_sensor) {
  loop::ProfileFile file;
  file.processors = {"cpu:0-7", "cpu:8-14", "cuda:0"};
  for (const index_t size : {1024, 2048, 3072})
    for (std::size_t i = 0; i < 3; ++i) {
      loop::ProfileRow row;
      row.processor = file.processors[i];
      row.size = size;
      row.time = 1e-5 * static_cast<double>(size) / static_cast<double>(i + 1);
      if (i == 2 && gpu_sensor) {
        row.energy = 1e-4 * static_cast<double>(size);
        row.energy_source = "nvml:0";
        row.energy_provenance = ctrl::energy::Provenance::measured;
      }
      row.app = "dgemm";
      row.cols = 2048;
      file.rows.push_back(row);
    }
  loop::LoadedProfile loaded;
  loaded.profile = loop::to_partition_profile(file);
  loaded.file = file;
  return loaded;
}

TEST(SvgProfile, OneLinePerProcessor) {
  const std::string svg = profile_svg(loaded_profile(true), "p.csv");
  EXPECT_EQ(count(svg, "class=\"series\" data-panel=\"time\""), 3u) << svg;
  EXPECT_EQ(count(svg, "class=\"series\" data-panel=\"energy\""), 1u) << "only the metered processor";
  for (const char* name : {"cpu:0-7", "cpu:8-14", "cuda:0"})
    EXPECT_EQ(count(svg, std::string("data-panel=\"time\" data-processor=\"") + name + "\""), 1u) << name;
  EXPECT_TRUE(has(svg, "energy: nvml:0"));
  EXPECT_TRUE(has(svg, "no energy sensor"));
  EXPECT_TRUE(has(svg, "time per run (ms)"));
  EXPECT_TRUE(has(svg, "dynamic energy per run (mJ)"));
  EXPECT_TRUE(has(svg, "Profile: dgemm, N = 2048, on 3 processors"));
  EXPECT_FALSE(has(svg, "energy not measured"));

  const loop::LoadedProfile none = loaded_profile(false);
  const EnergyCoverage c = energy_coverage(none);
  EXPECT_FALSE(c.measured);
  EXPECT_EQ(c.metered, std::vector<bool>({false, false, false}));
  const std::string bare = profile_svg(none, "p.csv");
  EXPECT_EQ(count(bare, "class=\"series\" data-panel=\"time\""), 3u);
  EXPECT_EQ(count(bare, "data-panel=\"energy\""), 0u);
  EXPECT_TRUE(has(bare, "energy not measured"));
  EXPECT_FALSE(has(bare, "energy per run")) << "an energy axis without energy";
}

}  // namespace
}  // namespace ctrl::tool
