// The CUDA controller: data movement (exact bytes each way), index meaning and clipping,
// sub-tiles, several controllers. Skipped, counted as skipped, where no GPU answers.
#include "cuda_test_support.hpp"
#include "test_kernels.hpp"
#include "jacobi/jacobi_kernels.hpp"
#include "matadd/matadd_kernels.hpp"

#include <ctrl/cuda.hpp>
#include <ctrl/wrap.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

namespace ctrl::detail {
std::size_t pinned_host_bytes();  // src/cuda/host_pinning.hpp
}

namespace {

using ctrl::Controller;
using ctrl::Threads;
using ctrl::Tile;
using ctrl::TransferStats;
using cudatest::fill_random;

TransferStats moved(std::uint64_t in, std::uint64_t copies_in, std::uint64_t out, std::uint64_t copies_out) {
  return TransferStats{in, copies_in, out, copies_out};
}

TEST(CudaController, MatAddIsRightAndMovesExactBytes) {
  CTRL_REQUIRE_GPU();
  const ctrl::index_t rows = 1001, cols = 777;
  Tile<float, 2> a({rows, cols}, "a"), b({rows, cols}, "b"), c({rows, cols}, "c");
  fill_random(a, 1);
  fill_random(b, 2);
  c.fill(std::nanf(""));
  Controller gpu{ctrl::cuda(0)};
  EXPECT_FALSE(gpu.shares_host_memory());
  gpu.attach(a, b, c);
  gpu.launch<apps::MatAdd>(Threads(rows, cols), c, a, b);
  gpu.detach(a, b, c);
  for (ctrl::index_t i = 0; i < rows; ++i)
    for (ctrl::index_t j = 0; j < cols; ++j) ASSERT_EQ(c(i, j), a(i, j) + b(i, j)) << i << "," << j;
  EXPECT_EQ(gpu.transfers(), moved(2 * a.bytes(), 2, c.bytes(), 1));
}

// the Controllers paper §3.2.1: the matrix goes in before the first launch and comes back at detach;
// the 100 iterations in between move nothing, and the internal copy never crosses the bus.
TEST(CudaController, JacobiHundredIterationsCopiesTheMatrixInOnceAndOutOnce) {
  CTRL_REQUIRE_GPU();
  const ctrl::index_t rows = 515, cols = 389;
  Tile<float, 2> m({rows, cols}, "m"), copy({rows, cols}, ctrl::shape_only, "m_copy");
  fill_random(m, 3, 0.0F, 100.0F);
  std::vector<float> ref(m.elements().begin(), m.elements().end()), tmp(ref.size());
  Controller gpu{ctrl::cuda(0)};
  gpu.create_internal(copy);
  gpu.attach(m);
  for (int it = 0; it < 100; ++it) {
    gpu.launch<apps::JacobiCopy>(Threads(rows, cols), copy, m);
    gpu.launch<apps::JacobiUpdate>(Threads(rows - 2, cols - 2), m, copy);
  }
  gpu.detach(m);
  gpu.destroy_internal(copy);
  for (int it = 0; it < 100; ++it) {
    tmp = ref;
    for (ctrl::index_t i = 1; i < rows - 1; ++i)
      for (ctrl::index_t j = 1; j < cols - 1; ++j)
        ref[i * cols + j] =
            (tmp[(i + 1) * cols + j] + tmp[(i - 1) * cols + j] + tmp[i * cols + j + 1] + tmp[i * cols + j - 1]) * 0.25F;
  }
  for (ctrl::index_t i = 0; i < rows * cols; ++i) ASSERT_NEAR(m[i], ref[i], 1e-4F * (1.0F + std::fabs(ref[i]))) << i;
  EXPECT_EQ(gpu.transfers(), moved(m.bytes(), 1, m.bytes(), 1));
}

TEST(CudaController, InOnlyTileIsNeverCopiedBack) {
  CTRL_REQUIRE_GPU();
  Tile<float, 1> src({300000}, "src"), dst({300000}, "dst");
  fill_random(src, 4);
  const std::vector<float> before(src.elements().begin(), src.elements().end());
  Controller gpu{ctrl::cuda(0)};
  gpu.attach(src, dst);
  gpu.launch<cudatest::Copy1>(Threads(300000), dst, src);
  gpu.launch<cudatest::Copy1>(Threads(300000), dst, src);  // src is valid there: no second copy
  gpu.detach(src, dst);
  EXPECT_EQ(gpu.transfers(), moved(src.bytes(), 1, dst.bytes(), 1));
  for (ctrl::index_t i = 0; i < 300000; ++i) {
    ASSERT_EQ(src[i], before[static_cast<std::size_t>(i)]);
    ASSERT_EQ(dst[i], src[i]);
  }
}

TEST(CudaController, OutOnlyTileIsNeverCopiedIn) {
  CTRL_REQUIRE_GPU();
  Tile<float, 1> o({5000}, "o");
  o.fill(-1.0F);
  Controller gpu{ctrl::cuda(0)};
  gpu.attach(o);
  gpu.launch<cudatest::Fill1>(Threads(5000), o, 2.5F);
  gpu.detach(o);
  EXPECT_EQ(gpu.transfers(), moved(0, 0, o.bytes(), 1));
  for (float v : o.elements()) ASSERT_EQ(v, 2.5F);
}

TEST(CudaController, InternalTileNeverCrossesTheBus) {
  CTRL_REQUIRE_GPU();
  const ctrl::index_t n = 1 << 20;
  Tile<float, 1> scratch({n}, ctrl::shape_only, "scratch"), out({n}, "out");
  Controller gpu{ctrl::cuda(0)};
  gpu.create_internal(scratch);
  gpu.attach(out);
  gpu.launch<cudatest::Fill1>(Threads(n), scratch, 7.0F);
  gpu.launch<cudatest::Copy1>(Threads(n), out, scratch);
  gpu.detach(out);
  gpu.destroy_internal(scratch);
  EXPECT_EQ(gpu.transfers(), moved(0, 0, out.bytes(), 1));
  for (float v : out.elements()) ASSERT_EQ(v, 7.0F);
}

TEST(CudaController, ReadOnlyLaunchOnAnEmptySpaceStillBringsItsInputs) {
  CTRL_REQUIRE_GPU();
  Tile<float, 1> src({1000}, "src"), dst({1000}, "dst");
  fill_random(src, 5);
  Controller gpu{ctrl::cuda(0)};
  gpu.attach(src, dst);
  gpu.launch<cudatest::Copy1>(Threads(0), dst, src);  // runs no thread; the roles still decide
  gpu.wait();
  EXPECT_EQ(gpu.transfers(), moved(src.bytes(), 1, 0, 0));
  gpu.detach(src, dst);
  EXPECT_EQ(gpu.transfers(), moved(src.bytes(), 1, dst.bytes(), 1));
}

// Row-major meaning on the GPU as on CPU cores, and threads outside the space clipped: the space
// is smaller than the tile and no dimension is a multiple of a block's.
TEST(CudaController, IndexMeaningAndClippingIn1D2D3D) {
  CTRL_REQUIRE_GPU();
  Controller gpu{ctrl::cuda(0)};
  {
    Tile<std::int64_t, 1> o({1000}, "o1");
    o.fill(-1);
    gpu.attach(o);
    gpu.launch<cudatest::Where1>(Threads(997), o);
    gpu.detach(o);
    for (ctrl::index_t i = 0; i < 1000; ++i) ASSERT_EQ(o(i), i < 997 ? i : -1) << i;
  }
  {
    Tile<std::int64_t, 2> o({70, 301}, "o2");
    o.fill(-1);
    gpu.attach(o);
    gpu.launch<cudatest::Where2>(Threads(67, 299), o);
    gpu.detach(o);
    for (ctrl::index_t i = 0; i < 70; ++i)
      for (ctrl::index_t j = 0; j < 301; ++j)
        ASSERT_EQ(o(i, j), i < 67 && j < 299 ? i * 1000000 + j : -1) << i << "," << j;
  }
  {
    Tile<std::int64_t, 3> o({9, 13, 45}, "o3");
    o.fill(-1);
    gpu.attach(o);
    gpu.launch<cudatest::Where3>(Threads(7, 11, 41), o);
    gpu.detach(o);
    for (ctrl::index_t i = 0; i < 9; ++i)
      for (ctrl::index_t j = 0; j < 13; ++j)
        for (ctrl::index_t k = 0; k < 45; ++k)
          ASSERT_EQ(o(i, j, k), i < 7 && j < 11 && k < 41 ? (i * 1000 + j) * 1000 + k : -1)
              << i << "," << j << "," << k;
  }
  {  // a 2-D space of 3 columns: the table's block is narrowed, not left mostly idle
    Tile<std::int64_t, 2> o({5000, 3}, "narrow");
    o.fill(-1);
    gpu.attach(o);
    gpu.launch<cudatest::Where2>(Threads(5000, 3), o);
    gpu.detach(o);
    for (ctrl::index_t i = 0; i < 5000; ++i)
      for (ctrl::index_t j = 0; j < 3; ++j) ASSERT_EQ(o(i, j), i * 1000000 + j);
  }
}

TEST(CudaController, SpacesLargerThanOneGridLoop) {
  CTRL_REQUIRE_GPU();
  const ctrl::index_t rows = 70001, cols = 32;  // 70001 blocks of 1x32 > 65535 (grid y)
  Tile<std::int64_t, 2> o({rows, cols}, "tall");
  o.fill(-1);
  Controller gpu{ctrl::cuda(0)};
  gpu.attach(o);
  gpu.launch<cudatest::Where2OneRow>(Threads(rows, cols), o);
  gpu.detach(o);
  for (ctrl::index_t i = 0; i < rows; ++i)
    for (ctrl::index_t j = 0; j < cols; ++j) ASSERT_EQ(o(i, j), i * 1000000 + j) << i << "," << j;
}

// Validity is kept per sub-tile: row blocks of one matrix go to a GPU and to CPU cores at once.
TEST(CudaController, SubTilesOfOneMatrixOnGpuAndCpu) {
  CTRL_REQUIRE_GPU();
  const ctrl::index_t rows = 1000, cols = 256;
  Tile<float, 2> m({rows, cols}, "m");
  fill_random(m, 6);
  const std::vector<float> before(m.elements().begin(), m.elements().end());
  Tile<float, 2> top = m.rows(0, 611), bottom = m.rows(611, rows);
  Controller gpu{ctrl::cuda(0)}, cpu{ctrl::cpu_count(1)};
  gpu.attach(top);
  cpu.attach(bottom);
  gpu.launch<cudatest::Scale2>(Threads(611, cols), top, 2.0F);
  cpu.launch<cudatest::Scale2>(Threads(rows - 611, cols), bottom, 3.0F);
  gpu.launch<cudatest::Scale2>(Threads(611, cols), top, 5.0F);
  gpu.detach(top);
  cpu.detach(bottom);
  for (ctrl::index_t i = 0; i < rows; ++i)
    for (ctrl::index_t j = 0; j < cols; ++j)
      ASSERT_EQ(m(i, j), before[static_cast<std::size_t>(i * cols + j)] * (i < 611 ? 10.0F : 3.0F)) << i;
  EXPECT_EQ(gpu.transfers(), moved(top.bytes(), 1, top.bytes(), 1));
  EXPECT_EQ(cpu.transfers(), moved(0, 0, 0, 0));
}

TEST(CudaController, TileMovesBetweenControllers) {
  CTRL_REQUIRE_GPU();
  Tile<float, 2> v({300, 500}, "v");
  v.fill(1.0F);
  Controller gpu0{ctrl::cuda(0)}, gpu1{ctrl::cuda(0)}, cpu{ctrl::cpu_count(1)};
  gpu0.attach(v);
  gpu0.launch<cudatest::Scale2>(Threads(300, 500), v, 2.0F);
  gpu0.detach(v);
  cpu.attach(v);
  cpu.launch<cudatest::Scale2>(Threads(300, 500), v, 3.0F);
  cpu.detach(v);
  gpu1.attach(v);
  gpu1.launch<cudatest::Scale2>(Threads(300, 500), v, 5.0F);
  gpu1.detach(v);
  for (float e : v.elements()) ASSERT_EQ(e, 30.0F);
  EXPECT_EQ(gpu0.transfers(), moved(v.bytes(), 1, v.bytes(), 1));
  EXPECT_EQ(gpu1.transfers(), moved(v.bytes(), 1, v.bytes(), 1));
}

TEST(CudaController, DestructorBringsAttachedTilesHome) {
  CTRL_REQUIRE_GPU();
  Tile<float, 2> v({64, 64}, "v");
  v.fill(1.5F);
  {
    Controller gpu{ctrl::cuda(0)};
    gpu.attach(v);
    gpu.launch<cudatest::Scale2>(Threads(64, 64), v, 2.0F);
  }
  for (float e : v.elements()) ASSERT_EQ(e, 3.0F);
}

TEST(CudaController, ManyLaunchesKeepTheirOrder) {
  CTRL_REQUIRE_GPU();
  Tile<float, 2> v({100, 1000}, "v");
  v.fill(1.0F);
  Controller gpu{ctrl::cuda(0)};
  gpu.attach(v);
  for (int i = 0; i < 200; ++i) gpu.launch<cudatest::Scale2>(Threads(100, 1000), v, i % 2 ? 0.5F : 2.0F);
  gpu.launch<cudatest::Scale2>(Threads(100, 1000), v, 3.0F);
  gpu.detach(v);
  for (float e : v.elements()) ASSERT_EQ(e, 3.0F);
}

// Host tiles are page-locked for transfers once, and stay so until their storage is freed.
TEST(CudaController, HostPagesArePinnedOnceForTheStoragesLife) {
  CTRL_REQUIRE_GPU();
  const std::size_t base = ctrl::detail::pinned_host_bytes();
  {
    const ctrl::index_t n = 4 << 20;  // 16 MiB each
    Tile<float, 1> src({n}, "src"), dst({n}, "dst");
    fill_random(src, 7);
    Controller gpu{ctrl::cuda(0)};
    for (int round = 0; round < 3; ++round) {
      gpu.attach(src, dst);
      gpu.launch<cudatest::Copy1>(Threads(n), dst, src);
      gpu.detach(src, dst);
      const std::size_t pinned = ctrl::detail::pinned_host_bytes() - base;
      EXPECT_GE(pinned, src.bytes() + dst.bytes() - 4 * 4096) << "round " << round;
      EXPECT_LE(pinned, src.bytes() + dst.bytes()) << "round " << round;
    }
    for (ctrl::index_t i = 0; i < n; ++i) ASSERT_EQ(dst[i], src[i]);
    EXPECT_EQ(gpu.transfers(), moved(3 * src.bytes(), 3, 3 * dst.bytes(), 3));
  }
  EXPECT_EQ(ctrl::detail::pinned_host_bytes(), base);
}

// Wrapped user memory (ctrl::wrap) is page-locked as an owned tile is, kept until the tile's last
// handle goes, never freed; a vector found to have moved is unregistered at once.
TEST(CudaController, WrappedVectorsArePinnedForTheTilesLifeAndLetGo) {
  CTRL_REQUIRE_GPU();
  const std::size_t base = ctrl::detail::pinned_host_bytes();
  const std::size_t n = std::size_t{4} << 20;  // 16 MiB
  std::vector<float> user(n), out(n, 0.0F);
  for (std::size_t i = 0; i < n; ++i) user[i] = static_cast<float>(i % 1000) * 0.5F;
  Controller gpu{ctrl::cuda(0)};
  {
    const std::vector<float>& in = user;
    auto src = ctrl::wrap(in, "src");
    auto dst = ctrl::wrap(out, "dst");
    for (int round = 0; round < 2; ++round) {
      gpu.attach(src, dst);
      gpu.launch<cudatest::Copy1>(Threads(static_cast<ctrl::index_t>(n)), dst, src);
      gpu.detach(src, dst);
      const std::size_t pinned = ctrl::detail::pinned_host_bytes() - base;
      EXPECT_GE(pinned, src.bytes() + dst.bytes() - 4 * 4096) << "round " << round;  // all but partial pages
      EXPECT_LE(pinned, src.bytes() + dst.bytes()) << "round " << round;
    }
    ASSERT_EQ(out, user);
    EXPECT_EQ(gpu.transfers(), moved(2 * src.bytes(), 2, 2 * dst.bytes(), 2));
    out.reserve(2 * n);  // moves: the next attach refuses it and lets its old pages go
    EXPECT_THROW(gpu.attach(dst), ctrl::UsageError);
    EXPECT_LE(ctrl::detail::pinned_host_bytes() - base, src.bytes());
  }
  EXPECT_EQ(ctrl::detail::pinned_host_bytes(), base);
  EXPECT_EQ(out, user);  // the vectors are still the user's
}

}  // namespace
