// How a kernel body runs as a CUDA grid (compiled by nvcc only; bound_kernel.hpp includes this
// when the launching file is compiled as CUDA and ctrl has its CUDA backend).
//
// Generic bodies: logical threads clipped to the index space. The hardware's fastest dimension
// (threadIdx.x) runs along the LAST index of the space, so that consecutive threads of a warp
// touch consecutive elements of a row-major tile: in 2-D, hardware (x, y) is logical (y, x); in
// 3-D, hardware (x, y, z) is logical (z, y, x). In 1-D and 2-D each CUDA thread runs
// geometry.items logical threads, blockDim.x apart along the last index (coarsening, see
// geometry.hpp); where the grid does not cover the space (clamped to the device's limits, or a
// grid-stride grid) each block loops over the rest.
//
// The coarsened kernels take each tile's device pointer a second time as a __restrict__ kernel
// parameter and rebuild the views from it: the compiler may then issue the loads of every item
// before the first store (In tiles become non-coherent loads, ld.global.nc). That is legal
// because tiles attached to a controller never overlap and internal tiles are allocations of
// their own; a launch whose tiles do overlap (one tile passed twice) runs the plain kernels.
//
// Vector runs (below): for streaming bodies and stencils on aligned storage, a CUDA thread runs
// consecutive logical threads instead, so that the compiler merges their accesses into 16-byte ones.
// Flat kernels (below): a 2-D launch over whole rows runs as one line of threads, its index
// arithmetic folded back to the thread's linear index.
//
// Native bodies (K::cuda) get a ctrl::CudaThread and are not clipped (they may __syncthreads).
// Every launch goes through cudaLaunchKernel and returns its status.
#pragma once
#include <ctrl/config.hpp>
#include <ctrl/cuda/context.hpp>
#include <ctrl/cuda/geometry.hpp>
#include <ctrl/cuda/thread.cuh>
#include <ctrl/detail/launch_body.hpp>
#include <ctrl/kernel.hpp>
#include <ctrl/threads.hpp>

#include <cstdint>
#include <type_traits>

namespace ctrl::cuda_detail {

// The index space as a kernel parameter: logical extents and, for 3-D spaces, how many blocks
// cover hardware y and z (larger than gridDim where the grid was clamped). 2-D kernels walk
// their rows up to the extent itself (row_walk), so they need no block count.
struct LaunchSpace {
  index_t ext[3];
  index_t blocks_y, blocks_z;
};

inline LaunchSpace make_space(const Threads& space, const dim3& block) {
  LaunchSpace s{{space.x(), space.y(), space.z()}, 1, 1};
  if (space.dims() == 3) {
    s.blocks_y = (space.y() + block.y - 1) / block.y;
    s.blocks_z = (space.x() + block.z - 1) / block.z;
  }
  return s;
}

// The restrict-qualified pointer a parameter adds to a coarsened kernel (value parameters: an
// unused null pointer, so that both packs have one entry per parameter).
template <class P>
struct kernel_ptr {
  using type = const void*;
};
template <class T, std::size_t N>
struct kernel_ptr<In<T, N>> {
  using type = const T* __restrict__;
};
template <class T, std::size_t N>
struct kernel_ptr<Out<T, N>> {
  using type = T* __restrict__;
};
template <class T, std::size_t N>
struct kernel_ptr<InOut<T, N>> {
  using type = T* __restrict__;
};
template <class P>
using kernel_ptr_t = typename kernel_ptr<P>::type;

template <class P>
CTRL_HOST_DEVICE CTRL_FORCEINLINE const void* data_of(const P&) {
  return nullptr;
}
template <class P>
requires is_tile_param_v<P> CTRL_HOST_DEVICE CTRL_FORCEINLINE auto data_of(const P& p) { return p.data(); }

// The view rebuilt on the restrict pointer (value parameters pass through).
template <class P>
__device__ CTRL_FORCEINLINE const P& rebind(const P& p, const void*) {
  return p;
}
template <class P, class Q>
requires is_tile_param_v<P> __device__ CTRL_FORCEINLINE P rebind(const P& p, Q* q) {
  index_t ext[P::rank];
#pragma unroll
  for (std::size_t d = 0; d < P::rank; ++d) ext[d] = p.extent(d);
  return P(q, ext);
}

// Prefetches a tile's element at a logical thread's own index (the tiles the body reads, whose
// rank is the space's: D), clamped into the tile (no branch per element). Level 1: into L1, 2: L2.
// Called with the plain views, never the ones rebuilt on the restrict pointers: a pointer handed
// to inline assembly could be written through, so the compiler would no longer treat the restrict
// pointer as read-only and its loads would lose ld.global.nc.
template <unsigned Level, std::size_t D, class P>
__device__ CTRL_FORCEINLINE void prefetch_at(const P& v, index_t x, index_t y) {
  if constexpr (is_tile_param_v<P>) {
    if constexpr (role_of_v<P> != Role::out && P::rank == D) {
      if (v.size() == 0) return;
      const index_t cx = x < v.extent(0) ? x : v.extent(0) - 1;
      const void* a;
      if constexpr (D == 1) {
        a = &v(cx);
      } else {
        a = &v(cx, y < v.extent(1) ? y : v.extent(1) - 1);
      }
      if constexpr (Level == 1)
        asm volatile("prefetch.global.L1 [%0];" ::"l"(a));
      else
        asm volatile("prefetch.global.L2 [%0];" ::"l"(a));
    }
  }
  (void)v, (void)x, (void)y;
}

// Each of a thread's N items' elements, before the items run.
template <unsigned N, std::size_t D, class... P>
__device__ CTRL_FORCEINLINE void prefetch_items(unsigned level, index_t x, index_t y, unsigned w, const P&... v) {
  if (level == 1) {
#pragma unroll
    for (unsigned i = 0; i < N; ++i) (prefetch_at<1, D>(v, D == 1 ? x + i * w : x, D == 1 ? 0 : y + i * w), ...);
  } else if (level == 2) {
#pragma unroll
    for (unsigned i = 0; i < N; ++i) (prefetch_at<2, D>(v, D == 1 ? x + i * w : x, D == 1 ? 0 : y + i * w), ...);
  }
}

// Whether the tile parameters' element ranges are pairwise disjoint (empty ones count as none).
template <class... P>
bool tiles_disjoint(const P&... p) {
  if constexpr (sizeof...(P) < 2) {
    return true;
  } else {
    struct Range {
      const char* begin;
      const char* end;
    };
    Range r[sizeof...(P)];
    std::size_t n = 0;
    auto add = [&](const auto& v) {
      if constexpr (is_tile_param_v<std::remove_cvref_t<decltype(v)>>) {
        const char* b = reinterpret_cast<const char*>(v.data());
        const auto bytes = static_cast<std::size_t>(v.size()) * sizeof(*v.data());
        if (b && bytes) r[n++] = {b, b + bytes};
      }
    };
    (add(p), ...);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (r[i].begin < r[j].end && r[j].begin < r[i].end) return false;
    return true;
  }
}

// ---- coarsened kernels: N logical threads per CUDA thread, restrict pointers --------------------

// The whole chunks and the ragged one run in separate loops: were the two paths branches of one
// loop body, the compiler would hoist their common first item (store included) above the branch,
// and the loads of the other items would wait for it.
template <unsigned N, class K, class... P>
__global__ void coarse_1d(const K k, const index_t n, const unsigned prefetch, P... p, kernel_ptr_t<P>... q) {
  const unsigned w = blockDim.x;
  const index_t step = static_cast<index_t>(gridDim.x) * w * N;
  index_t x0 = static_cast<index_t>(blockIdx.x) * w * N + threadIdx.x;
  for (; x0 + static_cast<index_t>((N - 1) * w) < n; x0 += step) {
    if (prefetch) prefetch_items<N, 1>(prefetch, x0, 0, w, p...);  // (the views, not q: see prefetch_at)
#pragma unroll
    for (unsigned i = 0; i < N; ++i) k(Thread{x0 + i * w, 0, 0}, rebind(p, q)...);
  }
  if (x0 < n) {  // at most one ragged chunk per thread: the space's last
    for (unsigned i = 0; i < N; ++i)
      if (x0 + i * w < n) k(Thread{x0 + i * w, 0, 0}, rebind(p, q)...);
  }
}

// A 2-D kernel's first row and the rows between a thread's visits: the blocks stride down the
// rows. 32-bit products (blockIdx.y < 2^16, blockDim.y <= 1024), and the row itself as the loop's
// variable: at 512 x 512, where each thread visits one row, the loop's own arithmetic was a third
// of the copy's instructions.
struct RowWalk {
  index_t first, step;
};
__device__ CTRL_FORCEINLINE RowWalk row_walk() {
  return RowWalk{static_cast<index_t>(blockIdx.y * blockDim.y + threadIdx.y),
                 static_cast<index_t>(gridDim.y * blockDim.y)};
}

template <unsigned N, class K, class... P>
__global__ void coarse_2d(const K k, const LaunchSpace s, const unsigned prefetch, P... p, kernel_ptr_t<P>... q) {
  const unsigned w = blockDim.x;
  const index_t y0 = static_cast<index_t>(blockIdx.x) * w * N + threadIdx.x;
  if (y0 >= s.ext[1]) return;
  const RowWalk r = row_walk();
  if (y0 + static_cast<index_t>((N - 1) * w) < s.ext[1]) {
    const auto row = [&](index_t x) {
      if constexpr (N > 1) {  // (one item a thread has no prefetch: fitted_coarsening)
        if (prefetch) prefetch_items<N, 2>(prefetch, x, y0, w, p...);
      }
#pragma unroll
      for (unsigned i = 0; i < N; ++i) k(Thread{x, y0 + i * w, 0}, rebind(p, q)...);
    };
    // The first row apart: the addresses' steps between rows are then computed only by threads
    // that visit a second row (none where the grid covers the space).
    if (r.first >= s.ext[0]) return;
    row(r.first);
    for (index_t x = r.first + r.step; x < s.ext[0]; x += r.step) row(x);
  } else {  // the chunk at the end of the rows
    for (index_t x = r.first; x < s.ext[0]; x += r.step)
      for (unsigned i = 0; i < N; ++i)
        if (y0 + i * w < s.ext[1]) k(Thread{x, y0 + i * w, 0}, rebind(p, q)...);
  }
}

// One logical thread per CUDA thread on a grid that covers the space (no row loop): small 2-D
// launches, where a thread's few instructions are the kernel's time. At 512 x 512 every warp
// scheduler issues 16 warps' instructions, so each instruction a thread saves is ~16 cycles of
// the kernel; without the row loop Jacobi's copy comes close to a hand-written 2-D kernel
// (bench/results/cuda-h200.md).
template <class K, class... P>
__global__ void cover_2d(const K k, const LaunchSpace s, P... p, kernel_ptr_t<P>... q) {
  const index_t y = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const auto x = static_cast<index_t>(blockIdx.y * blockDim.y + threadIdx.y);
  if (y < s.ext[1] && x < s.ext[0]) k(Thread{x, y, 0}, rebind(p, q)...);
}

// ---- flat kernels: 2-D spaces of whole rows, one logical thread per CUDA thread -----------------
//
// Where every rank-2 tile's rows are exactly the space's rows (extent(1) == the space's last
// extent), a tile's element (x, y) is at x * cols + y: the thread's linear index i. A 1-D grid
// then runs the space; x = i / cols (RowDivider), y = i - x * cols, and each rank-2 view is rebuilt
// with the very value `cols` that i was divided by, so the compiler folds the body's
// x * cols + y back to i and drops the division where the body uses x and y only to address its
// tiles. Jacobi's copy at 512 x 512 compiles to the twin's 1-D copy, instruction for instruction:
// 2-D index arithmetic (two block and thread indexes, two 64-bit products) was most of what that
// copy took beyond the twin's 1-D copy (bench/results/cuda-h200.md). The thread's
// x and y are those cover_2d gives, and the views' extents equal the tiles': the same accesses.
struct FlatSpace {
  index_t cols;         // the space's last extent
  std::uint32_t total;  // logical threads (at most flat_space_limit)
  RowDivider by_cols;   // i / cols
};

// rebind, with a rank-2 view's row length the divisor itself (equal: flat_rows checked it).
template <class P, class Q>
__device__ CTRL_FORCEINLINE decltype(auto) rebind_rows(const P& p, Q* q, index_t cols) {
  if constexpr (is_tile_param_v<P>) {
    if constexpr (P::rank == 2) {
      const index_t ext[2] = {p.extent(0), cols};
      return P(q, ext);
    } else {
      return rebind(p, q);
    }
  } else {
    return rebind(p, q);
  }
}

template <class K, class... P>
__global__ void flat_2d(const K k, const FlatSpace f, P... p, kernel_ptr_t<P>... q) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= f.total) return;
  const std::uint32_t x = (__umulhi(i, f.by_cols.magic) + i) >> f.by_cols.shift;
  const index_t y = static_cast<index_t>(i) - static_cast<index_t>(x) * f.cols;
  k(Thread{x, y, 0}, rebind_rows(p, q, f.cols)...);
}

// Whether a 2-D space takes the flat kernel: small enough for its 32-bit index, and every tile of
// rank 2 (at least one) has rows of exactly the space's length.
template <class... P>
bool flat_rows(const Threads& space, const P&... p) {
  if (space.dims() != 2 || space.y() <= 0 || space.x() > flat_space_limit / space.y()) return false;
  bool any = false, whole = true;
  [[maybe_unused]] const auto check = [&](const auto& v) {  // (unused for a launch of no parameters)
    if constexpr (is_tile_param_v<std::remove_cvref_t<decltype(v)>>) {
      if constexpr (std::remove_cvref_t<decltype(v)>::rank == 2) {
        any = true;
        whole = whole && v.extent(1) == space.y();
      }
    }
  };
  (check(p), ...);
  return any && whole;
}

// ---- vector kernels: runs of V consecutive logical threads, 16-byte accesses --------------------
//
// The body stays per element; what changes is which logical threads a CUDA thread runs: a run of
// V = vector_items consecutive ones along the last index (a warp's runs contiguous), instead of
// single ones blockDim.x apart. The views are rebuilt on the restrict pointers together with what
// the launch checked of the storage (vector_ready): every tile's first element is 16-byte aligned
// and the rows of a tile of rank 2 or more hold a whole number of its row unit (16 bytes' worth of
// elements, at most V: 4 floats, 2 doubles). With the run's first index a multiple of V, the
// compiler can then prove that the accesses a body makes at its own index form aligned 16-byte
// vectors, and merges them (ld/st.global.v4.f32, v2.f64: LDG.E.128 / STG.E.128). Accesses it
// cannot prove aligned (a neighbour's element, a shifted index) stay scalar loads of the same
// lines: correct, only not merged. The last run of a row or of a 1-D space may be ragged: its
// elements run one by one (in 2-D, after every row's whole runs, spread over the grid).
//
// Phase P (the kernel's Traits::interior, geometry.hpp's vector_phase): a stencil launched over
// the interior of its tiles works on the element at its index + P, so the runs start P logical
// threads before each multiple of V (thread t's run at t*V - P); its own elements then begin on a
// multiple of V, and the first run of each row (or of a 1-D space) is ragged at its start. P is a
// template parameter, so that the compiler sees the run's element index as t*V + i. A phase that
// does not match what a body accesses only loses the merging: every logical thread still runs
// once, and the only facts given to the compiler (aligned16, the rows' unit) are the storage's.

// The elements a tile's rows must be a multiple of for every row to start 16-byte aligned: 16 bytes'
// worth, at most V; 1 where its elements are 16 bytes or more, or of a size that is no power of two
// (nothing to merge, or no run would stay aligned).
template <class P>
CTRL_HOST_DEVICE constexpr index_t row_unit() {
  if constexpr (is_tile_param_v<P>) {
    constexpr std::size_t s = sizeof(typename P::element_type);
    if constexpr ((s & (s - 1)) != 0 || s >= 16)
      return 1;
    else
      return 16 / s < vector_items ? static_cast<index_t>(16 / s) : index_t{vector_items};
  } else {
    return 1;
  }
}

// Whether the parameters have a tile whose accesses runs could merge.
template <class... P>
constexpr bool any_vector_tile() {
  return ((row_unit<P>() > 1) || ...);
}

// Whether every tile's storage allows the runs: first element 16-byte aligned, rows (the last
// extent, for ranks of 2 or more) a whole number of its row unit, so that every row starts aligned.
template <class... P>
bool vector_ready(const P&... p) {
  auto ready = [](const auto& v) {
    using Q = std::remove_cvref_t<decltype(v)>;
    if constexpr (is_tile_param_v<Q>) {
      if (reinterpret_cast<std::uintptr_t>(v.data()) % 16 != 0) return false;
      if constexpr (Q::rank >= 2) return v.extent(Q::rank - 1) % row_unit<Q>() == 0;
    }
    return true;
  };
  return (ready(p) && ...);
}

// rebind, plus the rows' fact vector_ready checked, for the compiler (the pointers' alignment comes
// with them: aligned16).
template <class P>
__device__ CTRL_FORCEINLINE const P& rebind_vector(const P& p, const void*) {
  return p;
}
template <class P, class Q>
requires is_tile_param_v<P> __device__ CTRL_FORCEINLINE P rebind_vector(const P& p, Q* q) {
  const P v = rebind(p, q);
  if constexpr (P::rank >= 2) {
    constexpr auto unit = static_cast<std::uint64_t>(row_unit<P>());
    __builtin_assume((static_cast<std::uint64_t>(v.extent(P::rank - 1)) & (unit - 1)) == 0);
  }
  return v;
}

// A pointer the compiler may take as 16-byte aligned. Taken once per run and handed to all its
// items: each call makes a new pointer value, and the compiler merges only accesses it sees made
// through the same one. The loads of In tiles then lose ld.global.nc (LDG.E.128, not
// LDG.E.128.CONSTANT): nvcc 13 takes a const __restrict__ parameter as read-only only while its
// every use is a load or an address, and no form of the alignment fact is one (checked in the PTX:
// __builtin_assume_aligned, __builtin_assume on the address, an address masked to 16 bytes all
// lose .nc, the last the merging too), while __ldg's scalar loads, though .nc, are never merged.
// A per-element body thus gets 16-byte loads or read-only ones, not both; the 16-byte access is
// what pays (the hand kernel with coherent loads is no slower: bench/results/cuda-h200.md).
template <class Q>
__device__ CTRL_FORCEINLINE Q* aligned16(Q* q) {
  __builtin_assume((reinterpret_cast<std::uintptr_t>(q) & 15) == 0);
  return q;
}

// One thread's run of V consecutive logical threads from x0 (row: the 2-D index before them).
template <unsigned V, std::size_t D, class K, class... P>
__device__ CTRL_FORCEINLINE void vector_run(const K& k, index_t row, index_t x0, const P&... p, kernel_ptr_t<P>... q) {
#pragma unroll
  for (unsigned i = 0; i < V; ++i) k(D == 1 ? Thread{x0 + i, 0, 0} : Thread{row, x0 + i, 0}, rebind_vector(p, q)...);
}

// The same element by element, those before 0 or at or past `end` left out: the first run of a
// shifted phase and the last, ragged run of a 1-D space. Called from a loop of its own, for the
// reason coarse_1d gives.
template <unsigned V, class K, class... P>
__device__ CTRL_FORCEINLINE void vector_ragged(const K& k, index_t x0, index_t end, const P&... p,
                                               kernel_ptr_t<P>... q) {
  for (unsigned i = 0; i < V; ++i)
    if (x0 + i >= 0 && x0 + i < end) k(Thread{x0 + i, 0, 0}, rebind_vector(p, q)...);
}

// A run's first index is written as a product with V (less the phase): the equal sum of products,
// followed by a bounds test, lost the merged accesses (nvcc 13, checked in the PTX).
template <unsigned V, unsigned Phase, class K, class... P>
__global__ void vector_1d(const K k, const index_t n, P... p, kernel_ptr_t<P>... q) {
  const index_t step = static_cast<index_t>(gridDim.x) * blockDim.x * V;
  index_t x0 = (static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x) * V - Phase;
  if (Phase != 0 && x0 < 0) {  // the first thread's run begins before the space
    vector_ragged<V, K, P...>(k, x0, n, p..., q...);
    x0 += step;
  }
  for (; x0 + V <= n; x0 += step) vector_run<V, 1, K, P...>(k, 0, x0, p..., aligned16(q)...);
  if (x0 < n) vector_ragged<V, K, P...>(k, x0, n, p..., q...);
}

// The ragged elements of a row: the head [0, head_end) that a shifted phase leaves before the
// first whole run, and the tail [tail_begin, E) after the last.
struct RaggedRow {
  index_t head_end, tail_begin;
  CTRL_HOST_DEVICE index_t count(index_t e) const { return head_end + (e - tail_begin); }
  CTRL_HOST_DEVICE index_t at(index_t j) const { return j < head_end ? j : tail_begin + (j - head_end); }
};
template <unsigned V, unsigned Phase>
CTRL_HOST_DEVICE constexpr RaggedRow ragged_row(index_t e) {
  const index_t head = Phase == 0 ? 0 : (static_cast<index_t>(V - Phase) < e ? static_cast<index_t>(V - Phase) : e);
  const index_t tail = (e + Phase) / V * V - static_cast<index_t>(Phase);
  return RaggedRow{head, tail > head ? tail : head};
}

// The whole runs of each row first, then the ragged elements of every row, spread over all the
// grid's threads. A thread whose run was ragged used to run it element by element beside the
// whole runs of its warp: the warp ran both paths for every row it visited, and the blocks at the
// rows' ends, taking as many rows as the others, finished last (Jacobi's update at 4096²: 0.88 of
// the hand-written kernel, against 1.0 for the copy, whose rows have no ragged run).
template <unsigned V, unsigned Phase, class K, class... P>
__global__ void vector_2d(const K k, const LaunchSpace s, P... p, kernel_ptr_t<P>... q) {
  const RaggedRow rr = ragged_row<V, Phase>(s.ext[1]);
  const index_t y0 = (static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x) * V - Phase;
  if (y0 >= rr.head_end && y0 + V <= rr.tail_begin) {
    const RowWalk r = row_walk();
    for (index_t x = r.first; x < s.ext[0]; x += r.step) vector_run<V, 2, K, P...>(k, x, y0, p..., aligned16(q)...);
  }
  const index_t per_row = rr.count(s.ext[1]);
  if (per_row == 0) return;
  const index_t threads = static_cast<index_t>(gridDim.x) * gridDim.y * blockDim.x * blockDim.y;
  const index_t total = s.ext[0] * per_row;
  index_t i = ((static_cast<index_t>(blockIdx.y) * gridDim.x + blockIdx.x) * blockDim.y + threadIdx.y) * blockDim.x +
              threadIdx.x;
  for (; i < total; i += threads) {
    const index_t row = i / per_row;
    k(Thread{row, rr.at(i - row * per_row), 0}, rebind_vector(p, q)...);
  }
}

// ---- plain kernels: any geometry, no restrict (tiles that overlap; 3-D spaces) -----------------

template <class K, class... P>
__global__ void generic_1d(const K k, const index_t n, const unsigned items, P... p) {
  const unsigned w = blockDim.x;
  const index_t step = static_cast<index_t>(gridDim.x) * w * items;
  for (index_t x0 = static_cast<index_t>(blockIdx.x) * w * items + threadIdx.x; x0 < n; x0 += step)
    for (unsigned i = 0; i < items; ++i)
      if (x0 + i * w < n) k(Thread{x0 + i * w, 0, 0}, p...);
}

template <class K, class... P>
__global__ void generic_2d(const K k, const LaunchSpace s, const unsigned items, P... p) {
  const unsigned w = blockDim.x;
  const index_t y0 = static_cast<index_t>(blockIdx.x) * w * items + threadIdx.x;
  if (y0 >= s.ext[1]) return;
  const RowWalk r = row_walk();
  for (index_t x = r.first; x < s.ext[0]; x += r.step) {
    for (unsigned i = 0; i < items; ++i)
      if (y0 + i * w < s.ext[1]) k(Thread{x, y0 + i * w, 0}, p...);
  }
}

template <class K, class... P>
__global__ void generic_3d(const K k, const LaunchSpace s, P... p) {
  const index_t z = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (z >= s.ext[2]) return;
  for (index_t by = blockIdx.y; by < s.blocks_y; by += gridDim.y) {
    const index_t y = by * blockDim.y + threadIdx.y;
    if (y >= s.ext[1]) continue;
    for (index_t bz = blockIdx.z; bz < s.blocks_z; bz += gridDim.z) {
      const index_t x = bz * blockDim.z + threadIdx.z;
      if (x < s.ext[0]) k(Thread{x, y, z}, p...);
    }
  }
}

template <class K, class... P>
__global__ void native_grid(const K k, const LaunchSpace s, const int dims, P... p) {
  CudaThread t;
  t.thread_idx = threadIdx;
  t.block_idx = blockIdx;
  t.block_dim = blockDim;
  t.grid_dim = gridDim;
  t.ext[0] = s.ext[0];
  t.ext[1] = s.ext[1];
  t.ext[2] = s.ext[2];
  t.dims = dims;
  const index_t hx = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const index_t hy = static_cast<index_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  const index_t hz = static_cast<index_t>(blockIdx.z) * blockDim.z + threadIdx.z;
  if (dims == 1) {
    t.x = hx, t.y = 0, t.z = 0;
  } else if (dims == 2) {
    t.x = hy, t.y = hx, t.z = 0;
  } else {
    t.x = hz, t.y = hy, t.z = hx;
  }
  k.cuda(static_cast<const CudaThread&>(t), p...);
}

// cudaLaunchKernel with the arguments' addresses; their types must be the kernel's parameters'.
template <class... Params, class... A>
cudaError_t launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream, const A&... a) {
  static_assert((std::is_same_v<std::remove_cv_t<Params>, std::remove_cv_t<A>> && ...),
                "launch_kernel: argument types differ from the kernel's parameters");
  void* args[] = {const_cast<void*>(static_cast<const void*>(&a))...};
  return cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, args, 0, stream);
}

// Whether a generic launch of K with geometry g runs the vector kernels, given tiles that do not
// overlap in a 1-D or 2-D space (what launch checks first): the characterization allows them, a
// tile's accesses could merge, the geometry has their grid for K's phase, and the storage is aligned.
template <class K, class... P>
bool takes_vector_runs(const detail::CudaGeometry& g, const P&... p) {
  if constexpr (vector_traits(detail::traits_of<K>()) && any_vector_tile<P...>()) {
    return g.vector_items == vector_items && g.vector_phase == vector_phase(detail::traits_of<K>()) &&
           vector_ready(p...);
  } else {
    (void)g, ((void)p, ...);
    return false;
  }
}

// The vector kernels on the geometry's vector grid and block (only where takes_vector_runs).
template <class K, class... P>
cudaError_t launch_vector(cudaStream_t stream, const Threads& space, const detail::CudaGeometry& g, const K& kernel,
                          const P&... p) {
  constexpr unsigned phase = vector_phase(detail::traits_of<K>());
  const dim3 grid(g.vector_grid[0], g.vector_grid[1], g.vector_grid[2]);
  const dim3 block(g.vector_block[0], g.vector_block[1], g.vector_block[2]);
  if (space.dims() == 1) {
    const index_t n = space.x();
    return launch_kernel(&vector_1d<vector_items, phase, K, P...>, grid, block, stream, kernel, n, p..., data_of(p)...);
  }
  return launch_kernel(&vector_2d<vector_items, phase, K, P...>, grid, block, stream, kernel, make_space(space, block),
                       p..., data_of(p)...);
}

template <unsigned N, class K, class... P>
cudaError_t launch_coarse(dim3 grid, dim3 block, cudaStream_t stream, const Threads& space,
                          const detail::CudaGeometry& g, const K& kernel, const P&... p) {
  const unsigned prefetch = g.prefetch;
  if (space.dims() == 1) {
    const index_t n = space.x();
    return launch_kernel(&coarse_1d<N, K, P...>, grid, block, stream, kernel, n, prefetch, p..., data_of(p)...);
  }
  if constexpr (N == 1) {
    if (!needs_grid_loop(g, space)) {
      if (flat_rows(space, p...)) {
        const auto total = static_cast<std::uint32_t>(space.x() * space.y());
        const unsigned threads = block.x * block.y * block.z;
        const FlatSpace f{space.y(), total, RowDivider(static_cast<std::uint32_t>(space.y()))};
        return launch_kernel(&flat_2d<K, P...>, dim3((total + threads - 1) / threads), dim3(threads), stream, kernel, f,
                             p..., data_of(p)...);
      }
      return launch_kernel(&cover_2d<K, P...>, grid, block, stream, kernel, make_space(space, block), p...,
                           data_of(p)...);
    }
  }
  return launch_kernel(&coarse_2d<N, K, P...>, grid, block, stream, kernel, make_space(space, block), prefetch, p...,
                       data_of(p)...);
}

// Enqueues the body on ctx.stream() and returns the launch's status. v is generic or native; the
// geometry comes from the kernel's characterization (include/ctrl/cuda/geometry.hpp).
template <class K, class... P>
cudaError_t launch(Variant v, CudaContext& ctx, const detail::CudaGeometry& g, const Threads& space, const K& kernel,
                   const P&... p) {
  const dim3 grid(g.grid[0], g.grid[1], g.grid[2]), block(g.block[0], g.block[1], g.block[2]);
  cudaStream_t stream = ctx.stream();
  if constexpr (detail::has_cuda_native<K>) {
    if (v == Variant::native) {
      const int dims = space.dims();
      return launch_kernel(&native_grid<K, P...>, grid, block, stream, kernel, make_space(space, block), dims, p...);
    }
  }
  if constexpr (detail::has_generic<K>) {
    if (space.dims() <= 2 && tiles_disjoint(p...)) {
      if constexpr (vector_traits(detail::traits_of<K>()) && any_vector_tile<P...>()) {
        if (takes_vector_runs<K>(g, p...)) return launch_vector(stream, space, g, kernel, p...);
      }
      switch (g.items) {
        case 1:
          return launch_coarse<1>(grid, block, stream, space, g, kernel, p...);
        case 2:
          return launch_coarse<2>(grid, block, stream, space, g, kernel, p...);
        case 4:
          return launch_coarse<4>(grid, block, stream, space, g, kernel, p...);
        case 8:
          return launch_coarse<8>(grid, block, stream, space, g, kernel, p...);
        default:
          break;  // other counts run the plain kernels
      }
    }
    const unsigned items = g.items;
    switch (space.dims()) {
      case 1: {
        const index_t n = space.x();
        return launch_kernel(&generic_1d<K, P...>, grid, block, stream, kernel, n, items, p...);
      }
      case 2:
        return launch_kernel(&generic_2d<K, P...>, grid, block, stream, kernel, make_space(space, block), items, p...);
      default:
        return launch_kernel(&generic_3d<K, P...>, grid, block, stream, kernel, make_space(space, block), p...);
    }
  }
  return cudaErrorInvalidDeviceFunction;  // no generic or native body: choose_variant rules this out
}

}  // namespace ctrl::cuda_detail
