// The Hopper geometry table and its fitting to index spaces (host code: runs everywhere).
#include <ctrl/cuda/geometry.hpp>

#include <gtest/gtest.h>

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
  EXPECT_EQ(g.grid[0], (3000 + b.cols - 1) / b.cols);
  EXPECT_EQ(g.grid[1], (1000 + b.rows - 1) / b.rows);
  EXPECT_EQ(g.grid[2], 1U);
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
  EXPECT_FALSE(cuda_detail::needs_grid_loop(geometry_for(Traits{}, Threads(1000, 1000)), Threads(1000, 1000)));
}

}  // namespace
