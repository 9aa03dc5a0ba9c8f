// The CUDA launch geometry of a kernel: its characterization (the Controllers paper §3.1.2, §4.4)
// looked up in a table for the device's architecture, fitted to the index space.
//
// The paper's tables (after Torres, Gonzalez-Escribano and Llanos) stop at Kepler. This one is
// for Hopper (sm_90, the H200) and was checked with bench/cuda/bench_geometry.cu, which times
// every power-of-two block shape of 32 to 1024 threads for each case-study kernel; the reasoning
// behind each row is in docs/cuda.md, the figures in bench/results/cuda-h200.md.
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

#include <bit>
#include <cstdint>

namespace ctrl::cuda_detail {

struct BlockCols {
  unsigned cols = 0, rows = 0;
  constexpr unsigned threads() const { return cols * rows; }
};

// Hopper (sm_90). Defaults: coalescing full, arithmetic medium, sharing low.
// The arithmetic's intensity decides coarsening (hopper_coarsening), not the block's shape.
constexpr BlockCols hopper_block(coalescing c, arith /*a*/, sharing s) {
  if (c == coalescing::deflt) c = coalescing::full;
  if (s == sharing::deflt) s = sharing::low;
  // Scattered accesses: no warp-wide row to keep whole; a square block keeps the lines a block
  // touches close together in both dimensions (L1/L2 reuse).
  if (c == coalescing::scattered) return {16, 16};
  // Threads of a block that share data: more rows per block let a line of the last dimension
  // fetched by one warp serve the warps below it from L1 (sharing high: matmul's b); a warp-wide
  // row keeps every load a full 128-byte line.
  if (s == sharing::high) return {32, 8};
  // Some sharing: a few rows.
  if (s == sharing::medium) return {64, 4};
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
      case 1:
        b = {f[0], 1, 1};
        break;
      case 2:
        b = {f[1], f[0], 1};
        break;
      default:
        b = {f[2], f[1], f[0]};
    }
    return b;
  }
  const BlockCols e = hopper_block(t.coal, t.ops, t.share);
  const unsigned total = e.threads();
  switch (space.dims()) {
    case 1:
      b = {total, 1, 1};
      break;
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

// What the grid and the coarsening are fitted to (defaults: the H200; the backend reads its device's).
struct DeviceLimits {
  unsigned max_grid[3] = {2147483647U, 65535U, 65535U};
  unsigned multiprocessors = 132, threads_per_multiprocessor = 2048, blocks_per_multiprocessor = 32;
  constexpr index_t resident_threads() const { return index_t{multiprocessors} * threads_per_multiprocessor; }
};

// Coarsening of generic bodies: each CUDA thread runs `items` logical threads along the space's
// last index, blockDim.x apart (every load still coalesced). With the tiles' pointers known not
// to alias (generic_launch.cuh), the compiler issues the loads of all items before the first
// store: `items` times the bytes in flight per thread, which is what a streaming kernel lacks at
// one element per thread (HBM latency x bandwidth is ~25 KB per SM on the H200; 2048 threads
// loading 8 bytes each hold 16 KB). grid_stride: the grid is one wave of resident blocks and
// each block strides over the rest, instead of one block per chunk of the space.
//
// prefetch: before running its items, a thread prefetches each item's element of every tile it
// reads (at the item's own index, where the tile's rank is the space's): for bodies whose items
// the compiler cannot overlap (a branch inside, as in the accurate logf and division of
// Black-Scholes), so that the memory of all items is in flight at once all the same.
enum class Prefetch : unsigned { none = 0, l1 = 1, l2 = 2 };
struct Coarsening {
  unsigned items = 1;  // 1, 2, 4 or 8 (the counts generic_launch.cuh compiles)
  bool grid_stride = false;
  Prefetch prefetch = Prefetch::none;
};
inline constexpr unsigned max_items = 8;

// Hopper (sm_90), fitted to the sweep of bench/cuda/bench_coarsening.cu on an H200 (figures:
// bench/results/cuda-h200.md): a grid of one wave of resident blocks striding over the space
// beats one block per chunk for every streaming kernel; more items per thread help only the
// simplest bodies (jacobi's copy, with 2) and hurt the ones that call the math library
// (Black-Scholes), whose branches keep the items' loads apart, and prefetching never paid for
// itself. So: streaming bodies with low arithmetic, 2 items on a striding grid; other streaming
// and stencil bodies, 1 item on a striding grid; compute-bound kernels, threads that share data
// within a block (matmul) and scattered access keep the plain grid.
constexpr Coarsening hopper_coarsening(coalescing c, arith a, sharing s) {
  if (c == coalescing::deflt) c = coalescing::full;
  if (a == arith::deflt) a = arith::medium;
  if (s == sharing::deflt) s = sharing::low;
  if (c == coalescing::scattered || a == arith::high || s == sharing::high) return {1, false, Prefetch::none};
  if (s == sharing::low && c == coalescing::full && a == arith::low) return {2, true, Prefetch::none};
  return {1, true, Prefetch::none};
}

// Vector-wide runs (generic_launch.cuh): a thread runs vector_items = 4 consecutive logical
// threads, which the compiler turns into 16-byte loads and stores where the storage is aligned
// (checked at the launch). For the bodies whose accesses are at their own index and do nothing
// else worth overlapping: coalescing full, arithmetic low, sharing low (matadd, Jacobi's copy).
// And for stencils (coalescing medium, arithmetic and sharing not high) that state where their own
// element lies (Traits::interior, Jacobi's update): their accesses at their own element's row and
// column merge like a streaming body's once the runs line up with it (vector_phase), and their
// neighbours' loads (x-1, x+1) stay scalar loads of the lines the run reads anyway; without the
// statement a run could not be lined up, and unmerged runs cost a stencil more than they give.
// Where the storage does not allow them, the launch runs the table's coarsening instead.
// Black-Scholes (arithmetic medium, coalescing full) keeps its one item: the math library's
// branches keep the compiler from merging the loads of consecutive items, and more items cost it
// bandwidth (above).
inline constexpr unsigned vector_items = 4;
constexpr bool hopper_vector(coalescing c, arith a, sharing s, int inset = -1) {
  if (c == coalescing::deflt) c = coalescing::full;
  if (a == arith::deflt) a = arith::medium;
  if (s == sharing::deflt) s = sharing::low;
  if (c == coalescing::full) return a == arith::low && s == sharing::low;
  return c == coalescing::medium && inset >= 0 && a != arith::high && s != sharing::high;
}
constexpr bool vector_traits(const Traits& t) {
  return !t.block.fixed() && hopper_vector(t.coal, t.ops, t.share, t.inset);
}
// How many logical threads before each multiple of vector_items a run starts: the inset, so that a
// run's own elements (index + inset) start on a multiple of vector_items, hence on 16 bytes.
constexpr unsigned vector_phase(const Traits& t) {
  return t.inset > 0 ? static_cast<unsigned>(t.inset) % vector_items : 0U;
}

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

// The grid for a block over the space, `co.items` logical threads per CUDA thread along hardware
// x (1-D and 2-D spaces; 3-D spaces are not coarsened). Dimensions beyond the device's grid
// limits are clamped, and a grid-stride grid to one wave of resident blocks: generic kernels loop
// over the rest; native ones cannot (see needs_grid_loop).
constexpr detail::CudaGeometry geometry_for(const HwShape& b, const Threads& space, const DeviceLimits& lim = {},
                                            const Coarsening& co = {}) {
  detail::CudaGeometry g;
  g.block[0] = b.x;
  g.block[1] = b.y;
  g.block[2] = b.z;
  g.items = space.dims() <= 2 && co.items > 1 ? (co.items > max_items ? max_items : co.items) : 1;
  g.prefetch = g.items > 1 ? static_cast<unsigned>(co.prefetch) : 0;
  const HwExtents hw = hardware_extents(space);
  for (int d = 0; d < 3; ++d) {  // no 64-bit division where one block covers the dimension (launch path)
    const index_t per_block = index_t{g.block[d]} * (d == 0 ? g.items : 1);
    const index_t blocks = hw.e[d] <= per_block ? 1 : (hw.e[d] + per_block - 1) / per_block;
    g.grid[d] = static_cast<unsigned>(blocks > lim.max_grid[d] ? lim.max_grid[d] : (blocks < 1 ? 1 : blocks));
  }
  if (co.grid_stride && space.dims() <= 2) {
    const unsigned per_sm = lim.threads_per_multiprocessor / b.threads();
    const unsigned wave =
        lim.multiprocessors *
        (per_sm < lim.blocks_per_multiprocessor ? (per_sm ? per_sm : 1) : lim.blocks_per_multiprocessor);
    const int d = space.dims() == 1 ? 0 : 1;  // 2-D: whole rows of chunks, the blocks stride down the rows
    const unsigned others = d == 0 ? 1 : g.grid[0];
    const unsigned cap = wave / others > 0 ? wave / others : 1;
    if (g.grid[d] > cap) g.grid[d] = cap;
  }
  return g;
}

// The table's coarsening fitted to a space: halved while the chunk of a block is wider than the
// space's last dimension, or while fewer CUDA threads than the device holds would remain (small
// launches keep their parallelism).
constexpr Coarsening fitted_coarsening(Coarsening co, const HwShape& b, const Threads& space,
                                       const DeviceLimits& lim = {}) {
  if (space.dims() > 2) return {};
  const HwExtents hw = hardware_extents(space);
  while (co.items > 1) {
    const bool too_wide = index_t{b.x} * co.items > hw.e[0];
    const bool too_few = space.size() < lim.resident_threads() * co.items;  // (no division on the launch path)
    if (!too_wide && !too_few) break;
    co.items /= 2;
  }
  if (co.items == 1) co.prefetch = Prefetch::none;
  return co;
}

// A space that one block covers gets a block no larger than the space (x in whole warps): a tiny
// launch (the empty kernel, a 3x3 update) then schedules one warp instead of eight, which is
// what a launch costs on the GPU's side when launches come back to back.
constexpr HwShape fitted_block(HwShape b, const Threads& space) {
  const HwExtents hw = hardware_extents(space);
  if (hw.e[0] > b.x || hw.e[1] > b.y || hw.e[2] > b.z) return b;
  const auto warps = static_cast<unsigned>((hw.e[0] + 31) / 32);
  b.x = warps * 32 < b.x ? warps * 32 : b.x;
  b.y = static_cast<unsigned>(hw.e[1] < 1 ? 1 : hw.e[1]);
  b.z = static_cast<unsigned>(hw.e[2] < 1 ? 1 : hw.e[2]);
  return b;
}

// The block of the vector runs: the table's. Rows of runs as wide as the space allows (a warp's
// loads along one row, as a hand-written float4 kernel's) are slower: on the table's 64x4 a
// stencil's three rows share the L1 across a block's rows, and a streaming body gains nothing
// from the wider rows (bench_cuda's vector rows; figures: bench/results/cuda-h200.md).
constexpr HwShape vector_block(const HwShape& b, const Threads& /*space*/, unsigned /*phase*/) { return b; }

// Gives g the vector runs (vector_items per thread, runs `phase` logical threads before each
// multiple of vector_items), their block and their grid over the space: along the last index,
// `phase` more logical threads, the first thread's run beginning before the space.
constexpr void set_vector_grid(detail::CudaGeometry& g, const HwShape& b, const Threads& space, unsigned phase,
                               const DeviceLimits& lim, bool grid_stride) {
  const Threads wide = space.dims() == 1 ? Threads(space.x() + phase) : Threads(space.x(), space.y() + phase);
  const HwShape vb = vector_block(b, space, phase);
  const detail::CudaGeometry vg = geometry_for(vb, wide, lim, Coarsening{vector_items, grid_stride, Prefetch::none});
  g.vector_items = vector_items;
  g.vector_phase = phase;
  for (int d = 0; d < 3; ++d) g.vector_grid[d] = vg.grid[d], g.vector_block[d] = vg.block[d];
}

// The table's geometry for a kernel: its block, and its coarsening unless `coarsen` is false
// (native variants see the hardware: one logical thread per CUDA thread) or the shape is fixed.
constexpr detail::CudaGeometry geometry_for(const Traits& t, const Threads& space, const DeviceLimits& lim = {},
                                            bool coarsen = true) {
  HwShape b = block_shape(t, space);
  if (!t.block.fixed()) b = fitted_block(b, space);
  Coarsening co{};
  if (coarsen && !t.block.fixed()) co = fitted_coarsening(hopper_coarsening(t.coal, t.ops, t.share), b, space, lim);
  detail::CudaGeometry g = geometry_for(b, space, lim, co);
  // The vector runs' grid, used where the tiles allow them: one wave of resident blocks striding
  // down the rows, as the streaming kernels' table grid is. For Jacobi's update (a stencil, whose
  // table grid covers every row) the striding grid measured faster than the full one, though in
  // rounds whose fixed order favoured the later launches (bench/results/cuda-h200.md).
  if (coarsen && vector_traits(t)) {
    const Coarsening vco = fitted_coarsening(Coarsening{vector_items, true, Prefetch::none}, b, space, lim);
    if (vco.items == vector_items) set_vector_grid(g, b, space, vector_phase(t), lim, true);
  }
  return g;
}

// Whether the grid does not cover the space at once (clamped to the device's limits, or a
// grid-stride grid).
constexpr bool needs_grid_loop(const detail::CudaGeometry& g, const Threads& space) {
  const HwExtents hw = hardware_extents(space);
  for (int d = 0; d < 3; ++d)
    if (static_cast<index_t>(g.grid[d]) * g.block[d] * (d == 0 ? g.items : 1) < hw.e[d]) return true;
  return false;
}

// Division by a row length without a divide instruction, for the flat 2-D kernels
// (generic_launch.cuh): the quotient is (umulhi(i, magic) + i) >> shift, exact for every
// i < 2^31 and 1 <= d < 2^31 (Granlund and Montgomery, "Division by invariant integers using
// multiplication": shift = ceil(log2 d), magic = floor(2^32 (2^shift - d) / d) + 1 < 2^32; the
// sum stays below 2^32 because i < 2^31). The device computes umulhi with __umulhi.
struct RowDivider {
  std::uint32_t magic = 1, shift = 0;
  constexpr RowDivider() = default;
  constexpr explicit RowDivider(std::uint32_t d) : shift(static_cast<std::uint32_t>(std::bit_width(d - 1))) {
    magic = static_cast<std::uint32_t>((std::uint64_t{1} << 32) * ((std::uint64_t{1} << shift) - d) / d + 1);
  }
  // The host's quotient, the device's formula.
  constexpr std::uint32_t divide(std::uint32_t i) const {
    const auto high = static_cast<std::uint32_t>((std::uint64_t{i} * magic) >> 32);
    return (high + i) >> shift;
  }
};

// The largest index space the flat 2-D kernels take: their thread index and the divider's sum
// are 32-bit.
constexpr index_t flat_space_limit = (index_t{1} << 31) - 1;

}  // namespace ctrl::cuda_detail
