// The Hopper geometry table and its fitting to index spaces (host code: runs everywhere).
#include <ctrl/cuda/geometry.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using namespace ctrl;
using cuda_detail::block_shape;
using cuda_detail::geometry_for;
using cuda_detail::hopper_block;

TEST(CudaGeometry, EveryCharacterizationGivesAValidWarpMultipleBlock) {
  for (auto c : {coalescing::deflt, coalescing::full, coalescing::medium, coalescing::scattered})
    for (auto a : {arith::deflt, arith::high, arith::medium, arith::low})
      for (auto s : {sharing::deflt, sharing::high, sharing::medium, sharing::low}) {
        const auto b = hopper_block(c, a, s);
        EXPECT_GE(b.threads(), 128U);
        EXPECT_LE(b.threads(), 1024U);
        EXPECT_EQ(b.threads() % 32, 0U);
        if (c != coalescing::scattered) {
          EXPECT_GE(b.cols, 32U) << "a warp reads one row segment";
        }
      }
}

TEST(CudaGeometry, DefaultsAreFullMediumLow) {
  const auto d = hopper_block(coalescing::deflt, arith::deflt, sharing::deflt);
  const auto e = hopper_block(coalescing::full, arith::medium, sharing::low);
  EXPECT_EQ(d.cols, e.cols);
  EXPECT_EQ(d.rows, e.rows);
}

TEST(CudaGeometry, TheLastDimensionRunsAlongHardwareX) {
  const Traits t{coalescing::full, arith::low, sharing::low};
  const auto g = geometry_for(t, Threads(1000, 3000));
  const auto b = hopper_block(coalescing::full, arith::low, sharing::low);
  EXPECT_EQ(g.block[0], b.cols);
  EXPECT_EQ(g.block[1], b.rows);
  const unsigned chunk = b.cols * g.items;  // each CUDA thread runs g.items logical threads along x
  EXPECT_EQ(g.grid[0], (3000 + chunk - 1) / chunk);
  // A striding grid (the table's choice for streaming bodies) is one wave of resident blocks,
  // whole rows of chunks, the rest looped over.
  EXPECT_TRUE(cuda_detail::hopper_coarsening(coalescing::full, arith::low, sharing::low).grid_stride);
  EXPECT_LE(g.grid[0] * g.grid[1], cuda_detail::DeviceLimits{}.multiprocessors * 2048 / (b.cols * b.rows));
  EXPECT_EQ(g.grid[2], 1U);
  const auto plain = geometry_for(t, Threads(1000, 3000), {}, /*coarsen=*/false);
  EXPECT_EQ(plain.grid[0], (3000 + b.cols - 1) / b.cols);
  EXPECT_EQ(plain.grid[1], (1000 + b.rows - 1) / b.rows);
}

TEST(CudaGeometry, OneDimensionalSpacesUseALineOfThreads) {
  const auto g = geometry_for(Traits{}, Threads(100000));
  EXPECT_EQ(g.block[1], 1U);
  EXPECT_EQ(g.block[0], hopper_block(coalescing::deflt, arith::deflt, sharing::deflt).threads());
  EXPECT_EQ(static_cast<std::int64_t>(g.grid[0]) * g.block[0] >= 100000, true);
}

TEST(CudaGeometry, NarrowSpacesMoveThreadsToRows) {
  const auto b = block_shape(Traits{coalescing::full, arith::low, sharing::low}, Threads(5000, 3));
  EXPECT_EQ(b.x, 4U);
  EXPECT_EQ(b.threads(), hopper_block(coalescing::full, arith::low, sharing::low).threads());
}

TEST(CudaGeometry, ThreeDimensionalSpaces) {
  const auto g = geometry_for(Traits{}, Threads(7, 11, 41));
  EXPECT_EQ(g.block[2], 1U);
  EXPECT_GE(static_cast<std::int64_t>(g.grid[0]) * g.block[0], 41);
  EXPECT_GE(static_cast<std::int64_t>(g.grid[1]) * g.block[1], 11);
  EXPECT_GE(static_cast<std::int64_t>(g.grid[2]) * g.block[2], 7);
}

TEST(CudaGeometry, FixedShapesAreRowsByColumns) {
  const auto g = geometry_for(Traits::fixed_block(16, 32), Threads(100, 200));
  EXPECT_EQ(g.block[0], 32U);  // columns along hardware x
  EXPECT_EQ(g.block[1], 16U);
  EXPECT_EQ(g.grid[0], 7U);
  EXPECT_EQ(g.grid[1], 7U);
  const auto g3 = geometry_for(Traits::fixed_block(2, 4, 8), Threads(10, 10, 10));
  EXPECT_EQ(g3.block[0], 8U);
  EXPECT_EQ(g3.block[1], 4U);
  EXPECT_EQ(g3.block[2], 2U);
}

TEST(CudaGeometry, GridsBeyondTheLimitsAreClampedAndLooped) {
  const auto g = geometry_for(Traits::fixed_block(1, 32), Threads(70001, 32));
  EXPECT_EQ(g.grid[1], 65535U);
  EXPECT_TRUE(cuda_detail::needs_grid_loop(g, Threads(70001, 32)));
  EXPECT_FALSE(
      cuda_detail::needs_grid_loop(geometry_for(Traits{}, Threads(1000, 1000), {}, false), Threads(1000, 1000)));
  EXPECT_TRUE(cuda_detail::needs_grid_loop(geometry_for(Traits{}, Threads(1000, 1000)), Threads(1000, 1000)))
      << "the table's striding grid loops";
}

TEST(CudaGeometry, StreamingKernelsAreCoarsenedComputeBoundOnesAreNot) {
  using cuda_detail::hopper_coarsening;
  EXPECT_EQ(hopper_coarsening(coalescing::full, arith::low, sharing::low).items, 2U);  // matadd
  EXPECT_TRUE(cuda_detail::hopper_coarsening(coalescing::full, arith::low, sharing::low).grid_stride);
  EXPECT_EQ(hopper_coarsening(coalescing::full, arith::medium, sharing::low).items, 1U);  // Black-Scholes
  EXPECT_TRUE(hopper_coarsening(coalescing::full, arith::medium, sharing::low).grid_stride);
  EXPECT_EQ(hopper_coarsening(coalescing::deflt, arith::deflt, sharing::deflt).items, 1U);
  EXPECT_EQ(hopper_coarsening(coalescing::medium, arith::medium, sharing::medium).items, 1U);  // stencils
  EXPECT_TRUE(hopper_coarsening(coalescing::medium, arith::medium, sharing::medium).grid_stride);
  EXPECT_FALSE(hopper_coarsening(coalescing::full, arith::high, sharing::low).grid_stride);
  EXPECT_EQ(hopper_coarsening(coalescing::full, arith::high, sharing::low).items, 1U);  // recurrence
  EXPECT_EQ(hopper_coarsening(coalescing::full, arith::low, sharing::high).items, 1U);  // matmul
  EXPECT_EQ(hopper_coarsening(coalescing::scattered, arith::low, sharing::low).items, 1U);
  for (auto c : {coalescing::deflt, coalescing::full, coalescing::medium, coalescing::scattered})
    for (auto a : {arith::deflt, arith::high, arith::medium, arith::low})
      for (auto s : {sharing::deflt, sharing::high, sharing::medium, sharing::low}) {
        const unsigned items = hopper_coarsening(c, a, s).items;
        EXPECT_TRUE(items == 1 || items == 2 || items == 4 || items == 8) << "a count the launch compiles";
      }
}

TEST(CudaGeometry, CoarseningIsFittedToTheSpace) {
  const Traits streaming{coalescing::full, arith::low, sharing::low};
  EXPECT_EQ(geometry_for(streaming, Threads(16384, 16384)).items, 2U);
  EXPECT_EQ(geometry_for(streaming, Threads(1000, 1000)).items, 2U);
  EXPECT_EQ(geometry_for(streaming, Threads(500, 500)).items, 1U) << "250k threads: 2 would leave the H200 half idle";
  EXPECT_EQ(geometry_for(streaming, Threads(100, 100)).items, 1U);
  EXPECT_EQ(geometry_for(streaming, Threads(1 << 22, 100)).items, 1U) << "100 columns: one block's 128 cover them";
  EXPECT_EQ(geometry_for(streaming, Threads(1 << 20, 300)).items, 2U);
  EXPECT_EQ(geometry_for(streaming, Threads(64, 64, 4096)).items, 1U) << "3-D spaces are not coarsened";
  EXPECT_EQ(geometry_for(Traits::fixed_block(1, 256), Threads(1 << 26)).items, 1U) << "fixed shapes are code";
  EXPECT_EQ(geometry_for(streaming, Threads(1 << 26), {}, /*coarsen=*/false).items, 1U) << "native variants";
  const cuda_detail::DeviceLimits small{{2147483647U, 65535U, 65535U}, 4, 2048, 32};  // a 4-SM device
  EXPECT_EQ(geometry_for(streaming, Threads(1000, 1000), small).items, 2U);
}

TEST(CudaGeometry, VectorRunsAreForStreamingBodiesOnLargeSpaces) {
  const Traits streaming{coalescing::full, arith::low, sharing::low};
  const auto big = geometry_for(streaming, Threads(16384, 16384));
  EXPECT_EQ(big.vector_items, cuda_detail::vector_items);
  EXPECT_EQ(big.items, 2U) << "the runs' fallback where the storage does not allow them";
  EXPECT_GE(std::int64_t{big.vector_grid[0]} * big.vector_block[0] * cuda_detail::vector_items, 16384)
      << "each row's runs covered by the grid's x";
  EXPECT_LT(std::int64_t{big.vector_grid[0]} * big.vector_block[0] * cuda_detail::vector_items,
            16384 + std::int64_t{big.vector_block[0]} * 4);
  const auto line = geometry_for(streaming, Threads(1 << 28));
  EXPECT_EQ(line.vector_items, cuda_detail::vector_items);
  EXPECT_GE(line.vector_grid[0], 1U);
  EXPECT_EQ(geometry_for(streaming, Threads(1000, 1000)).vector_items, 0U) << "4 per thread would leave SMs idle";
  EXPECT_EQ(geometry_for(streaming, Threads(1 << 22, 100)).vector_items, 0U) << "rows narrower than a block's run";
  EXPECT_EQ(geometry_for(Traits{coalescing::full, arith::medium, sharing::low}, Threads(1 << 28)).vector_items, 0U)
      << "Black-Scholes";
  EXPECT_EQ(geometry_for(Traits{coalescing::medium, arith::medium, sharing::medium}, Threads(8192, 8192)).vector_items,
            0U)
      << "stencils read their neighbours: no aligned runs to merge";
  EXPECT_EQ(geometry_for(Traits::fixed_block(1, 256), Threads(1 << 28)).vector_items, 0U);
  EXPECT_EQ(geometry_for(streaming, Threads(1 << 28), {}, /*coarsen=*/false).vector_items, 0U) << "native variants";
  EXPECT_EQ(geometry_for(streaming, Threads(1024, 1024, 256)).vector_items, 0U) << "3-D spaces";
}

TEST(CudaGeometry, StencilsThatStateTheirInsetTakeShiftedRuns) {
  const Traits stencil{coalescing::medium, arith::medium, sharing::medium};
  const auto jacobi = geometry_for(stencil.interior(1), Threads(4094, 4094));
  EXPECT_EQ(jacobi.vector_items, cuda_detail::vector_items) << "Jacobi's update at the benchmark's size";
  EXPECT_EQ(jacobi.vector_phase, 1U);
  EXPECT_EQ(jacobi.items, 1U) << "the table's coarsening where the storage does not allow the runs";
  EXPECT_EQ(geometry_for(stencil, Threads(4094, 4094)).vector_items, 0U) << "a run could not be lined up";
  EXPECT_EQ(geometry_for(Traits{coalescing::medium, arith::high, sharing::medium}.interior(1), Threads(8192, 8192))
                .vector_items,
            0U);
  EXPECT_EQ(
      geometry_for(Traits{coalescing::medium, arith::low, sharing::high}.interior(1), Threads(8192, 8192)).vector_items,
      0U);
  EXPECT_EQ(geometry_for(Traits{coalescing::scattered, arith::low, sharing::low}.interior(1), Threads(8192, 8192))
                .vector_items,
            0U);
  EXPECT_EQ(
      geometry_for(Traits{coalescing::full, arith::medium, sharing::low}.interior(1), Threads(1 << 28)).vector_items,
      0U)
      << "Black-Scholes stays as it is, inset or not";
  EXPECT_EQ(geometry_for(stencil.interior(1), Threads(1000, 1000)).vector_items, 0U) << "too small a space";
  // The phase: the inset modulo a run; streaming bodies may state one too.
  const Traits streaming{coalescing::full, arith::low, sharing::low};
  EXPECT_EQ(cuda_detail::vector_phase(streaming), 0U);
  EXPECT_EQ(cuda_detail::vector_phase(streaming.interior(0)), 0U);
  EXPECT_EQ(cuda_detail::vector_phase(streaming.interior(2)), 2U);
  EXPECT_EQ(cuda_detail::vector_phase(stencil.interior(5)), 1U);
  EXPECT_EQ(geometry_for(streaming.interior(3), Threads(1 << 28)).vector_phase, 3U);
  EXPECT_EQ(geometry_for(streaming, Threads(16384, 16384)).vector_phase, 0U);
}

TEST(CudaGeometry, ShiftedRunsCoverTheWidenedRows) {
  const Traits stencil{coalescing::medium, arith::medium, sharing::medium};
  for (const std::int64_t cols : {1024, 1023, 1025, 4094, 4096}) {
    for (const int inset : {1, 2, 3, 4}) {
      const auto g = geometry_for(stencil.interior(inset), Threads(8192, cols));
      ASSERT_EQ(g.vector_items, cuda_detail::vector_items) << cols;
      const std::int64_t run = std::int64_t{g.vector_block[0]} * cuda_detail::vector_items;  // a block's columns
      const std::int64_t covered = std::int64_t{g.vector_grid[0]} * run;
      EXPECT_GE(covered, cols + g.vector_phase) << cols << " columns, inset " << inset;
      EXPECT_LT(covered, cols + g.vector_phase + run) << cols << " columns, inset " << inset;
    }
  }
  const auto line = geometry_for(Traits{coalescing::full, arith::low, sharing::low}.interior(1), Threads(1 << 28));
  EXPECT_EQ(line.vector_phase, 1U);
  EXPECT_GE(line.vector_grid[0], 1U) << "1-D runs stride over the space";
}

// The vector runs' block is the table's (rows as wide as the space allows measured slower), and
// their grid covers every row of runs.
TEST(CudaGeometry, VectorRunsTakeTheTablesBlock) {
  const Traits stencil{coalescing::medium, arith::medium, sharing::medium},
      streaming{coalescing::full, arith::low, sharing::low};
  for (const auto& g :
       {geometry_for(stencil.interior(1), Threads(4094, 4094)), geometry_for(streaming, Threads(16384, 16384))}) {
    EXPECT_EQ(g.vector_block[0], g.block[0]);
    EXPECT_EQ(g.vector_block[1], g.block[1]);
    EXPECT_EQ(g.vector_block[2], g.block[2]);
  }
  const auto jacobi = geometry_for(stencil.interior(1), Threads(4094, 4094));
  EXPECT_EQ(jacobi.block[0], 64U);
  EXPECT_EQ(jacobi.block[1], 4U);
  EXPECT_GE(std::int64_t{jacobi.vector_grid[0]} * jacobi.vector_block[0] * cuda_detail::vector_items, 4095)
      << "every row of runs";
}

TEST(CudaGeometry, CoarsenedAndGridStrideGridsCoverTheSpace) {
  const cuda_detail::DeviceLimits lim;
  for (unsigned items : {1U, 2U, 4U, 8U}) {
    const Threads s1(100000007), s2(20001, 3001);
    const auto g1 = geometry_for(cuda_detail::HwShape{256, 1, 1}, s1, lim, {items, false});
    EXPECT_EQ(g1.items, items);
    EXPECT_GE(static_cast<std::int64_t>(g1.grid[0]) * 256 * items, s1.x());
    EXPECT_FALSE(cuda_detail::needs_grid_loop(g1, s1));
    const auto g2 = geometry_for(cuda_detail::HwShape{128, 2, 1}, s2, lim, {items, false});
    EXPECT_GE(static_cast<std::int64_t>(g2.grid[0]) * 128 * items, s2.y());
    EXPECT_GE(static_cast<std::int64_t>(g2.grid[1]) * 2, s2.x());
    // Grid-stride: one wave of resident blocks (2048 / 256 = 8 per SM), the rest looped.
    const auto w1 = geometry_for(cuda_detail::HwShape{256, 1, 1}, s1, lim, {items, true});
    EXPECT_EQ(w1.grid[0], lim.multiprocessors * 8);
    EXPECT_TRUE(cuda_detail::needs_grid_loop(w1, s1));
    const auto w2 = geometry_for(cuda_detail::HwShape{128, 2, 1}, s2, lim, {items, true});
    EXPECT_EQ(w2.grid[0], g2.grid[0]) << "whole rows of chunks";
    EXPECT_LE(static_cast<std::uint64_t>(w2.grid[0]) * w2.grid[1], lim.multiprocessors * 8ULL);
    EXPECT_GE(w2.grid[1], 1U);
  }
}

}  // namespace

TEST(CudaGeometry, SpacesThatOneBlockCoversGetABlockNoLargerThanThem) {
  const auto one = geometry_for(Traits{}, Threads(1));
  EXPECT_EQ(one.block[0] * one.block[1] * one.block[2], 32U) << "one warp for one thread";
  EXPECT_EQ(one.grid[0] * one.grid[1] * one.grid[2], 1U);
  const auto fifty = geometry_for(Traits{}, Threads(50));
  EXPECT_EQ(fifty.block[0], 64U);
  const auto small = geometry_for(Traits{}, Threads(3, 3));
  EXPECT_LE(small.block[0] * small.block[1], 32U * 3U);
  EXPECT_FALSE(cuda_detail::needs_grid_loop(small, Threads(3, 3)));
  // Larger spaces and fixed shapes keep the table's block.
  EXPECT_EQ(geometry_for(Traits{}, Threads(1 << 20)).block[0], 256U);
  const auto fixed = geometry_for(Traits::fixed_block(16, 16), Threads(2, 2));
  EXPECT_EQ(fixed.block[0] * fixed.block[1], 256U) << "fixed shapes are code";
}

// The flat 2-D kernels' row index: exact for every divisor and index they are given (i < 2^31),
// checked against the division on the indexes where an off-by-one would show (each multiple of
// the divisor and its neighbours, the ends of the range) and on a pseudo-random sample.
TEST(CudaGeometry, RowDividerIsExactBelowTwoToThe31) {
  const std::uint32_t top = static_cast<std::uint32_t>(cuda_detail::flat_space_limit);
  std::vector<std::uint32_t> divisors;
  for (std::uint32_t d = 1; d <= 4097; ++d) divisors.push_back(d);
  for (std::uint32_t k = 12; k < 31; ++k)
    for (const std::int64_t delta : {-1, 0, 1})
      divisors.push_back(static_cast<std::uint32_t>((std::int64_t{1} << k) + delta));
  for (const std::uint32_t d : {6'000U, 16'383U, 65'535U, 1'000'003U, 46'341U, top - 1, top}) divisors.push_back(d);
  std::uint64_t state = 88172645463325252ULL;  // xorshift64
  const auto next = [&] {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return static_cast<std::uint32_t>(state % (std::uint64_t{top} + 1));
  };
  for (const std::uint32_t d : divisors) {
    const cuda_detail::RowDivider div(d);
    const auto expect = [&](std::uint32_t i) { ASSERT_EQ(div.divide(i), i / d) << i << " / " << d; };
    for (std::uint32_t i = 0; i <= 200; ++i) expect(i);
    for (std::uint64_t k = 1; k <= 5; ++k)
      for (const std::uint64_t i : {k * d - 1, k * d, k * d + 1})
        if (i <= top) expect(static_cast<std::uint32_t>(i));
    for (const std::uint32_t i : {top, top - 1, top - d + 1, top / d * d, top / d * d - 1}) expect(i);
    for (int r = 0; r < 200; ++r) expect(next());
  }
}
