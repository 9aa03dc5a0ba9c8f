// The distributable applications: dgemm and fft2d split into row blocks over 1-3 controllers
// (odd row counts, zero shares, a separate-memory kind), checked against their references; the
// checks catch wrong results; the reference FFT; statistics and argument parsing.
#include "dgemm/dgemm_workload.hpp"
#include "fft2d/fft2d_workload.hpp"
#include "catalog/catalog.hpp"
#include "run_together.hpp"
#include <ctrl/loop/args.hpp>
#include <ctrl/loop/stats.hpp>
#include <ctrl/loop/workload.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <memory>
#include <numbers>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace ctrl::loop {
namespace {

struct SplitCase {
  std::string app;
  index_t cols;
  std::vector<std::string> devices;
  std::vector<index_t> rows;
};

void PrintTo(const SplitCase& c, std::ostream* os) {
  *os << c.app << " N=" << c.cols << " on";
  for (std::size_t i = 0; i < c.devices.size(); ++i) *os << ' ' << c.devices[i] << '=' << c.rows[i];
}

class Split : public ::testing::TestWithParam<SplitCase> {};

TEST_P(Split, MatchesTheReference) {
  const SplitCase& c = GetParam();
  const Workload& app = apps::catalog().find(c.app);
  index_t m = 0;
  for (const index_t x : c.rows) m += x;
  auto problem = app.make_problem(m, c.cols, c.devices.size(), 7);
  std::vector<std::unique_ptr<Controller>> ctls;
  for (const auto& d : c.devices) ctls.push_back(std::make_unique<Controller>(d));
  const auto blocks = consecutive_blocks(c.rows);
  // Twice: a second run on the same controllers (tiles attached again) must give the same.
  for (int round = 0; round < 2; ++round) {
    testing::run_together(*problem, ctls, blocks);
    const Check check = problem->verify(blocks);
    EXPECT_TRUE(check.ok) << check.detail;
    EXPECT_EQ(check.rows_checked, static_cast<std::size_t>(m));
    EXPECT_LE(check.worst, 1.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Workloads, Split,
                         ::testing::Values(SplitCase{"dgemm", 37, {"cpu:0"}, {23}},
                                           SplitCase{"dgemm", 64, {"cpu:0", "cpu:1"}, {31, 0}},
                                           SplitCase{"dgemm", 53, {"cpu:0", "cpu:1", "offload:0-1"}, {17, 1, 29}},
                                           SplitCase{"dgemm", 40, {"cpu:0-1", "offload:1"}, {0, 13}},
                                           SplitCase{"fft2d", 48, {"cpu:0"}, {11}},  // 48 = 16 x 3: Bluestein reference
                                           SplitCase{"fft2d", 64, {"cpu:0", "cpu:1", "offload:0-1"}, {5, 0, 9}},
                                           SplitCase{"fft2d", 30, {"cpu:0-1", "offload:0"}, {13, 7}}),
                         [](const auto& p) { return p.param.app + "_" + std::to_string(p.index); });

// With a GPU (the H200 machine): the cuBLAS and cuFFT variants beside a CPU group.
TEST(Gpu, SplitWithACpuGroupMatchesTheReference) {
  std::unique_ptr<Controller> gpu;
  try {
    gpu = std::make_unique<Controller>("cuda:0");
  } catch (const std::exception& e) {
    GTEST_SKIP() << "no cuda:0 here: " << e.what();
  }
  for (const char* name : {"dgemm", "fft2d"}) {
    auto p = apps::catalog().find(name).make_problem(77, 96, 2, 5);
    std::vector<std::unique_ptr<Controller>> ctls;
    ctls.push_back(std::make_unique<Controller>("cpu:0"));
    ctls.push_back(std::move(gpu));
    const auto blocks = consecutive_blocks({20, 57});
    testing::run_together(*p, ctls, blocks);
    const Check check = p->verify(blocks);
    EXPECT_TRUE(check.ok) << name << ": " << check.detail;
    gpu = std::move(ctls[1]);
  }
}

TEST(Verify, RowsThatNeverRanFail) {
  for (const char* name : {"dgemm", "fft2d"}) {
    auto p = apps::catalog().find(name).make_problem(10, 16, 2, 1);
    Controller c("cpu:0");
    const auto blocks = consecutive_blocks({6, 4});
    p->run_block(c, blocks[0], 0);  // the second block never runs: its outputs stay NaN
    const Check check = p->verify(blocks);
    EXPECT_FALSE(check.ok) << name;
    EXPECT_NE(check.detail.find("row"), std::string::npos) << check.detail;
    EXPECT_TRUE(p->verify({blocks[0]}).ok) << name;
  }
}

TEST(Verify, OneWrongElementFails) {
  // In a row that is not sampled element by element (row 1 of 0..4): the row checks catch it.
  for (const char* name : {"dgemm", "fft2d"}) {
    for (const index_t col : {0, 5, 15}) {
      auto p = apps::catalog().find(name).make_problem(5, 16, 1, 3);
      Controller c("cpu:0");
      p->run_block(c, {0, 5}, 0);
      ASSERT_TRUE(p->verify({{0, 5}}).ok) << name;
      p->perturb_output(1, col, 0.5);
      const Check check = p->verify({{0, 5}});
      EXPECT_FALSE(check.ok) << name << " col " << col;
      EXPECT_NE(check.detail.find("row 1"), std::string::npos) << check.detail;
    }
    // In a sampled row, the element itself is named.
    auto p = apps::catalog().find(name).make_problem(5, 16, 1, 3);
    Controller c("cpu:0");
    p->run_block(c, {0, 5}, 0);
    p->perturb_output(4, 7, 0.5);
    EXPECT_FALSE(p->verify({{0, 5}}).ok) << name;
  }
}

TEST(ReferenceDft, AgreesWithTheDefinition) {
  for (const std::size_t n : {1U, 2U, 8U, 12U, 30U, 64U}) {
    std::vector<std::complex<double>> x(n);
    for (std::size_t j = 0; j < n; ++j) x[j] = {uniform(5, 1, j), uniform(5, 2, j)};
    const auto got = apps::fft2d::reference_dft(x);
    for (std::size_t k = 0; k < n; ++k) {
      std::complex<double> want = 0;
      for (std::size_t j = 0; j < n; ++j)
        want += x[j] * std::polar(1.0, -2 * std::numbers::pi * static_cast<double>(j * k % n) / static_cast<double>(n));
      EXPECT_NEAR(std::abs(got[k] - want), 0.0, 1e-10 * static_cast<double>(n)) << "n=" << n << " k=" << k;
    }
  }
}

TEST(Workloads, NamesAndErrors) {
  EXPECT_EQ(apps::catalog().find("dgemm").name(), "dgemm");
  EXPECT_EQ(apps::catalog().find("fft2d").name(), "fft2d");
  EXPECT_THROW(apps::catalog().find("sgemm"), UsageError);
  EXPECT_THROW(apps::catalog().find("dgemm").make_problem(4, 0, 1, 1), UsageError);
  EXPECT_THROW(consecutive_blocks({3, -1}), UsageError);
  const auto b = consecutive_blocks({3, 0, 5});
  ASSERT_EQ(b.size(), 3U);
  EXPECT_EQ(b[1].begin, 3);
  EXPECT_TRUE(b[1].empty());
  EXPECT_EQ(b[2].end, 8);
  EXPECT_DOUBLE_EQ(apps::catalog().find("dgemm").flops(2, 3), 36.0);
}

// Sizes are checked before a problem allocates anything: counts that wrap used to give small
// tiles that the fill then wrote past.
TEST(Workloads, SizesBeyondTheLimitsAreRefusedBeforeAllocating) {
  constexpr index_t top = std::numeric_limits<index_t>::max();
  const Workload& dgemm = apps::catalog().find("dgemm");
  const Workload& fft2d = apps::catalog().find("fft2d");
  EXPECT_NO_THROW(dgemm.check_size(1000, 512, 2));
  EXPECT_NO_THROW(dgemm.check_size(0, 512, 1));
  for (const auto& [rows, cols] : std::vector<std::pair<index_t, index_t>>{
           {index_t{1} << 61, 16}, {top, 1}, {1, index_t{1} << 32}, {index_t{1} << 31, 1}}) {
    EXPECT_THROW(dgemm.check_size(rows, cols, 1), UsageError) << rows << " x " << cols;
    EXPECT_THROW(dgemm.make_problem(rows, cols, 1, 1), UsageError) << rows << " x " << cols;
  }
  EXPECT_THROW(fft2d.make_problem(index_t{1} << 60, 16, 1, 1), UsageError);
  EXPECT_THROW(fft2d.check_size(1, index_t{1} << 32, 1), UsageError);  // FFTW's int would cut N to 0
  // dgemm's B is replicated per processor: the copies count too.
  EXPECT_THROW(dgemm.check_size(1, index_t{1} << 30, index_t{1} << 6), UsageError);
  try {
    dgemm.check_size(index_t{1} << 61, 16, 1);
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("dgemm's A (2305843009213693952 x 16 of 8-byte elements): 3.7e+19 elements "
                                         "exceed the limit"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(consecutive_blocks({top, 1}), UsageError);  // the last block's end would wrap
}

// Rows dealt: a permutation of the instance in which every processor's chunks are spread evenly:
// among the first t chunks, processor p has t n_p / J of them, give or take one (half a chunk per
// processor where several are due at once).
TEST(Dealing, EveryProcessorsRowsAreSpreadOverTheWholeInstance) {
  const std::vector<std::vector<index_t>> cases{{12}, {3, 4, 5}, {1, 99}, {50, 0, 7, 43}, {64, 64}, {1, 1, 1, 997}};
  for (const auto& sizes : cases) {
    const std::vector<index_t> places = dealt_rows(sizes, 1);
    index_t total = 0;
    for (const index_t x : sizes) total += x;
    ASSERT_EQ(places.size(), static_cast<std::size_t>(total));
    std::vector<int> owner(places.size(), -1);
    index_t at = 0;
    for (std::size_t p = 0; p < sizes.size(); ++p)
      for (index_t k = 0; k < sizes[p]; ++k, ++at) {
        const auto place = static_cast<std::size_t>(places[static_cast<std::size_t>(at)]);
        ASSERT_LT(place, owner.size());
        EXPECT_EQ(owner[place], -1) << "row " << place << " dealt twice";
        owner[place] = static_cast<int>(p);
      }
    for (std::size_t p = 0; p < sizes.size(); ++p) {
      double had = 0;
      for (std::size_t t = 0; t < owner.size(); ++t) {
        had += owner[t] == static_cast<int>(p) ? 1 : 0;
        const double due = static_cast<double>(t + 1) * static_cast<double>(sizes[p]) / static_cast<double>(total);
        EXPECT_LE(std::abs(had - due), std::max(1.0, 0.5 * static_cast<double>(sizes.size())))
            << "processor " << p << " of " << sizes.size() << ", chunk " << t;
      }
    }
  }
  // Chunks stay whole; a size that is not a multiple of the chunk is refused.
  EXPECT_EQ(dealt_rows({2, 4}, 2), (std::vector<index_t>{2, 3, 0, 1, 4, 5}));
  EXPECT_THROW(dealt_rows({2, 3}, 2), UsageError);
  EXPECT_THROW(dealt_rows({2}, 0), UsageError);
  EXPECT_THROW(dealt_rows({-1}, 1), UsageError);
  // Stored rows put in instance order.
  const std::vector<std::byte> rows{std::byte{10}, std::byte{11}, std::byte{20}, std::byte{21}};
  EXPECT_EQ(in_instance_order(rows, 2, {1, 0}),
            (std::vector<std::byte>{std::byte{20}, std::byte{21}, std::byte{10}, std::byte{11}}));
}

TEST(Stats, StudentAndConfidenceInterval) {
  EXPECT_DOUBLE_EQ(student_t95(1), 12.706);
  EXPECT_DOUBLE_EQ(student_t95(30), 2.042);
  EXPECT_NEAR(student_t95(60), 2.000, 0.002);
  EXPECT_NEAR(student_t95(1000), 1.962, 0.002);
  const Estimate e = estimate({1.0, 2.0, 3.0, 4.0});
  EXPECT_DOUBLE_EQ(e.mean, 2.5);
  EXPECT_NEAR(e.sd, 1.2909944, 1e-6);
  EXPECT_NEAR(e.ci, 3.182 * 1.2909944 / 2, 1e-6);
  EXPECT_NEAR(e.relative_ci(), e.ci / 2.5, 1e-12);
  EXPECT_TRUE(std::isinf(estimate({5.0}).ci));
  EXPECT_EQ(estimate({0.0, 0.0}).relative_ci(), 0.0);
  EXPECT_TRUE(std::isinf(estimate({-1.0, 1.0}).relative_ci()));
}

TEST(Args, Sizes) {
  EXPECT_EQ(parse_sizes("16:64:16"), (std::vector<index_t>{16, 32, 48, 64}));
  EXPECT_EQ(parse_sizes("10:25:10"), (std::vector<index_t>{10, 20}));
  EXPECT_EQ(parse_sizes("5,3,5,9"), (std::vector<index_t>{3, 5, 9}));
  EXPECT_EQ(parse_sizes(std::vector<std::string>{"8", "4:8:4"}), (std::vector<index_t>{4, 8}));
  // Near index_t's top, stepping does not wrap (it used to loop on wrapped sizes).
  EXPECT_EQ(parse_sizes("1:9223372036854775807:9223372036854775800"), (std::vector<index_t>{1, 9223372036854775801}));
  for (const char* bad : {"0:8:4", "8:4:1", "1:8:0", "1:8", "a,b", "", "-4", "1:2:3:4", "3,0"})
    EXPECT_THROW(parse_sizes(std::string_view(bad)), UsageError) << bad;
}

TEST(Args, SplitsAndValues) {
  const auto [name, rows] = parse_split("cpu:0,2-3=17");
  EXPECT_EQ(name, "cpu:0,2-3");
  EXPECT_EQ(parse_split("node2/cpu:0-1=5").first, "node2/cpu:0-1");
  EXPECT_EQ(rows, 17);
  EXPECT_EQ(parse_split("cuda:0=0").second, 0);
  for (const char* bad : {"cpu:0", "cpu:0=", "cpu:0=-1", "=5", "gpu:x=3", "cpu:0=1.5"})
    EXPECT_THROW(parse_split(bad), UsageError) << bad;
  EXPECT_DOUBLE_EQ(parse_device_value("cuda:0=75.5", "--base-power").second, 75.5);
  EXPECT_THROW(parse_device_value("cuda:0=-3", "--base-power"), UsageError);
  EXPECT_THROW(parse_device_value("cuda:0", "--base-power"), UsageError);
  EXPECT_EQ(parse_positive("12", "--cols"), 12);
  EXPECT_THROW(parse_positive("0", "--cols"), UsageError);
}

}  // namespace
}  // namespace ctrl::loop
