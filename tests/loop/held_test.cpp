// Held power (ctrl/loop/held.hpp): a device that stays above its base power after its block while
// the others work. The exact front of the held model against every distribution; predictions;
// the profile file's held_power column (and files written before it); and end to end, on a fake
// machine whose "GPU" keeps drawing after its blocks: `ctrl profile`'s measurement of it, the
// front, and every point of the front run and measured, the energy adding up at every point.
#include <ctrl/loop/held.hpp>
#include <ctrl/loop/plan.hpp>
#include <ctrl/loop/profile.hpp>
#include <ctrl/loop/profile_file.hpp>
#include <ctrl/loop/run.hpp>
#include <ctrl/loop/team.hpp>

#include <ctrl/partition/pareto.hpp>

#include "scratch_dir.hpp"
#include "ticking_clock.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <condition_variable>
#include <mutex>
#include <random>
#include <span>

namespace ctrl::loop {
namespace {

// ---- the model ------------------------------------------------------------------------------------

partition::Profile random_profile(std::mt19937& rng, std::size_t p, partition::Size sizes) {
  std::uniform_real_distribution<double> u(0.1, 1.0);
  partition::Profile profile;
  for (std::size_t i = 0; i < p; ++i) {
    std::vector<partition::ProfilePoint> pts;
    for (partition::Size s = 1; s <= sizes; ++s)
      pts.push_back({s, u(rng) * static_cast<double>(s), u(rng) * static_cast<double>(s)});
    profile.add(partition::ProcessorProfile("p" + std::to_string(i), std::move(pts)));
  }
  return profile;
}

// Every distribution of n over the profile (sizes 1..max and 0), evaluated, filtered.
partition::Front enumerated(const partition::Profile& profile, const HeldPower& held, partition::Size n,
                            const partition::EnergyModel& model) {
  std::vector<partition::Solution> all;
  partition::Distribution x(profile.size(), 0);
  const auto rec = [&](auto& self, std::size_t i, partition::Size left) -> void {
    if (i + 1 == profile.size()) {
      x[i] = left;
      if (left == 0 || profile[i].find(left) != nullptr) all.push_back(held_solution(profile, held, x, n, model));
      return;
    }
    for (partition::Size s = 0; s <= std::min(left, profile[i].max_size()); ++s) {
      x[i] = s;
      self(self, i + 1, left - s);
    }
  };
  rec(rec, 0, n);
  return partition::pareto_filter(std::move(all));
}

void expect_same_front(const partition::Front& a, const partition::Front& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t k = 0; k < a.size(); ++k) EXPECT_TRUE(partition::same_point(a[k], b[k])) << what << " point " << k;
}

TEST(HeldModel, TheFrontIsExactAgainstEveryDistribution) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> w(0.0, 3.0);
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t p = 2 + static_cast<std::size_t>(trial % 3);
    const partition::Profile profile = random_profile(rng, p, 5);
    HeldPower held;
    for (std::size_t i = 0; i < p; ++i) held.watts.push_back(trial % 4 == 0 && i == 0 ? 0.0 : w(rng));
    const partition::Size n = 3 + trial % 6;
    for (const partition::EnergyModel model :
         {partition::EnergyModel{}, partition::EnergyModel{partition::EnergyKind::total, 1.5}}) {
      const std::string what =
          "trial " + std::to_string(trial) + (model.kind == partition::EnergyKind::total ? " total" : "");
      expect_same_front(held_front(profile, held, n, model), enumerated(profile, held, n, model), what);
    }
  }
}

TEST(HeldModel, WithoutHeldPowerItIsThePlainFront) {
  std::mt19937 rng(3);
  const partition::Profile profile = random_profile(rng, 3, 6);
  expect_same_front(held_front(profile, {}, 9), partition::hepopta(profile, 9), "empty");
  expect_same_front(held_front(profile, HeldPower{{0.0, 0.0, 0.0}}, 9), partition::hepopta(profile, 9), "zeros");
}

TEST(HeldModel, ADeviceHoldsUntilTheSlowestFinishesAndNothingWithoutWork) {
  // a: 1 s a row, 1 J a row; b: 0.5 s a row, 3 J a row, holding 2 W after its block.
  const partition::Profile profile({partition::ProcessorProfile("a", {{1, 1.0, 1.0}, {2, 2.0, 2.0}, {3, 3.0, 3.0}}),
                                    partition::ProcessorProfile("b", {{1, 0.5, 3.0}, {2, 1.0, 6.0}, {3, 1.5, 9.0}})});
  const HeldPower held{{0.0, 2.0}};
  // {2, 1}: T = 2 s; b holds for 1.5 s: 2 + 3 + 3 J.
  const auto e = evaluate_held(profile, held, {2, 1}, 3);
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->time, 2.0);
  EXPECT_DOUBLE_EQ(e->dynamic_energy, 8.0);
  // {3, 0}: b has no work and holds nothing.
  EXPECT_DOUBLE_EQ(evaluate_held(profile, held, {3, 0}, 3)->dynamic_energy, 3.0);
  // Per processor, as `ctrl run` shows it.
  const auto pred = predict(profile, {"a", "b"}, {2, 1}, held);
  EXPECT_DOUBLE_EQ(*pred[0].energy, 2.0);
  EXPECT_DOUBLE_EQ(*pred[0].held, 0.0);
  EXPECT_DOUBLE_EQ(*pred[1].held, 3.0);
  EXPECT_DOUBLE_EQ(*pred[1].energy, 6.0);
  // A point measured below its held power's (noise) counts as the held power's.
  const partition::Profile low(
      {partition::ProcessorProfile("a", {{1, 1.0, 1.0}}), partition::ProcessorProfile("b", {{1, 0.5, 0.1}})});
  EXPECT_DOUBLE_EQ(evaluate_held(low, held, {1, 1}, 2)->dynamic_energy, 1.0 + 1.0 + 1.0);
}

// ---- the profile file -------------------------------------------------------------------------------

class HeldFiles : public ::testing::Test {
 public:
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
    return p;
  }
  ctrl::test::ScratchDir dir_{"ctrl-held"};
};

ProfileRow held_row(const std::string& processor, index_t size, std::optional<double> held) {
  ProfileRow r;
  r.processor = processor;
  r.size = size;
  r.time = 0.1 * static_cast<double>(size);
  r.energy = static_cast<double>(size);
  r.energy_measured = r.energy;
  r.energy_ci = 0.01;
  r.base_power = 70.0;
  r.energy_source = "nvml:0";
  r.energy_provenance = energy::Provenance::measured;
  r.app = "dgemm";
  r.cols = 64;
  r.held_power = held;
  return r;
}

TEST_F(HeldFiles, TheColumnIsWrittenReadBackAndAveragedPerProcessor) {
  EXPECT_NE(profile_header().find(",cols,held_power"), std::string::npos);
  std::string text = profile_header() + "\n";
  text +=
      format_profile_row(held_row("cpu:0", 1, 0.25)) + "\n" + format_profile_row(held_row("cuda:0", 1, 40.0)) + "\n";
  text +=
      format_profile_row(held_row("cpu:0", 2, -0.25)) + "\n" + format_profile_row(held_row("cuda:0", 2, 50.0)) + "\n";
  const ProfileFile pf = parse_profile_file(text, "p.csv");
  EXPECT_FALSE(pf.earlier_format);
  EXPECT_EQ(pf.rows[1].held_power, 40.0);
  const auto h = held_powers(pf);
  ASSERT_EQ(h.size(), 2U);
  EXPECT_DOUBLE_EQ(*h[0], 0.0);
  EXPECT_DOUBLE_EQ(*h[1], 45.0);
  std::vector<std::string> unknown;
  EXPECT_EQ(held_model(pf, &unknown).watts, (std::vector<double>{0.0, 45.0}));
  EXPECT_TRUE(unknown.empty());
}

// A file written before held_power existed: read with the held power unknown (0 W, the
// processors named), and rewritten with the column when resumed.
TEST_F(HeldFiles, AnEarlierFileIsReadWithoutHeldPowerAndRewrittenWhenResumed) {
  std::string header = profile_header();
  header.resize(header.size() - std::string(",held_power,granularity,exchange_time,measured_in").size());
  std::string row = format_profile_row(held_row("cuda:0", 4, std::nullopt));
  // The empty held_power, granularity 1, no exchange, measured in the profile.
  row.resize(row.size() - std::string(",,1,,profile").size());
  ASSERT_EQ(row.back(), '4');
  const std::string f = write("v2.csv", header + "\n" + row + "\n");
  const ProfileFile pf = read_profile_file(f);
  EXPECT_TRUE(pf.earlier_format);
  ASSERT_EQ(pf.rows.size(), 1U);
  EXPECT_FALSE(pf.rows[0].held_power);
  EXPECT_EQ(pf.rows[0].cols, 64);
  std::vector<std::string> unknown;
  EXPECT_EQ(held_model(pf, &unknown).watts, std::vector<double>{0.0});
  EXPECT_EQ(unknown, std::vector<std::string>{"cuda:0"});
  {
    ProfileWriter w(f);
    w.write({held_row("cuda:0", 8, 30.0)});
  }
  const ProfileFile now = read_profile_file(f);
  EXPECT_FALSE(now.earlier_format);
  EXPECT_EQ(now.complete_sizes, (std::vector<index_t>{4, 8}));
  EXPECT_DOUBLE_EQ(*held_powers(now)[0], 30.0);
}

// ---- end to end on a fake machine --------------------------------------------------------------------

// One device of the fake machine, on the test's clock: its blocks add their energy when they end,
// and for `hold_s` after a block it draws `held_w` above its base power (a GPU's clocks held up).
struct FakeDevice {
  double base_w = 0, held_w = 0, hold_s = 0;
  energy::Clock::time_point origin{};
  std::mutex m;
  std::condition_variable read;
  double blocks_j = 0, held_closed_s = 0;
  std::optional<energy::Clock::time_point> last_end;
  bool read_since_block = false;  // the meter was read after the last block (a driver's end reading)
  bool block_this_round = false;  // a block ran since the round began (new_round)

  static double seconds(energy::Clock::duration d) { return std::chrono::duration<double>(d).count(); }
  void block_done(double joules, energy::Clock& clock) {
    const std::lock_guard lock(m);
    const auto t = clock.now();
    if (last_end) held_closed_s += std::min(hold_s, seconds(t - *last_end));
    last_end = t;
    blocks_j += joules;
    read_since_block = false;
    block_this_round = true;
  }
  // A round begins: the readings before it (the round's first, the rounds before) are not the
  // end reading waited for.
  void new_round() {
    const std::lock_guard lock(m);
    block_this_round = false;
  }
  // Until the meter has been read after a block of this round: the end reading of an execution's
  // GPU driver.
  void wait_for_reading() {
    std::unique_lock lock(m);
    read.wait_for(lock, std::chrono::seconds(10), [&] { return block_this_round && read_since_block; });
  }
  double energy(energy::Clock& clock) {
    const std::lock_guard lock(m);
    const auto t = clock.now();
    const double open = last_end ? std::min(hold_s, seconds(t - *last_end)) : 0.0;
    read_since_block = true;
    read.notify_all();
    return base_w * seconds(t - origin) + blocks_j + held_w * (held_closed_s + open);
  }
};

class FakeMeter final : public energy::Meter {
 public:
  FakeMeter(std::shared_ptr<FakeDevice> d, std::shared_ptr<energy::Clock> clock, std::string name)
      : d_(std::move(d)), clock_(std::move(clock)) {
    info_.name = std::move(name);
    info_.measures = "a fake device";
    info_.provenance = energy::Provenance::estimated;  // read without alignment: no counter updates
  }
  const energy::MeterInfo& info() const override { return info_; }
  bool available() const override { return true; }
  std::optional<double> energy_j() override { return d_->energy(*clock_); }

 private:
  std::shared_ptr<FakeDevice> d_;
  std::shared_ptr<energy::Clock> clock_;
  energy::MeterInfo info_;
};

// cpu:0 works 10 ms a row at 30 W and holds nothing; cpu:1, the "GPU", does its rows at once for
// 1 J a row and then holds 20 W for 1 s. Base powers 50 and 70 W.
struct FakeMachine {
  std::size_t gpu_slot = 1;  // the processor that is the "GPU"
  std::shared_ptr<test::TickingClock> clock = std::make_shared<test::TickingClock>();
  std::shared_ptr<FakeDevice> cpu = std::make_shared<FakeDevice>(), gpu = std::make_shared<FakeDevice>();
  FakeMachine() {
    cpu->base_w = 50;
    gpu->base_w = 70;
    gpu->held_w = 20;
    gpu->hold_s = 1.0;
    cpu->origin = gpu->origin = clock->now();
  }
  TeamOptions options() const {
    TeamOptions o;
    o.min_round_s = 0.002;
    o.min_window_s = 0.05;
    o.clock = clock;
    o.meters.estimate.cpuinfo = "/nonexistent/cpuinfo";
    auto c = cpu, g = gpu;
    auto k = clock;
    o.make_meter = [c, g, k](const energy::DeviceSpec& d) -> std::unique_ptr<energy::Meter> {
      return std::make_unique<FakeMeter>(d.label == "cpu:1" ? g : c, k, "fake:" + d.label);
    };
    return o;
  }
};

class FakeProblem final : public Problem {
 public:
  FakeProblem(index_t rows, FakeMachine* m) : rows_(rows), m_(m) {}
  index_t rows() const override { return rows_; }
  index_t cols() const override { return 1; }
  index_t first_row() const override { return 0; }
  // In an execution the CPU starts once the GPU is done and has read its meter: the test's clock
  // jumps while the CPU sleeps, and a jump amid the GPU driver's runs or readings would make its
  // times a matter of scheduling. (A profile's rounds, where both fill the round, run the fake
  // GPU alone.)
  void prepare_round(const std::vector<Block>& blocks, bool together) override {
    gpu_first_ = together && m_->gpu_slot < blocks.size() && !blocks[m_->gpu_slot].empty();
    cpu_runs_ = 0;
    m_->gpu->new_round();
  }
  void run_block(Controller&, Block b, std::size_t slot) override {
    const auto n = static_cast<double>(b.rows());
    if (slot != m_->gpu_slot) {
      if (gpu_first_ && cpu_runs_++ == 0) m_->gpu->wait_for_reading();
      m_->clock->sleep_for(std::chrono::duration<double>(0.01 * n));
      m_->cpu->block_done(30.0 * 0.01 * n, *m_->clock);
    } else {
      m_->gpu->block_done(1.0 * n, *m_->clock);
    }
  }
  Check verify(const std::vector<Block>&) const override { return {}; }
  void perturb_output(index_t, index_t, double) override {}
  std::span<const std::byte> output_bytes(Block) const override { return {}; }
  std::string output_dtype() const override { return "<f8"; }

 private:
  index_t rows_;
  FakeMachine* m_;
  bool gpu_first_ = false;
  int cpu_runs_ = 0;  // touched by the CPU's driver only
};

class FakeWork final : public Workload {
 public:
  explicit FakeWork(FakeMachine*& m) : m_(m) {}
  std::string name() const override { return "fakework"; }
  std::string summary(index_t) const override { return "rows of a fake machine"; }
  index_t default_cols() const override { return 1; }
  double flops(index_t rows, index_t) const override { return static_cast<double>(rows); }

 protected:
  std::vector<ArrayShape> arrays(index_t rows, index_t cols, std::size_t) const override {
    return {{"x", 1, rows, cols, 8}};
  }
  std::unique_ptr<Problem> make_window(index_t rows, index_t, std::size_t, std::uint64_t, index_t) const override {
    return std::make_unique<FakeProblem>(rows, m_);
  }

 private:
  FakeMachine*& m_;  // the machine of the team being made
};

std::string rows_text(const std::vector<index_t>& rows) {
  std::string s;
  for (const index_t r : rows) s += (s.empty() ? "" : " ") + std::to_string(r);
  return s;
}

// `ctrl profile` on the fake GPU alone (with the fake CPU beside it, the GPU's driver would spin
// the test's clock while the CPU's sleeps it: times that depend on scheduling): its held power,
// and energies that are its blocks' plus its held power over its own time (the rounds' margins
// taken at the held power).
TEST_F(HeldFiles, AProfileMeasuresTheHeldPower) {
  FakeMachine m;
  m.gpu_slot = 0;
  FakeMachine* current = &m;
  FakeWork app(current);
  ProfileRequest req;
  req.devices = {parse_device("cpu:1")};
  req.sizes = {1, 2, 3, 4};
  req.out = (dir_ / "gpu.csv").string();
  req.rule = {2, 3, 0.5, 0.0};
  req.team = m.options();
  req.base_power = {{"cpu:1", 70.0}};
  ProfileObserver quiet;
  run_profile(app, req, quiet);
  const ProfileFile pf = read_profile_file(req.out);
  ASSERT_EQ(pf.rows.size(), 4U);
  for (const auto& r : pf.rows) {
    ASSERT_TRUE(r.held_power);
    EXPECT_NEAR(*r.held_power, 20.0, 1e-6) << r.size;
    EXPECT_NEAR(r.energy - 20.0 * r.time, static_cast<double>(r.size), 1e-3 * static_cast<double>(r.size)) << r.size;
  }
}

// A profile of the fake machine as `ctrl profile` measures it (AProfileMeasuresTheHeldPower): the
// CPU 10 ms and 0.3 J a row, holding nothing; the GPU 0.1 ms a run, 1 J a row plus 20 W over its
// time, holding 20 W.
std::string fake_profile(const std::string& path) {
  std::string text = profile_header() + "\n";
  for (index_t s = 1; s <= 6; ++s) {
    const auto x = static_cast<double>(s);
    ProfileRow c = held_row("cpu:0", s, 0.0), g = held_row("cpu:1", s, 20.0);
    c.time = 0.01 * x;
    c.energy = c.energy_measured.emplace(0.3 * x);
    c.base_power = 50.0;
    g.time = 1e-4;
    g.energy = g.energy_measured.emplace(x + 20.0 * g.time);
    for (ProfileRow* r : {&c, &g}) {
      r->app = "fakework";
      r->cols = 1;
      r->energy_source = "fake:" + r->processor;
      r->energy_provenance = energy::Provenance::estimated;
      text += format_profile_row(*r) + "\n";
    }
  }
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  return path;
}

TEST_F(HeldFiles, EveryPointOfTheFrontAddsUpWithTheHeldTail) {
  FakeMachine* current = nullptr;
  FakeWork app(current);
  const std::vector<DeviceSpec> devices{parse_device("cpu:0"), parse_device("cpu:1")};
  const std::string path = fake_profile((dir_ / "fake.csv").string());
  const auto held = held_powers(read_profile_file(path));

  PlanRequest pr;
  pr.profile = path;
  pr.workload = 6;
  pr.pick = Pick::parse("all");
  const std::vector<Plan> plans = plan_front(app, pr);
  ASSERT_GE(plans.size(), 3U);
  int gpu_waited = 0;
  for (const Plan& plan : plans) {
    FakeMachine m;  // a fresh machine: no tail of the previous point
    current = &m;
    Team team(devices, m.options());
    RunRequest rr = run_request(plan);
    rr.rule = {3, 4, 0.5, 0.0};
    const RunOutcome out = run_distribution(app, rr, team);
    const RunTotals t = totals(plan, out);
    const std::string where = "point " + rows_text(plan.rows);
    ASSERT_TRUE(t.time_predicted && t.energy_measured && t.energy_predicted) << where;
    EXPECT_NEAR(out.measured.wall.mean, *t.time_predicted, 0.02 * *t.time_predicted + 1e-3) << where;
    EXPECT_NEAR(*t.energy_measured, *t.energy_predicted, 0.02 * *t.energy_predicted) << where;
    for (const auto& p : out.processors) {
      ASSERT_TRUE(p.energy && p.predicted.energy) << where << " " << p.name;
      EXPECT_NEAR(p.energy->mean, *p.predicted.energy, 0.02 * *p.predicted.energy + 0.01) << where << " " << p.name;
    }
    // Where the GPU finishes first, its held tail is measured (20 W over the rest of the
    // execution) and predicted (the profile's held power over the predicted rest). The fake GPU's
    // own time is its driver's scheduling, not a property of the device: how the two split one
    // energy differs between profile and run, their sum does not (checked above).
    if (plan.rows[0] > 0 && plan.rows[1] > 0) {
      ++gpu_waited;
      const auto& g = out.processors[1];
      ASSERT_TRUE(g.held && g.predicted.held) << where;
      EXPECT_NEAR(g.held->mean, 20.0 * (out.measured.wall.mean - g.time.mean), 0.01 * g.held->mean + 1e-3) << where;
      EXPECT_NEAR(*g.predicted.held, *held[1] * (*t.time_predicted - *g.predicted.time), 1e-9) << where;
      EXPECT_GT(*g.predicted.held, 0.05) << where;
    }
  }
  EXPECT_GT(gpu_waited, 0);
}

}  // namespace
}  // namespace ctrl::loop
