// The front file (written and read back, and every way a hand-edited one is refused) and the plan
// of a run: from a split, a front's points, a profile's front or load-balanced distribution; N,
// predictions, base powers and totals; the plan sent between ranks as text.
#include "catalog/catalog.hpp"
#include <ctrl/loop/front_file.hpp>
#include <ctrl/loop/plan.hpp>
#include <ctrl/loop/profile_file.hpp>

#include <ctrl/partition/pareto.hpp>
#include <ctrl/partition/profile_csv.hpp>

#include "scratch_dir.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace ctrl::loop {
namespace {

namespace fs = std::filesystem;

class Plans : public ::testing::Test {
 public:
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
    return p;
  }
  // The message of the UsageError that plan_run throws, or "" when it plans.
  std::string refusal(const PlanRequest& r) const {
    try {
      plan_run(dgemm(), r);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "";
  }
  static const Workload& dgemm() { return apps::catalog().find("dgemm"); }

  // Two processors, sizes 1 to 4: a is slow and frugal, b fast and hungry.
  std::string csv_profile() const {
    return write("p.csv",
                 "processor,size,time,energy\n"
                 "a,1,1.0,1.0\na,2,2.0,2.0\na,3,3.0,3.0\na,4,4.0,4.0\n"
                 "b,1,0.5,3.0\nb,2,1.0,6.0\nb,3,1.5,9.0\nb,4,2.0,12.0\n");
  }
  // The same profile as `ctrl profile` writes it: dgemm, N = 24, with b's base power; the rows of
  // size `loose` did not converge.
  std::string ctrl_profile(const std::string& app = "dgemm", index_t loose = 0) const {
    std::string text = profile_header() + "\n";
    for (index_t s = 1; s <= 4; ++s) {
      const auto x = static_cast<double>(s);
      ProfileRow a, b;
      a.processor = "a";
      b.processor = "b";
      a.size = b.size = s;
      a.time = a.energy = x;
      b.time = 0.5 * x;
      b.energy = 3.0 * x;
      b.base_power = 40.0;
      b.energy_source = "nvml:0";
      a.energy_source = "rapl:package-0";  // a measures its energy too (no base power recorded)
      a.energy_provenance = b.energy_provenance = energy::Provenance::measured;
      for (ProfileRow* r : {&a, &b}) {
        r->app = app;
        r->cols = 24;
        r->reps = 3;
        r->converged = s != loose;
        text += format_profile_row(*r) + "\n";
      }
    }
    return write("ctrl.csv", text);
  }
  std::string front_file(const partition::Front& front, index_t workload = 4) const {
    FrontFile f;
    f.processors = {"a", "b"};
    f.workload = workload;
    f.front = front;
    return write("front.json", front_json(f));
  }
  ctrl::test::ScratchDir dir_{"ctrl-plan"};
};

partition::Front sample_front() { return {{2.0, 12.0, {0, 4}}, {2.0 + 1, 7.0, {3, 1}}, {4.0, 4.0, {4, 0}}}; }

TEST_F(Plans, AFrontFileReadsBackAsWritten) {
  FrontFile f;
  f.processors = {"cpu:0-3", "cuda:0"};
  f.workload = 4;
  f.model = {partition::EnergyKind::total, 12.5};
  f.front = {{0.1 + 0.2, 1.0 / 3, {1, 3}}, {0.7, 0.1, {4, 0}}};
  const FrontFile back = parse_front_file(front_json(f), "f.json");
  EXPECT_EQ(back.processors, f.processors);
  EXPECT_EQ(back.workload, 4);
  EXPECT_EQ(back.model.kind, partition::EnergyKind::total);
  EXPECT_EQ(back.model.base_power, 12.5);
  ASSERT_EQ(back.front.size(), 2U);
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(back.front[k].time, f.front[k].time);  // bit for bit
    EXPECT_EQ(back.front[k].energy, f.front[k].energy);
    EXPECT_EQ(back.front[k].distribution, f.front[k].distribution);
  }
  EXPECT_THROW(front_json(FrontFile{}), UsageError);
}

TEST_F(Plans, AHandEditedFrontIsRefusedNamingFileAndPoint) {
  const std::string head = R"({"processors":["a","b"],"workload":4,)";
  const std::pair<std::string, std::string> cases[] = {
      {"{", "f.json: not JSON"},
      {R"({"processors":["a","b"]})", "f.json: not a front written by `ctrl pareto --format json`"},
      {head + R"("front":[]})", "f.json: the front is empty"},
      {head + R"("energy":"joules","front":[{"time":1,"energy":1,"distribution":[1,3]}]})",
       R"(energy "joules" is none of "dynamic", "total", "none")"},
      {head + R"("front":[{"time":1,"energy":1,"distribution":[1,2]}]})",
       "f.json: point 1: the distribution sums to 3, not to the front's workload 4"},
      {head + R"("front":[{"time":1,"energy":1,"distribution":[4]}]})",
       "f.json: point 1: a distribution of 1 parts for 2 processors"},
      {head + R"("front":[{"time":1,"energy":1,"distribution":[5,-1]}]})",
       "point 1: a distribution part -1 is negative"},
      {head + R"("front":[{"time":-1,"energy":1,"distribution":[1,3]}]})",
       "point 1: the time -1 is not a non-negative"},
      {head + R"("front":[{"time":2,"energy":1,"distribution":[1,3]},{"time":1,"energy":2,"distribution":[0,4]}]})",
       "f.json: point 2: faster than point 1: a front is sorted by time"},
      {R"({"processors":["a"],"workload":0,"front":[{"time":1,"energy":1,"distribution":[0]}]})",
       "the workload 0 is not positive"},
  };
  for (const auto& [text, expected] : cases) {
    try {
      parse_front_file(text, "f.json");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << text << "\n" << e.what();
    }
  }
}

TEST_F(Plans, FromAFrontEachPick) {
  PlanRequest r;
  r.front = front_file(sample_front());
  r.pick = Pick::parse("fastest");
  Plan p = plan_run(dgemm(), r);
  EXPECT_EQ(p.processors, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p.rows, (std::vector<index_t>{0, 4}));
  EXPECT_EQ(p.time, 2.0);
  EXPECT_EQ(p.energy, 12.0);
  EXPECT_EQ(p.cols, dgemm().default_cols());
  EXPECT_TRUE(p.predicted.empty());  // no profile, no predictions
  r.pick = Pick::parse("least-energy");
  EXPECT_EQ(plan_run(dgemm(), r).rows, (std::vector<index_t>{4, 0}));
  r.pick = Pick::parse("2");
  p = plan_run(dgemm(), r);
  EXPECT_EQ(p.rows, (std::vector<index_t>{3, 1}));
  EXPECT_NE(p.source.find("point 2 of 3"), std::string::npos) << p.source;
  r.pick = Pick::parse("4");
  EXPECT_NE(refusal(r).find("has 3 points (1 to 3)"), std::string::npos) << refusal(r);
  // The load-balanced distribution and the even split are the profile's, not points of the file.
  for (const char* pick : {"load-balanced", "even"}) {
    r.pick = Pick::parse(pick);
    EXPECT_NE(refusal(r).find("needs the profile"), std::string::npos) << refusal(r);
  }
  r.profile = csv_profile();
  r.pick = Pick::parse("even");
  p = plan_run(dgemm(), r);
  EXPECT_EQ(p.rows, (std::vector<index_t>{2, 2}));  // equal rows (partition::even_split)
  EXPECT_NE(p.source.find("the even split distribution of 4"), std::string::npos) << p.source;
  ASSERT_EQ(p.predicted.size(), 2U);
  EXPECT_EQ(p.predicted[0].time, 2.0);
  EXPECT_EQ(p.predicted[1].energy, 6.0);
  EXPECT_EQ(p.time, 2.0);
  // Equal times (partition::load_balanced): a takes 1 s a row, b 0.5 s; 1 + 3 rows take 1 and
  // 1.5 s, the closest pair.
  r.pick = Pick::parse("load-balanced");
  p = plan_run(dgemm(), r);
  EXPECT_EQ(p.rows, (std::vector<index_t>{1, 3}));
  EXPECT_EQ(p.time, 1.5);
  EXPECT_NE(p.source.find("the load-balanced distribution of 4"), std::string::npos) << p.source;
}

// The sample front: 2 s 12 J, 3 s 7 J, 4 s 4 J.
TEST_F(Plans, ABudgetPicksTheBestPointWithinItsBoundAndSaysWhy) {
  const partition::Front front = sample_front();
  const auto index_of = [&](const char* text) { return choose_point(Pick::parse(text), front, "f").index; };
  EXPECT_EQ(index_of("energy@time+0%"), 0U);  // the fastest point meets its own time
  EXPECT_EQ(index_of("energy@time+49%"), 0U);
  EXPECT_EQ(index_of("energy@time+50%"), 1U);  // 3 s is 1.5 x 2 s
  EXPECT_EQ(index_of("energy@time+100%"), 2U);
  EXPECT_EQ(index_of("energy@time<=3.5s"), 1U);
  EXPECT_EQ(index_of("energy@time<=3500ms"), 1U);
  EXPECT_EQ(index_of("time@energy-20%"), 1U);  // at most 9.6 J: 7 J, the faster of 7 and 4
  EXPECT_EQ(index_of("time@energy-50%"), 2U);  // at most 6 J
  EXPECT_EQ(index_of("time@energy+0%"), 0U);
  EXPECT_EQ(index_of("time@energy<=7J"), 1U);
  EXPECT_EQ(index_of("time@energy<=0.004kJ"), 2U);
  const PointChoice c = choose_point(Pick::parse("energy@time+50%"), front, "f");
  EXPECT_EQ(c.reason,
            "least energy within +50 % of the fastest time (time ≤ 3 s): point 2 of 3 (3 s, 7 J), time +50.0 % and "
            "energy -41.7 % against the fastest point");
  EXPECT_TRUE(choose_point(Pick::parse("2"), front, "f").reason.empty());
  // No point meets the bound: the nearest is named, the fastest for a time bound, the least
  // energy for an energy bound.
  const std::pair<const char*, std::string> unmet[] = {
      {"energy@time<=1.5s", "no point of f has time ≤ 1.5 s; the nearest is point 1 of 3 (2 s, 12 J)"},
      {"energy@time-10%", "no point of f has time ≤ 1.8 s; the nearest is point 1 of 3"},
      {"time@energy-70%", "no point of f has energy ≤ 3.6 J; the nearest is point 3 of 3 (4 s, 4 J)"},
      {"time@energy<=3J", "the pick fastest within 3 J: no point of f has energy ≤ 3 J"},
  };
  for (const auto& [text, says] : unmet) {
    try {
      (void)choose_point(Pick::parse(text), front, "f");
      ADD_FAILURE() << text << ": a point was chosen";
    } catch (const InfeasibleError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << text << ": " << e.what();
    }
  }
  // Through a plan, from a front file and from a profile: the reason travels with the plan.
  PlanRequest r;
  r.front = front_file(front);
  r.pick = Pick::parse("time@energy-20%");
  Plan p = plan_run(dgemm(), r);
  EXPECT_EQ(p.rows, (std::vector<index_t>{3, 1}));
  EXPECT_NE(p.reason.find("point 2 of 3"), std::string::npos) << p.reason;
  EXPECT_EQ(plan_from_text(to_text(p)).reason, p.reason);
  r.pick = Pick::parse("time@energy<=1J");
  EXPECT_THROW(plan_run(dgemm(), r), InfeasibleError);
  r = PlanRequest{};
  r.profile = csv_profile();
  r.workload = 6;
  r.pick = Pick::parse("energy@time+1000%");
  p = plan_run(dgemm(), r);
  const auto whole = partition::pareto_front(partition::read_profile_csv(r.profile), 6, {});
  EXPECT_EQ(p.energy, whole.back().energy);  // a bound every point meets: the least energy
  EXPECT_NE(p.reason.find(fmt::format("point {} of {}", whole.size(), whole.size())), std::string::npos) << p.reason;
  // A front of time only has no energies to budget.
  FrontFile t;
  t.processors = {"a", "b"};
  t.workload = 4;
  t.time_only = true;
  t.front = {{2.0, 0.0, {0, 4}}};
  r = PlanRequest{};
  r.front = write("time.json", front_json(t));
  r.pick = Pick::parse("energy@time+5%");
  EXPECT_NE(refusal(r).find("front of time only"), std::string::npos) << refusal(r);
}

TEST_F(Plans, FromAProfileItsFrontOrItsLoadBalancedDistribution) {
  PlanRequest r;
  r.profile = csv_profile();
  r.workload = 6;
  r.pick = Pick::parse("fastest");
  const auto front = partition::pareto_front(partition::read_profile_csv(r.profile), 6, {});
  Plan p = plan_run(dgemm(), r);
  EXPECT_EQ(p.rows, (std::vector<index_t>(front.front().distribution.begin(), front.front().distribution.end())));
  EXPECT_EQ(p.time, front.front().time);
  r.pick = Pick::parse("least-energy");
  p = plan_run(dgemm(), r);
  EXPECT_EQ(p.energy, front.back().energy);
  // 9 rows with at most 4 per processor: above the capacity, exit status 2 in the tool, naming it.
  r.workload = 9;
  for (const char* pick : {"fastest", "load-balanced", "even"}) {
    r.pick = Pick::parse(pick);
    try {
      (void)plan_run(dgemm(), r);
      ADD_FAILURE() << pick << ": no error";
    } catch (const InfeasibleError& e) {
      ADD_FAILURE() << pick << ": " << e.what();
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("capacity of the profile, 8"), std::string::npos) << e.what();
    }
  }
  // A plain CSV is taken at its measured sizes only (the paper's model): 3 rows of sizes 2 and 4
  // have no exact split, exit status 3 in the tool.
  r.profile = write("even.csv", "processor,size,time,energy\na,2,1,1\na,4,2,2\nb,2,1,1\nb,4,2,2\n");
  r.workload = 3;
  r.pick = Pick::parse("fastest");
  EXPECT_THROW(plan_run(dgemm(), r), InfeasibleError);
  r.pick = Pick::parse("load-balanced");
  EXPECT_THROW(plan_run(dgemm(), r), InfeasibleError);
}

TEST_F(Plans, ASplitByHand) {
  PlanRequest r;
  r.split = {{"cpu:0", 7}, {"cpu:1", 0}};
  const Plan p = plan_run(dgemm(), r);
  EXPECT_EQ(p.total_rows(), 7);
  EXPECT_EQ(p.source, "the split given");
  EXPECT_EQ(p.cols_from, "the default of dgemm");
  EXPECT_FALSE(p.time);
  r.split = {{"cpu:0", 7}, {"cpu:0", 1}};
  EXPECT_NE(refusal(r).find("the split given: cpu:0 is given twice"), std::string::npos);
  r.split = {{"cpu:0", 0}};
  EXPECT_NE(refusal(r).find("gives no rows to any processor"), std::string::npos);
  // A split and a pick at once, or neither.
  r.split = {{"cpu:0", 1}};
  r.pick = Pick::parse("fastest");
  EXPECT_NE(refusal(r).find("either a split"), std::string::npos);
  EXPECT_NE(refusal(PlanRequest{}).find("either a split"), std::string::npos);
}

TEST_F(Plans, NPredictionsAndBasePowersFromACtrlProfile) {
  PlanRequest r;
  r.profile = ctrl_profile();
  r.split = {{"a", 2}, {"b", 3}, {"c", 1}};
  Plan p = plan_run(dgemm(), r);
  EXPECT_EQ(p.cols, 24);
  EXPECT_EQ(p.cols_from, r.profile);
  ASSERT_EQ(p.predicted.size(), 3U);
  EXPECT_EQ(p.predicted[0].time, 2.0);
  EXPECT_EQ(p.predicted[1].energy, 9.0);
  EXPECT_FALSE(p.predicted[2].time);  // c is not in the profile
  ASSERT_EQ(p.base_power.size(), 1U);
  EXPECT_EQ(p.base_power[0], (std::pair<std::string, double>{"b", 40.0}));
  const RunRequest run = run_request(p);
  EXPECT_EQ(run.rows, p.rows);
  EXPECT_EQ(run.cols, 24);
  EXPECT_EQ(run.profile_base_power, p.base_power);
  // N is the profile's: another one is refused, as is the profile of another application.
  r.cols = 32;
  EXPECT_NE(refusal(r).find("the N given 32, but " + r.profile + " was measured with N = 24"), std::string::npos)
      << refusal(r);
  r.cols.reset();
  EXPECT_EQ(p.unconverged, "");
  r.profile = ctrl_profile("dgemm", 3);  // size 3 stopped by the repetition bound: b's prediction rests on it
  p = plan_run(dgemm(), r);
  EXPECT_EQ(p.unconverged, "b at 3 (size 3)");
  EXPECT_EQ(plan_from_text(to_text(p)).unconverged, p.unconverged);
  r.profile = ctrl_profile("fft2d");
  EXPECT_NE(refusal(r).find("is a profile of fft2d, not of dgemm"), std::string::npos) << refusal(r);
}

TEST_F(Plans, TotalsArePredictedByTheFrontAndCountTheBasePowerForTotalEnergy) {
  Plan plan;
  plan.processors = {"a", "b"};
  plan.rows = {1, 3};
  RunOutcome o;
  o.measured.wall.mean = 2.0;
  ProcessorRun a, b;
  a.name = "a";
  a.rows = 1;
  a.predicted = {1.0, 1.0, std::nullopt};
  b.name = "b";
  b.rows = 3;
  b.predicted = {1.5, 9.0, std::nullopt};
  b.energy = Estimate{};
  b.energy->mean = 10.0;
  o.processors = {a, b};
  RunTotals t = totals(plan, o);
  EXPECT_EQ(t.time_predicted, 1.5);    // the slowest processor's prediction
  EXPECT_EQ(t.energy_measured, 10.0);  // b alone has a sensor
  EXPECT_EQ(t.energy_predicted, 9.0);
  plan.time = 1.6;
  plan.energy = 20.0;
  plan.model = {partition::EnergyKind::total, 5.0};
  t = totals(plan, o);
  EXPECT_TRUE(t.total_energy);
  EXPECT_EQ(t.time_predicted, 1.6);
  EXPECT_EQ(t.energy_measured, 10.0 + 5.0 * 2.0);
  EXPECT_EQ(t.energy_predicted, 20.0);
  o.processors[1].energy.reset();
  t = totals(plan, o);
  EXPECT_FALSE(t.energy_measured);
  EXPECT_FALSE(t.energy_predicted);
}

TEST_F(Plans, APlanTravelsAsText) {
  PlanRequest r;
  r.profile = ctrl_profile();
  r.workload = 5;
  r.pick = Pick::parse("least-energy");
  const Plan p = plan_run(dgemm(), r);
  const Plan q = plan_from_text(to_text(p));
  EXPECT_EQ(q.processors, p.processors);
  EXPECT_EQ(q.rows, p.rows);
  EXPECT_EQ(q.source, p.source);
  EXPECT_EQ(q.time, p.time);
  EXPECT_EQ(q.energy, p.energy);
  EXPECT_EQ(q.cols, p.cols);
  EXPECT_EQ(q.cols_from, p.cols_from);
  ASSERT_EQ(q.predicted.size(), p.predicted.size());
  for (std::size_t i = 0; i < p.predicted.size(); ++i) {
    EXPECT_EQ(q.predicted[i].time, p.predicted[i].time);
    EXPECT_EQ(q.predicted[i].energy, p.predicted[i].energy);
  }
  EXPECT_EQ(q.base_power, p.base_power);
  EXPECT_EQ(q.profile, p.profile);
}

TEST(Pick, ParsesItsNamesAndNumbers) {
  EXPECT_EQ(Pick::parse("fastest").kind, Pick::fastest);
  EXPECT_EQ(Pick::parse("time-optimal").kind, Pick::fastest);
  EXPECT_EQ(Pick::parse("energy-optimal").kind, Pick::least_energy);
  EXPECT_EQ(Pick::parse("load-balanced").kind, Pick::load_balanced);
  EXPECT_EQ(Pick::parse("even").kind, Pick::even);
  EXPECT_EQ(Pick::parse("even-split").kind, Pick::even);
  EXPECT_EQ(Pick::parse("even").name(), "even split");
  EXPECT_EQ(Pick::parse("3").k, 3U);
  for (const char* bad : {"0", "-1", "fast", "", "1.5"}) EXPECT_THROW(Pick::parse(bad), UsageError) << bad;
}

TEST(Pick, ParsesBudgets) {
  Pick p = Pick::parse("energy@time+5%");
  EXPECT_EQ(p.kind, Pick::budget);
  EXPECT_EQ(p.bound.on, Bound::time);
  EXPECT_TRUE(p.bound.relative);
  EXPECT_DOUBLE_EQ(p.bound.value, 0.05);
  EXPECT_EQ(p.name(), "least energy within +5 % of the fastest time");
  p = Pick::parse("time@energy-20%");
  EXPECT_EQ(p.bound.on, Bound::energy);
  EXPECT_DOUBLE_EQ(p.bound.value, -0.2);
  EXPECT_EQ(p.name(), "fastest within -20 % of the fastest point's energy");
  p = Pick::parse("energy@time<=250ms");
  EXPECT_FALSE(p.bound.relative);
  EXPECT_DOUBLE_EQ(p.bound.value, 0.25);
  EXPECT_EQ(p.name(), "least energy within 250 ms");
  EXPECT_DOUBLE_EQ(Pick::parse("time@energy<=1.5kJ").bound.value, 1500.0);
  EXPECT_DOUBLE_EQ(Pick::parse("time@energy<=2 J").bound.value, 2.0);
  EXPECT_TRUE(Pick::parse("time@energy<=2J").by_energy());
  const std::pair<const char*, const char*> bad[] = {
      {"energy@energy+5%", "a budget minimises one of time and energy"},
      {"time@time<=1s", "a budget minimises one of time and energy"},
      {"@time+5%", "a budget minimises"},
      {"energy@time+5", "a relative bound ends with %"},
      {"energy@time+x%", "not a percentage"},
      {"energy@time+-5%", "not a percentage"},
      {"energy@time-100%", "leaves nothing"},
      {"energy@time<=5J", "s, ms or us"},
      {"time@energy<=5s", "J, kJ or mJ"},
      {"energy@time<=-1s", "a positive number"},
      {"energy@time<=0s", "a positive number"},
      {"energy@time<=", "a positive number"},
      {"energy@time<=infs", "a positive number"},
  };
  for (const auto& [text, says] : bad) {
    try {
      (void)Pick::parse(text);
      ADD_FAILURE() << text << ": accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << text << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << text << ": " << e.what();
    }
  }
}

}  // namespace
}  // namespace ctrl::loop
