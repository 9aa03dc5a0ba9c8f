// Profiles of sizes per processor (given, or calibrated), halo workloads profiled side by side,
// and the model fronts and predictions are computed from (ctrl/loop/model.hpp).
#include "catalog/catalog.hpp"
#include <ctrl/loop/model.hpp>
#include <ctrl/loop/profile.hpp>
#include <ctrl/loop/run.hpp>

#include "scratch_dir.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

namespace ctrl::loop {
namespace {

class Sizes : public ::testing::Test {
 public:
  std::string path(const std::string& name) const { return (dir_.path() / name).string(); }
  static std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // A quick profile request on two CPU groups, without idle windows.
  ProfileRequest request(const std::string& file) const {
    ProfileRequest req;
    req.cols = 24;
    req.devices = {parse_device("cpu:0"), parse_device("cpu:1")};
    req.out = path(file);
    req.rule = {2, 3, 10.0, 0};
    req.team.min_round_s = 0.002;
    req.idle_seconds = 0;
    return req;
  }
  ctrl::test::ScratchDir dir_{"ctrl-sizes"};
};

std::vector<index_t> sizes_of(const ProfileFile& pf, const std::string& processor) {
  std::vector<index_t> out;
  for (const auto& r : pf.rows)
    if (r.processor == processor) out.push_back(r.size);
  return out;
}

// ---- the sizes of a calibration ------------------------------------------------------------------

std::vector<CalibrationPoint> affine(double overhead, double per_row, index_t from, index_t to) {
  std::vector<CalibrationPoint> pts;
  for (index_t x = from; x <= to; x *= 2) pts.push_back({x, overhead + per_row * static_cast<double>(x)});
  return pts;
}

TEST(SizesForTimes, EveryProcessorCoversTheSameTimesAtItsOwnSteps) {
  // A slow CPU group (1 ms a row) and a GPU ten times faster with a fixed cost of 2 ms.
  const std::vector<std::vector<CalibrationPoint>> points = {affine(0, 1e-3, 1, 512), affine(2e-3, 1e-4, 1, 8192)};
  SizeCalibration cal;
  cal.steps = 8;
  cal.largest_run_s = 0.4;
  const auto sizes = sizes_for_times(points, {"cpu", "gpu"}, cal, 1, 1);
  ASSERT_EQ(sizes.size(), 2U);
  for (const auto& s : sizes) {
    ASSERT_EQ(s.size(), 8U);
    EXPECT_TRUE(std::is_sorted(s.begin(), s.end()) && std::adjacent_find(s.begin(), s.end()) == s.end());
  }
  // The largest sizes take the largest time: 400 rows on the CPU, 3980 on the GPU.
  EXPECT_NEAR(static_cast<double>(sizes[0].back()), 400, 2);
  EXPECT_NEAR(static_cast<double>(sizes[1].back()), 3980, 8);
  // At every step the two take about the same time (within a row's worth, and the GPU's floor).
  for (std::size_t k = 0; k < 8; ++k) {
    const double cpu = 1e-3 * static_cast<double>(sizes[0][k]);
    const double gpu = 2e-3 + 1e-4 * static_cast<double>(sizes[1][k]);
    EXPECT_NEAR(cpu, gpu, std::max(1e-3, 0.05 * gpu)) << "step " << k;
  }
  // Granularity and the smallest block: multiples of 4 from 8.
  const auto blocks = sizes_for_times(points, {"cpu", "gpu"}, cal, 4, 8);
  for (const auto& s : blocks)
    for (const index_t x : s) {
      EXPECT_EQ(x % 4, 0);
      EXPECT_GE(x, 8);
    }
}

TEST(SizesForTimes, AProcessorCappedByMemoryStopsAtItsLargestCalibratedSize) {
  const std::vector<std::vector<CalibrationPoint>> points = {affine(0, 1e-3, 1, 512), affine(0, 1e-4, 1, 64)};
  SizeCalibration cal;
  cal.steps = 6;
  cal.largest_run_s = 0.4;
  const auto sizes = sizes_for_times(points, {"cpu", "gpu"}, cal, 1, 1);
  EXPECT_EQ(sizes[1].back(), 64);
  EXPECT_EQ(sizes[1].size(), 6U);
  EXPECT_TRUE(std::adjacent_find(sizes[1].begin(), sizes[1].end()) == sizes[1].end());
  // A cap below `steps` granules cannot give distinct sizes: refused, naming the processor.
  try {
    (void)sizes_for_times({affine(0, 1e-3, 1, 512), affine(0, 1e-4, 1, 4)}, {"cpu", "gpu"}, cal, 1, 1);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("gpu can hold at most 4 rows"), std::string::npos) << e.what();
  }
  cal.steps = 1;
  EXPECT_THROW((void)sizes_for_times(points, {"cpu", "gpu"}, cal, 1, 1), UsageError);
}

// ---- profiles of sizes per processor -----------------------------------------------------------------

TEST_F(Sizes, EachProcessorIsMeasuredAtItsOwnSizesOneStepAtATime) {
  const Workload& app = apps::catalog().find("matadd");
  ProfileRequest req = request("p.csv");
  req.sizes = {4, 8, 12};
  req.sizes_of = {{"cpu:1", {16, 32, 48}}};
  ProfileObserver quiet;
  const ProfileOutcome o = run_profile(app, req, quiet);
  EXPECT_EQ(o.measured, 3U);
  EXPECT_EQ(o.capacity, 12 + 48);
  EXPECT_EQ(o.sizes, (std::vector<std::vector<index_t>>{{4, 8, 12}, {16, 32, 48}}));
  const ProfileFile pf = read_profile_file(req.out);
  EXPECT_EQ(sizes_of(pf, "cpu:0"), (std::vector<index_t>{4, 8, 12}));
  EXPECT_EQ(sizes_of(pf, "cpu:1"), (std::vector<index_t>{16, 32, 48}));
  for (const auto& r : pf.rows) {
    EXPECT_EQ(r.granularity, 1);
    EXPECT_FALSE(r.exchange_time.has_value());  // no halo
  }

  // A step cut short by an interruption (its first row written, the second cut): dropped when
  // read, and measured again on resume, the steps before it kept.
  std::string text = slurp(req.out);
  text.resize(text.rfind('\n', text.size() - 2) + 12);
  std::ofstream(req.out, std::ios::binary | std::ios::trunc) << text;
  const ProfileFile cut = read_profile_file(req.out);
  EXPECT_EQ(sizes_of(cut, "cpu:0"), (std::vector<index_t>{4, 8}));
  EXPECT_EQ(sizes_of(cut, "cpu:1"), (std::vector<index_t>{16, 32}));
  EXPECT_EQ(cut.dropped_rows, 2U);  // the last step's whole row and its cut one
  const ProfileOutcome again = run_profile(app, req, quiet);
  EXPECT_EQ(again.resumed, 2U);
  EXPECT_EQ(again.measured, 1U);
  const ProfileFile whole = read_profile_file(req.out);
  EXPECT_EQ(sizes_of(whole, "cpu:0"), (std::vector<index_t>{4, 8, 12}));
  EXPECT_EQ(sizes_of(whole, "cpu:1"), (std::vector<index_t>{16, 32, 48}));
  EXPECT_EQ(whole.dropped_rows, 0U);
}

TEST_F(Sizes, AStepThatMeetsARowOfAnotherStepReplacesThatStepWhole) {
  const Workload& app = apps::catalog().find("matadd");
  ProfileRequest req = request("s.csv");
  req.sizes = {4, 8};
  req.sizes_of = {{"cpu:1", {16, 32}}};
  ProfileObserver quiet;
  (void)run_profile(app, req, quiet);
  // cpu:0 at 8 again, beside cpu:1 at 48: the step (8, 32) goes whole, the file keeps whole steps.
  req.sizes_of = {{"cpu:1", {16, 48}}};
  const ProfileOutcome o = run_profile(app, req, quiet);
  EXPECT_EQ(o.resumed, 1U);
  EXPECT_EQ(o.measured, 1U);
  const ProfileFile pf = read_profile_file(req.out);
  EXPECT_EQ(pf.dropped_rows, 0U);
  EXPECT_EQ(sizes_of(pf, "cpu:0"), (std::vector<index_t>{4, 8}));
  EXPECT_EQ(sizes_of(pf, "cpu:1"), (std::vector<index_t>{16, 48}));
}

TEST_F(Sizes, SizesThatCannotBeAStepAreRefusedNamingTheOption) {
  const Workload& app = apps::catalog().find("matadd");
  ProfileObserver quiet;
  const auto refused = [&](ProfileRequest req, const std::string& says) {
    try {
      (void)run_profile(app, req, quiet);
      ADD_FAILURE() << "no error for " << says;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  ProfileRequest req = request("x.csv");
  req.sizes_of = {{"cpu:0", {4, 8}}, {"cpu:1", {4, 8, 12}}};
  refused(req, "every processor needs as many");
  req.sizes_of = {{"cpu:0", {4, 8}}};
  refused(req, "cpu:1 has no size");
  req.sizes_of = {{"cuda:3", {4, 8}}};
  req.sizes = {4, 8};
  refused(req, "cuda:3 is not one of the processors profiled");
  EXPECT_FALSE(std::ifstream(path("x.csv")).good());  // nothing written
}

TEST_F(Sizes, WithoutSizesACalibrationChoosesThem) {
  const Workload& app = apps::catalog().find("matadd");
  ProfileRequest req = request("c.csv");
  req.calibration.steps = 3;
  req.calibration.largest_run_s = 0.0005;
  ProfileObserver quiet;
  const ProfileOutcome o = run_profile(app, req, quiet);
  ASSERT_EQ(o.sizes.size(), 2U);
  const ProfileFile pf = read_profile_file(req.out);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(o.sizes[i].size(), 3U);
    EXPECT_TRUE(std::is_sorted(o.sizes[i].begin(), o.sizes[i].end()));
    EXPECT_EQ(sizes_of(pf, o.processors[i].name), o.sizes[i]);
  }
  // Resumed: the file's sizes are taken again (within noise of a new calibration), nothing measured.
  const ProfileOutcome again = run_profile(app, req, quiet);
  EXPECT_EQ(again.resumed + again.measured, 3U);
  const ProfileFile after = read_profile_file(req.out);
  EXPECT_EQ(after.dropped_rows, 0U);
  EXPECT_EQ(after.rows.size() % 2, 0U);  // whole steps only
}

// ---- a workload with halos, profiled as it runs ------------------------------------------------------

TEST_F(Sizes, AHaloWorkloadIsProfiledSideBySideWithItsExchangesApart) {
  Settings s = apps::catalog().defaults("jacobi");
  s.set("iterations", 4);
  const auto jacobi = apps::catalog().make("jacobi", s);
  ProfileRequest req = request("j.csv");
  req.devices = {parse_device("cpu:0"), parse_device("offload:1")};
  req.sizes = {3, 6};
  req.sizes_of = {{"offload:1", {5, 9}}};
  ProfileObserver quiet;
  (void)run_profile(*jacobi, req, quiet);  // the first and last steps are checked: whole-matrix sweeps
  const ProfileFile pf = read_profile_file(req.out);
  ASSERT_EQ(pf.rows.size(), 4U);
  for (const auto& r : pf.rows) {
    ASSERT_TRUE(r.exchange_time.has_value()) << r.processor;
    EXPECT_GE(*r.exchange_time, 0.0);
    EXPECT_LE(*r.exchange_time, r.time);
  }
  // The model takes a processor with every row without its exchanges.
  const LoadedProfile loaded{to_partition_profile(pf), pf};
  const partition::ProfileModel model = profile_model(loaded);
  const auto& row = pf.rows.back();  // offload:1 at 9 rows
  const auto alone = predict(model, {"cpu:0", "offload:1"}, {0, 9});
  const auto inside = predict(model, {"cpu:0", "offload:1"}, {3, 9});
  EXPECT_DOUBLE_EQ(*alone[1].time, row.time - *row.exchange_time);
  EXPECT_DOUBLE_EQ(*inside[1].time, row.time);
}

// ---- any workload up to the capacity ----------------------------------------------------------------

TEST(ProfileModelOfAFile, AnyWorkloadUpToTheCapacitySplitsAndSaysWhatIsInterpolated) {
  // Two processors measured every 64 rows (the case: 600 rows could not be split).
  ProfileFile pf;
  pf.processors = {"cpu:0-14", "cuda:0"};
  for (index_t x = 64; x <= 1024; x += 64)
    for (const auto& [name, per_row, watts] : {std::tuple{"cpu:0-14", 1e-4, 60.0}, std::tuple{"cuda:0", 1e-5, 300.0}}) {
      ProfileRow r;
      r.processor = name;
      r.size = x;
      r.time = 2e-4 + per_row * static_cast<double>(x);
      r.energy = watts * r.time;
      r.energy_source = "test";
      r.energy_provenance = energy::Provenance::measured;
      pf.rows.push_back(r);
    }
  const LoadedProfile loaded{to_partition_profile(pf), pf};
  const partition::ProfileModel model = profile_model(loaded);
  EXPECT_EQ(model.capacity(), 2048);
  std::mt19937_64 rng(36);
  std::uniform_int_distribution<index_t> pick(1, model.capacity());
  for (int k = 0; k < 200; ++k) {
    const index_t n = pick(rng);
    const partition::Front front = model_front(model, {}, n);
    ASSERT_FALSE(front.empty()) << "n = " << n;
    for (const auto& sol : front) {
      EXPECT_EQ(sol.distribution[0] + sol.distribution[1], n);
      EXPECT_EQ(interpolation_note(model, sol.distribution).empty(), model.all_measured(sol.distribution));
    }
  }
  EXPECT_EQ(interpolation_note(model, {64, 600}), "cuda:0 interpolated at 600");
  EXPECT_EQ(interpolation_note(model, {10, 64}), "cpu:0-14 at 10, below its smallest size (64)");
  EXPECT_THROW((void)model_front(model, {}, 2049), UsageError);
}

}  // namespace
}  // namespace ctrl::loop
