// fft2d-whole, the 2-D FFT in phases with a redistribution between them: every split (one
// processor, zero shares, a processor left without columns, a separate-memory kind, odd sizes that
// take Bluestein's path) gives the 2-D DFT a direct double-precision sum gives; a lone block (a
// profile's round) gives the transform of its rows with the others zero; the check catches a
// wrong element and a block that never ran; runs of several processes refuse it.
#include "catalog/catalog.hpp"
#include "run_together.hpp"

#include <ctrl/loop/workload.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

namespace ctrl::loop {
namespace {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;
constexpr std::uint64_t seed = 11;

// X(row, j) of the instance, as the problem fills it.
cdouble input(index_t row, index_t j, index_t cols) {
  const auto k = static_cast<std::uint64_t>(row * cols + j);
  return {static_cast<float>(uniform(seed, 3, k)), static_cast<float>(uniform(seed, 4, k))};
}

// F(k1, k2) of the M x N matrix whose rows [0, rows) are the instance's rows from `first` and the
// others zero, by the definition.
cdouble dft2(index_t first, index_t rows, index_t m, index_t n, index_t k1, index_t k2) {
  cdouble sum = 0;
  for (index_t r = 0; r < rows; ++r)
    for (index_t j = 0; j < n; ++j)
      sum += input(first + r, j, n) * std::polar(1.0, -2 * std::numbers::pi *
                                                          (static_cast<double>(k1 * r % m) / static_cast<double>(m) +
                                                           static_cast<double>(k2 * j % n) / static_cast<double>(n)));
  return sum;
}

std::vector<cfloat> output(const Problem& p, Block b) {
  const auto bytes = p.output_bytes(b);
  std::vector<cfloat> out(bytes.size() / sizeof(cfloat));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

const Workload& whole() { return apps::catalog().find("fft2d-whole"); }

struct Case {
  index_t cols;
  std::vector<std::string> devices;
  std::vector<index_t> rows;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << "N=" << c.cols << " on";
  for (std::size_t i = 0; i < c.devices.size(); ++i) *os << ' ' << c.devices[i] << '=' << c.rows[i];
}

class WholeSplit : public ::testing::TestWithParam<Case> {};

TEST_P(WholeSplit, GivesTheTwoDimensionalDft) {
  const Case& c = GetParam();
  index_t m = 0;
  for (const index_t x : c.rows) m += x;
  auto problem = whole().make_problem(m, c.cols, c.devices.size(), seed);
  std::vector<std::unique_ptr<Controller>> ctls;
  for (const auto& d : c.devices) ctls.push_back(std::make_unique<Controller>(d));
  const auto blocks = consecutive_blocks(c.rows);
  for (int round = 0; round < 2; ++round) {  // a second run on the same controllers and tiles
    testing::run_together(*problem, ctls, blocks);
    const Check check = problem->verify(blocks);
    EXPECT_TRUE(check.ok) << check.detail;
    EXPECT_EQ(check.rows_checked, static_cast<std::size_t>(m));
    const std::vector<cfloat> f = output(*problem, {0, m});
    ASSERT_EQ(f.size(), static_cast<std::size_t>(m * c.cols));
    for (index_t k1 = 0; k1 < m; ++k1)
      for (index_t k2 = 0; k2 < c.cols; ++k2) {
        const cdouble want = dft2(0, m, m, c.cols, k1, k2);
        EXPECT_NEAR(std::abs(cdouble(f[static_cast<std::size_t>(k1 * c.cols + k2)]) - want), 0.0, 1e-3)
            << "F(" << k1 << ", " << k2 << ")";
      }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fft2dWhole, WholeSplit,
    ::testing::Values(Case{16, {"cpu:0"}, {16}},                               // one processor: no exchange
                      Case{12, {"cpu:0", "cpu:1", "offload:0-1"}, {5, 0, 9}},  // M = 14, N = 12: Bluestein
                      Case{20, {"cpu:0-1", "offload:0"}, {13, 7}},
                      Case{8, {"cpu:0", "offload:1"}, {1, 30}}));  // the first block gets no column

// A lone block (a profile's round): its share of a square transform, the other rows zero.
TEST(Fft2dWhole, ALoneBlockTransformsItsRowsWithTheOthersZero) {
  const index_t n = 16;
  auto problem = whole().make_problem(40, n, 2, seed);
  std::vector<std::unique_ptr<Controller>> ctls;
  ctls.push_back(std::make_unique<Controller>("cpu:0"));
  ctls.push_back(std::make_unique<Controller>("offload:1"));
  // 5 rows of a 16 x 16 instance (its first 5 columns), and 20 rows of a 20 x 16 one (every column).
  const std::vector<Block> blocks{{3, 8}, {10, 30}};
  testing::run_together(*problem, ctls, blocks, false);
  const Check check = problem->verify(blocks);
  EXPECT_TRUE(check.ok) << check.detail;
  EXPECT_NE(check.method.find("others zero"), std::string::npos) << check.method;
  // The other block's runs neither see nor change these: a third round of the first alone.
  testing::run_together(*problem, ctls, {{3, 8}, {}}, false);
  EXPECT_TRUE(problem->verify({{3, 8}}).ok);
}

TEST(Fft2dWhole, TheCheckCatchesAWrongElementAndABlockThatNeverRan) {
  auto problem = whole().make_problem(12, 8, 2, seed);
  std::vector<std::unique_ptr<Controller>> ctls;
  ctls.push_back(std::make_unique<Controller>("cpu:0"));
  ctls.push_back(std::make_unique<Controller>("cpu:1"));
  const auto blocks = consecutive_blocks({7, 5});
  testing::run_together(*problem, ctls, blocks);
  ASSERT_TRUE(problem->verify(blocks).ok);
  // An element of a column no check samples (column 1 of the first processor's 0..4) fails the
  // transform's energy; one of a sampled column is named.
  problem->perturb_output(3, 1, 0.5);
  Check check = problem->verify(blocks);
  EXPECT_FALSE(check.ok);
  EXPECT_NE(check.detail.find("energy"), std::string::npos) << check.detail;
  problem->perturb_output(3, 1, -0.5);
  problem->perturb_output(9, 0, 0.5);
  check = problem->verify(blocks);
  EXPECT_FALSE(check.ok);
  EXPECT_NE(check.detail.find("F(9, 0)"), std::string::npos) << check.detail;

  // A round whose second block never ran: its columns are NaN.
  problem->prepare_round(blocks, false);
  problem->run_block(*ctls[0], blocks[0], 0);
  check = problem->verify(blocks);
  EXPECT_FALSE(check.ok);
  EXPECT_TRUE(problem->verify({blocks[0]}).ok);
}

TEST(Fft2dWhole, ARunBlockOutsideItsPreparedRoundIsRefused) {
  auto problem = whole().make_problem(12, 8, 1, seed);
  Controller c("cpu:0");
  problem->prepare_round({{0, 6}}, false);
  EXPECT_THROW(problem->run_block(c, {0, 12}, 0), UsageError);
  EXPECT_THROW(problem->run_block(c, {0, 6}, 3), UsageError);
}

TEST(Fft2dWhole, BlocksMeetSoOneProcessHoldsThemAll) {
  EXPECT_TRUE(whole().blocks_meet());
  EXPECT_FALSE(whole().exchanges_halos());  // profiled alone, not side by side
  EXPECT_FALSE(apps::catalog().find("fft2d").blocks_meet());
}

// With a GPU: the cuFFT phases, the transposes and the pieces between a CPU group and the GPU.
TEST(Fft2dWhole, WithAGpuGivesTheTwoDimensionalDft) {
  std::vector<std::unique_ptr<Controller>> ctls;
  ctls.push_back(std::make_unique<Controller>("cpu:0"));
  try {
    ctls.push_back(std::make_unique<Controller>("cuda:0"));
  } catch (const std::exception& e) {
    GTEST_SKIP() << "no cuda:0 here: " << e.what();
  }
  const index_t n = 24;
  auto problem = whole().make_problem(40, n, 2, seed);
  for (const auto& rows : {std::vector<index_t>{9, 31}, std::vector<index_t>{0, 40}, std::vector<index_t>{40, 0}}) {
    const auto blocks = consecutive_blocks(rows);
    testing::run_together(*problem, ctls, blocks);
    const Check check = problem->verify(blocks);
    EXPECT_TRUE(check.ok) << check.detail;
    const std::vector<cfloat> f = output(*problem, {0, 40});
    for (const index_t k1 : {0, 7, 39})
      for (const index_t k2 : {0, 5, 23})
        EXPECT_NEAR(std::abs(cdouble(f[static_cast<std::size_t>(k1 * n + k2)]) - dft2(0, 40, 40, n, k1, k2)), 0.0,
                    1e-3);
  }
  testing::run_together(*problem, ctls, {{0, 10}, {10, 40}}, false);  // alone, as a profile runs them
  EXPECT_TRUE(problem->verify({{0, 10}, {10, 40}}).ok);
}

}  // namespace
}  // namespace ctrl::loop
