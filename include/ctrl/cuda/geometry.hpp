// The CUDA launch geometry of a kernel: its characterization (controllers.txt §3.1.2, §4.4)
// looked up in a table for the device's architecture, fitted to the index space.
//
// The paper's tables (after Torres, Gonzalez-Escribano and Llanos) stop at Kepler. This one is
// for Hopper (sm_90, the H200) and was checked with bench/cuda/bench_geometry.cu, which times
// every power-of-two block shape of 32 to 1024 threads for each case-study kernel; the figures
// and the reasoning behind each row are in docs/cuda.md.
//
// Shapes are given as (columns x rows): columns is the number of threads along the LAST index of
// the space (hardware threadIdx.x, consecutive elements), rows along the one before it. A 1-D
// space uses columns*rows threads in a line; a 3-D space puts the rows along y and 1 along x.
//
// Host-only and constexpr: the backend, the tests and the benchmarks share it.
#pragma once
#include <ctrl/detail/launch_body.hpp>
#include <ctrl/threads.hpp>
#include <ctrl/traits.hpp>

#include <cstdint>

namespace ctrl::cuda_detail {

struct BlockCols {
  unsigned cols = 0, rows = 0;
  constexpr unsigned threads() const { return cols * rows; }
};

// Hopper (sm_90). Defaults: coalescing full, arithmetic medium, sharing low.
constexpr BlockCols hopper_block(coalescing c, arith a, sharing s) {
  if (c == coalescing::deflt) c = coalescing::full;
  if (a == arith::deflt) a = arith::medium;
  if (s == sharing::deflt) s = sharing::low;
  // Scattered accesses: no warp-wide row to keep whole; a square block keeps the lines a block
  // touches close together in both dimensions (L1/L2 reuse).
  if (c == coalescing::scattered) return {16, 16};
  // Threads of a block that share data: more rows per block let a line of the last dimension
  // fetched by one warp serve the warps below it from L1 (sharing high: matmul's b); a warp-wide
  // row keeps every load a full 128-byte line.
  if (s == sharing::high) return {32, 8};
  if (s == sharing::medium) return a == arith::high ? BlockCols{64, 4} : BlockCols{64, 4};
  // Little sharing: streaming. Wide rows; medium coalescing (misaligned neighbours) gains from a
  // few rows that reuse the neighbouring lines.
  if (c == coalescing::medium) return {64, 4};
  return {128, 2};
}

constexpr unsigned pow2_at_least(index_t n, unsigned cap) {
  unsigned p = 1;
  while (p < cap && static_cast<index_t>(p) < n) p *= 2;
  return p;
}

// A block shape in hardware order (x fastest = the last index of the space).
struct HwShape {
  unsigned x = 1, y = 1, z = 1;
  constexpr unsigned threads() const { return x * y * z; }
};

// The block for a characterization and an index space, before the grid is computed: the table's
// shape, narrowed where the space is smaller than the block (the threads go to the other
// dimension, so that small last dimensions do not leave most of a block idle).
constexpr HwShape block_shape(const Traits& t, const Threads& space) {
  HwShape b;
  if (t.block.fixed()) {
    const unsigned f[3] = {t.block.x, t.block.y ? t.block.y : 1, t.block.z ? t.block.z : 1};
    switch (space.dims()) {
      case 1: b = {f[0], 1, 1}; break;
      case 2: b = {f[1], f[0], 1}; break;
      default: b = {f[2], f[1], f[0]};
    }
    return b;
  }
  const BlockCols e = hopper_block(t.coal, t.ops, t.share);
  const unsigned total = e.threads();
  switch (space.dims()) {
    case 1: b = {total, 1, 1}; break;
    case 2: {
      const unsigned cols = pow2_at_least(space.y(), e.cols);
      b = {cols, total / cols, 1};
      break;
    }
    default: {
      const unsigned cols = pow2_at_least(space.z(), e.cols);
      b = {cols, total / cols, 1};
    }
  }
  return b;
}

struct DeviceLimits {
  unsigned max_grid[3] = {2147483647U, 65535U, 65535U};
};

constexpr unsigned blocks_for(index_t n, unsigned per_block) {
  const index_t b = (n + per_block - 1) / per_block;
  return static_cast<unsigned>(b);
}

// The space's extents in hardware order (x fastest): the last logical index runs along x.
struct HwExtents {
  index_t e[3];
};
constexpr HwExtents hardware_extents(const Threads& space) {
  if (space.dims() == 2) return {{space.y(), space.x(), 1}};
  if (space.dims() == 3) return {{space.z(), space.y(), space.x()}};
  return {{space.x(), 1, 1}};
}

// The grid for a block over the space; dimensions beyond the device's grid limits are clamped
// (generic kernels loop over the rest; native ones cannot: see needs_grid_loop).
constexpr detail::CudaGeometry geometry_for(const HwShape& b, const Threads& space, const DeviceLimits& lim = {}) {
  detail::CudaGeometry g;
  g.block[0] = b.x;
  g.block[1] = b.y;
  g.block[2] = b.z;
  const HwExtents hw = hardware_extents(space);
  for (int d = 0; d < 3; ++d) {
    const index_t blocks = (hw.e[d] + g.block[d] - 1) / g.block[d];
    g.grid[d] = static_cast<unsigned>(blocks > lim.max_grid[d] ? lim.max_grid[d] : (blocks < 1 ? 1 : blocks));
  }
  return g;
}

constexpr detail::CudaGeometry geometry_for(const Traits& t, const Threads& space, const DeviceLimits& lim = {}) {
  return geometry_for(block_shape(t, space), space, lim);
}

// Whether the grid had to be clamped (the space is larger than one grid can cover).
constexpr bool needs_grid_loop(const detail::CudaGeometry& g, const Threads& space) {
  const HwExtents hw = hardware_extents(space);
  for (int d = 0; d < 3; ++d)
    if (static_cast<index_t>(g.grid[d]) * g.block[d] < hw.e[d]) return true;
  return false;
}

}  // namespace ctrl::cuda_detail
