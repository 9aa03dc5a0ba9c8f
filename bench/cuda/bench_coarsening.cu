// The coarsening sweep: streaming case-study kernels launched through the controller's own launch
// path (ctrl::cuda_detail::launch: restrict pointers, coarsened kernels) on resident data, with 1,
// 2, 4 and 8 logical threads per CUDA thread, one block per chunk of the space ("block") or one
// wave of resident blocks striding over it ("grid"), and with the geometry table's choice
// ("table", what a controller launch does). Each is reported as its effective bandwidth (bytes the
// kernel must move / time) over a device-to-device copy measured in the same run: the goal is
// >= 0.90 for matadd and Black-Scholes (their goal rows, bench_bandwidth.cu, go through a
// controller). "block_pfl1"/"block_pfl2": block-per-chunk, each thread first prefetching its items'
// elements into L1 / L2. Counters: ratio_<mode>_i<N> (ratio_block_i4, ratio_grid_i8,
// ratio_block_pfl1_i4, ...), ratio_table, table_items, table_grid_stride, table_prefetch.
#include "bench_support.hpp"

#include "blackscholes/blackscholes_kernels.hpp"
#include "jacobi/jacobi_kernels.hpp"
#include "matadd/matadd_kernels.hpp"

#include <ctrl/cuda.hpp>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

namespace cd = ctrl::cuda_detail;

template <class... A>
std::string strf(const char* f, A... a) {
  char buf[1024];
  std::snprintf(buf, sizeof buf, f, a...);
  return buf;
}

// Milliseconds per launch (events; median of 7 after one warm-up).
template <class Launch>
double launch_ms(cudaStream_t s, const Launch& launch) {
  cudaEvent_t e0, e1;
  BENCH_CUDA(cudaEventCreate(&e0));
  BENCH_CUDA(cudaEventCreate(&e1));
  BENCH_CUDA(launch());
  std::vector<double> t;
  for (int i = 0; i < 7; ++i) {
    BENCH_CUDA(cudaEventRecord(e0, s));
    BENCH_CUDA(launch());
    BENCH_CUDA(cudaEventRecord(e1, s));
    BENCH_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(ms);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return cudabench::median(t);
}

// `bytes`: what one launch must read and write at the least.
template <class K, class... P>
void sweep(benchmark::State& state, const char* what, const ctrl::Threads& space, double bytes, const P&... params) {
  cudabench::StreamContext ctx;
  const cd::DeviceLimits lim = cudabench::device_limits();
  const ctrl::Traits traits = ctrl::detail::traits_of<K>();
  const cd::HwShape shape = cd::block_shape(traits, space);
  const double copy = cudabench::d2d_bandwidth();
  auto ratio_of = [&](const ctrl::detail::CudaGeometry& g) {
    const double ms =
        launch_ms(ctx.stream(), [&] { return cd::launch<K>(ctrl::Variant::generic, ctx, g, space, K{}, params...); });
    return bytes / (ms * 1e-3) / copy;
  };
  const ctrl::detail::CudaGeometry table = cd::geometry_for(traits, space, lim);
  const cd::Coarsening table_co =
      cd::fitted_coarsening(cd::hopper_coarsening(traits.coal, traits.ops, traits.share), shape, space, lim);
  std::string line = strf("coarsening %s (%s, block %ux%u): effective bandwidth / D2D copy:", what, space.str().c_str(),
                          shape.x, shape.y);
  double table_ratio = 0;
  struct Mode {
    const char* name;
    bool grid_stride;
    cd::Prefetch prefetch;
  };
  const Mode modes[] = {{"block", false, cd::Prefetch::none},
                        {"grid", true, cd::Prefetch::none},
                        {"block_pfl1", false, cd::Prefetch::l1},
                        {"block_pfl2", false, cd::Prefetch::l2}};
  for (auto _ : state) {
    for (const Mode& m : modes) {
      line += strf(" | %s", m.name);
      for (const unsigned items : {1U, 2U, 4U, 8U}) {
        if (items == 1 && m.prefetch != cd::Prefetch::none) continue;  // one item: nothing to overlap
        const double r =
            ratio_of(cd::geometry_for(shape, space, lim, cd::Coarsening{items, m.grid_stride, m.prefetch}));
        state.counters[strf("ratio_%s_i%u", m.name, items)] = r;
        line += strf(" %u: %.3f", items, r);
      }
    }
    table_ratio = ratio_of(table);
    state.SetIterationTime(bytes / (table_ratio * copy));
  }
  const bool table_stride = table_co.grid_stride;
  line += strf(" | table (%u items%s%s): %.3f", table.items, table_stride ? ", grid-stride" : "",
               table.prefetch == 1   ? ", prefetch L1"
               : table.prefetch == 2 ? ", prefetch L2"
                                     : "",
               table_ratio);
  std::printf("%s\n", line.c_str());
  cudabench::note(line);
  state.counters["ratio_table"] = table_ratio;
  state.counters["table_items"] = table.items;
  state.counters["table_grid_stride"] = table_stride ? 1 : 0;
  state.counters["table_prefetch"] = table.prefetch;
  state.counters["d2d_GBps"] = copy / 1e9;
}

CUDA_BENCH(BM_CoarseningMatAdd) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t n = 16384;
  cudabench::DeviceArray<float> a(n * n), b(n * n), c(n * n);
  BENCH_CUDA(cudaMemset(a.p, 0x3f, a.n * 4));
  BENCH_CUDA(cudaMemset(b.p, 0x3e, b.n * 4));
  const ctrl::index_t ext[2] = {n, n};
  sweep<apps::MatAdd>(state, "matadd", ctrl::Threads(n, n), 3.0 * 4 * n * n, ctrl::Out<float, 2>(c.p, ext),
                      ctrl::In<float, 2>(a.p, ext), ctrl::In<float, 2>(b.p, ext));
}

CUDA_BENCH(BM_CoarseningBlackScholes) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t n = ctrl::index_t{1} << 27;
  cudabench::BlackScholesArrays bs(static_cast<std::size_t>(n));
  const ctrl::index_t ext[1] = {n};
  sweep<apps::BlackScholes>(state, "blackscholes", ctrl::Threads(n), 5.0 * 4 * n, ctrl::Out<float>(bs.call.p, ext),
                            ctrl::Out<float>(bs.put.p, ext), ctrl::In<float>(bs.price.p, ext),
                            ctrl::In<float>(bs.strike.p, ext), ctrl::In<float>(bs.years.p, ext), 0.02F, 0.30F);
}

// Jacobi's two kernels at the twin's size (bytes: the matrix read once and written once).
CUDA_BENCH(BM_CoarseningJacobiCopy) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t n = 4096;
  cudabench::DeviceArray<float> m(n * n), copy(n * n);
  BENCH_CUDA(cudaMemset(m.p, 0x3f, m.n * 4));
  const ctrl::index_t ext[2] = {n, n};
  sweep<apps::JacobiCopy>(state, "jacobi_copy", ctrl::Threads(n, n), 2.0 * 4 * n * n, ctrl::Out<float, 2>(copy.p, ext),
                          ctrl::In<float, 2>(m.p, ext));
}

CUDA_BENCH(BM_CoarseningJacobiUpdate) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t n = 4096;
  cudabench::DeviceArray<float> m(n * n), copy(n * n);
  BENCH_CUDA(cudaMemset(copy.p, 0x3f, copy.n * 4));
  const ctrl::index_t ext[2] = {n, n};
  sweep<apps::JacobiUpdate>(state, "jacobi_update", ctrl::Threads(n - 2, n - 2), 2.0 * 4 * n * n,
                            ctrl::InOut<float, 2>(m.p, ext), ctrl::In<float, 2>(copy.p, ext));
}

// ---- vector-wide runs against hand-written kernels (issue 15) ------------------------------------
//
// Side by side in one process, on the same device arrays: the controller's launch path with the
// table's geometry ("ctrl": vector runs where the table picks them), a hand-written grid-stride
// kernel with float4 loads and stores ("float4"), and the same with one float per thread and
// iteration ("scalar"). Goal: ctrl >= 0.95 of float4 for matadd and Jacobi's copy and update;
// Black-Scholes reported against both (it keeps one item per thread: no slower than before).
// Jacobi's update is also timed as ctrl's runs on the table's block, and by hand with coherent
// loads ("float4_coherent": what ctrl's runs issue, docs/cuda.md says why) and on the table's
// 64x4 blocks ("float4_64x4"): what separates ctrl from the hand kernel, measured in one run.

float4* f4(float* p) { return reinterpret_cast<float4*>(p); }
const float4* cf4(float* p) { return reinterpret_cast<const float4*>(p); }
const float* cp(float* p) { return p; }

// One wave of resident 256-thread blocks, as the table's striding grids.
unsigned hand_grid() {
  const cd::DeviceLimits lim = cudabench::device_limits();
  return lim.multiprocessors * (lim.threads_per_multiprocessor / 256);
}

__global__ void hand_add4(float4* __restrict__ c, const float4* __restrict__ a, const float4* __restrict__ b,
                          ctrl::index_t n4) {
  for (ctrl::index_t i = blockIdx.x * ctrl::index_t{blockDim.x} + threadIdx.x; i < n4;
       i += ctrl::index_t{gridDim.x} * blockDim.x) {
    const float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}
__global__ void hand_add1(float* __restrict__ c, const float* __restrict__ a, const float* __restrict__ b,
                          ctrl::index_t n) {
  for (ctrl::index_t i = blockIdx.x * ctrl::index_t{blockDim.x} + threadIdx.x; i < n;
       i += ctrl::index_t{gridDim.x} * blockDim.x)
    c[i] = a[i] + b[i];
}
__global__ void hand_copy4(float4* __restrict__ d, const float4* __restrict__ s, ctrl::index_t n4) {
  for (ctrl::index_t i = blockIdx.x * ctrl::index_t{blockDim.x} + threadIdx.x; i < n4;
       i += ctrl::index_t{gridDim.x} * blockDim.x)
    d[i] = s[i];
}
__global__ void hand_copy1(float* __restrict__ d, const float* __restrict__ s, ctrl::index_t n) {
  for (ctrl::index_t i = blockIdx.x * ctrl::index_t{blockDim.x} + threadIdx.x; i < n;
       i += ctrl::index_t{gridDim.x} * blockDim.x)
    d[i] = s[i];
}
// Jacobi's update of an n x n matrix (n a multiple of 4): a thread takes 4 aligned columns of a row,
// float4 loads of the rows above, below and its own, scalar loads of the two outside neighbours,
// and writes the interior ones (float4 where all 4 are). Coherent: the loads through ld.global.ca
// (LDG.E.128, as ctrl's vector runs issue them) instead of the read-only path (LDG.E.128.CONSTANT).
template <bool Coherent>
__device__ float4 load4(const float* p) {
  if constexpr (Coherent)
    return __ldca(reinterpret_cast<const float4*>(p));
  else
    return *reinterpret_cast<const float4*>(p);
}
template <bool Coherent>
__device__ float load1(const float* p) {
  if constexpr (Coherent)
    return __ldca(p);
  else
    return *p;
}
template <bool Coherent>
__device__ void jacobi4_cell(float* __restrict__ m, const float* __restrict__ c, ctrl::index_t n, ctrl::index_t row,
                             ctrl::index_t col) {
  const float* r = c + row * n + col;
  const float4 up = load4<Coherent>(r - n), down = load4<Coherent>(r + n), mid = load4<Coherent>(r);
  const float left = col > 0 ? load1<Coherent>(r - 1) : 0.0F, right = col + 4 < n ? load1<Coherent>(r + 4) : 0.0F;
  const float4 o = make_float4((up.x + down.x + left + mid.y) * 0.25F, (up.y + down.y + mid.x + mid.z) * 0.25F,
                               (up.z + down.z + mid.y + mid.w) * 0.25F, (up.w + down.w + mid.z + right) * 0.25F);
  float* w = m + row * n + col;
  if (col > 0 && col + 4 < n) {
    *reinterpret_cast<float4*>(w) = o;
  } else {
    if (col > 0) w[0] = o.x;
    w[1] = o.y, w[2] = o.z;
    if (col + 4 < n) w[3] = o.w;
  }
}
// A thread's runs: one wave of 256x1 blocks striding over the (n-2) x n/4 runs as one line.
template <bool Coherent>
__device__ void jacobi4_line(float* __restrict__ m, const float* __restrict__ c, ctrl::index_t n) {
  const ctrl::index_t q = n / 4, total = (n - 2) * q;
  for (ctrl::index_t t = blockIdx.x * ctrl::index_t{blockDim.x} + threadIdx.x; t < total;
       t += ctrl::index_t{gridDim.x} * blockDim.x)
    jacobi4_cell<Coherent>(m, c, n, 1 + t / q, (t % q) * 4);
}
__global__ void hand_jacobi4(float* __restrict__ m, const float* __restrict__ c, ctrl::index_t n) {
  jacobi4_line<false>(m, c, n);
}
__global__ void hand_jacobi4_coherent(float* __restrict__ m, const float* __restrict__ c, ctrl::index_t n) {
  jacobi4_line<true>(m, c, n);
}
// The same on 2-D blocks (64x4: the table's shape for Jacobi's update), the blocks striding down
// the rows as ctrl's 2-D grids do.
__global__ void hand_jacobi4_2d(float* __restrict__ m, const float* __restrict__ c, ctrl::index_t n) {
  const ctrl::index_t col = (blockIdx.x * ctrl::index_t{blockDim.x} + threadIdx.x) * 4;
  if (col >= n) return;
  for (ctrl::index_t row = 1 + blockIdx.y * ctrl::index_t{blockDim.y} + threadIdx.y; row < n - 1;
       row += ctrl::index_t{gridDim.y} * blockDim.y)
    jacobi4_cell<false>(m, c, n, row, col);
}
__global__ void hand_jacobi1(float* __restrict__ m, const float* __restrict__ c, ctrl::index_t n) {
  const ctrl::index_t w = n - 2, total = w * w;
  for (ctrl::index_t t = blockIdx.x * ctrl::index_t{blockDim.x} + threadIdx.x; t < total;
       t += ctrl::index_t{gridDim.x} * blockDim.x) {
    const ctrl::index_t row = 1 + t / w, col = 1 + t % w;
    m[row * n + col] =
        (c[(row + 1) * n + col] + c[(row - 1) * n + col] + c[row * n + col + 1] + c[row * n + col - 1]) * 0.25F;
  }
}
__global__ void hand_bs4(float4* __restrict__ call, float4* __restrict__ put, const float4* __restrict__ price,
                         const float4* __restrict__ strike, const float4* __restrict__ years, ctrl::index_t n4) {
  for (ctrl::index_t i = blockIdx.x * ctrl::index_t{blockDim.x} + threadIdx.x; i < n4;
       i += ctrl::index_t{gridDim.x} * blockDim.x) {
    const float4 s = price[i], x = strike[i], y = years[i];
    float4 c, p;
    apps::bs::price(c.x, p.x, s.x, x.x, y.x, 0.02F, 0.30F);
    apps::bs::price(c.y, p.y, s.y, x.y, y.y, 0.02F, 0.30F);
    apps::bs::price(c.z, p.z, s.z, x.z, y.z, 0.02F, 0.30F);
    apps::bs::price(c.w, p.w, s.w, x.w, y.w, 0.02F, 0.30F);
    call[i] = c;
    put[i] = p;
  }
}
__global__ void hand_bs1(float* __restrict__ call, float* __restrict__ put, const float* __restrict__ price,
                         const float* __restrict__ strike, const float* __restrict__ years, ctrl::index_t n) {
  for (ctrl::index_t i = blockIdx.x * ctrl::index_t{blockDim.x} + threadIdx.x; i < n;
       i += ctrl::index_t{gridDim.x} * blockDim.x)
    apps::bs::price(call[i], put[i], price[i], strike[i], years[i], 0.02F, 0.30F);
}

// g with its vector runs on the table's block and a striding grid, built here as geometry.hpp built
// it before the runs took both (the block and the grid were each measured against the others): it
// now equals ctrl's own geometry, so the two lines are one launch measured twice in a run (its
// spread).
ctrl::detail::CudaGeometry on_table_block(ctrl::detail::CudaGeometry g, const ctrl::Threads& space) {
  const cd::HwShape b{g.block[0], g.block[1], g.block[2]};
  const ctrl::Threads wide = space.dims() == 1 ? ctrl::Threads(space.x() + g.vector_phase)
                                               : ctrl::Threads(space.x(), space.y() + g.vector_phase);
  const auto vg =
      cd::geometry_for(b, wide, cudabench::device_limits(), cd::Coarsening{cd::vector_items, true, cd::Prefetch::none});
  for (int d = 0; d < 3; ++d) g.vector_grid[d] = vg.grid[d], g.vector_block[d] = vg.block[d];
  return g;
}

// A launch measured beside ctrl's, reported by name (a counter <name>_GBps and a part of the line).
struct Extra {
  const char* name;
  std::function<cudaError_t(cudaStream_t)> launch;
};

// Times ctrl's launch of K (the table's geometry), the two hand-written launches and the extras,
// interleaved rounds of each; reports GB/s (`bytes` per launch) and the goal ctrl / float4 >= `goal`.
// Where ctrl takes the vector runs, it is also timed with them on the table's block ("ctrl on the
// table's block"), so that one run tells whether the runs' own block pays.
template <class K, class F4, class F1, class... P>
void versus_hand(benchmark::State& state, const std::string& what, const ctrl::Threads& space, double bytes,
                 double goal, const F4& float4_launch, const F1& scalar_launch, const std::vector<Extra>& extras,
                 const P&... params) {
  cudabench::StreamContext ctx;
  const auto g = cd::geometry_for(ctrl::detail::traits_of<K>(), space, cudabench::device_limits());
  const bool vector = cd::takes_vector_runs<K>(g, params...);
  const auto gt = on_table_block(g, space);
  auto ctrl_launch = [&] { return cd::launch<K>(ctrl::Variant::generic, ctx, g, space, K{}, params...); };
  auto table_launch = [&] { return cd::launch<K>(ctrl::Variant::generic, ctx, gt, space, K{}, params...); };
  const std::size_t n = 4 + extras.size();
  std::vector<std::vector<double>> t(n);
  // One launch of each per round, the order rotated from round to round: where a launch stands in
  // a round showed in the figures (the same geometry measured first and fourth differed by up to
  // 20 % for Jacobi's update), so every launch takes every place.
  const auto timed = [&](std::size_t i) -> double {
    if (i == 0) return launch_ms(ctx.stream(), ctrl_launch);
    if (i == 1) return launch_ms(ctx.stream(), [&] { return float4_launch(ctx.stream()); });
    if (i == 2) return launch_ms(ctx.stream(), [&] { return scalar_launch(ctx.stream()); });
    if (i == 3) return vector ? launch_ms(ctx.stream(), table_launch) : -1.0;
    return launch_ms(ctx.stream(), [&] { return extras[i - 4].launch(ctx.stream()); });
  };
  for (auto _ : state) {
    for (std::size_t round = 0; round < 2 * n; ++round)
      for (std::size_t j = 0; j < n; ++j) {
        const std::size_t i = (j + round) % n;
        if (const double ms = timed(i); ms >= 0) t[i].push_back(ms);
      }
    state.SetIterationTime(cudabench::median(t[0]) * 1e-3);
  }
  std::vector<double> gbps(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    if (!t[i].empty()) gbps[i] = bytes / (cudabench::median(t[i]) * 1e-3) / 1e9;
  state.counters["ctrl_GBps"] = gbps[0];
  state.counters["float4_GBps"] = gbps[1];
  state.counters["scalar_GBps"] = gbps[2];
  state.counters["vector_runs"] = vector ? 1 : 0;
  const std::string how = vector ? strf("vector runs, block %ux%u", g.vector_block[0], g.vector_block[1])
                                 : strf("%u items, block %ux%u", g.items, g.block[0], g.block[1]);
  std::string line = strf(
      "vector %s: ctrl %.0f GB/s (%s), hand-written float4 %.0f GB/s, scalar %.0f GB/s, "
      "D2D copy %.0f GB/s; ctrl / float4 %.3f",
      what.c_str(), gbps[0], how.c_str(), gbps[1], gbps[2], cudabench::d2d_bandwidth() / 1e9, gbps[0] / gbps[1]);
  if (vector) {
    state.counters["ctrl_table_block_GBps"] = gbps[3];
    line += strf("; ctrl on the table's block %ux%u %.0f GB/s (%.3f of float4)", gt.vector_block[0], gt.vector_block[1],
                 gbps[3], gbps[3] / gbps[1]);
  }
  for (std::size_t e = 0; e < extras.size(); ++e) {
    state.counters[std::string(extras[e].name) + "_GBps"] = gbps[4 + e];
    line += strf("; %s %.0f GB/s", extras[e].name, gbps[4 + e]);
  }
  std::printf("%s\n", line.c_str());
  cudabench::note(line);
  cudabench::report(state, {"vector", what + (vector ? ", vector runs" : ", no vector runs"), "GB/s", gbps[0], gbps[1],
                            goal, false, "hand-written float4 kernel"});
}

// A hand-written kernel's launch on one wave of 256-thread blocks, as versus_hand takes it.
template <class... KA, class... A>
auto hand(void (*kernel)(KA...), A... a) {
  const unsigned grid = hand_grid();
  return [=](cudaStream_t s) {
    kernel<<<grid, 256, 0, s>>>(a...);
    return cudaGetLastError();
  };
}

// hand_jacobi4_2d's launch: 64x4 blocks, one wave of them, whole rows of runs across x.
auto hand_2d(void (*kernel)(float*, const float*, ctrl::index_t), float* m, const float* c, ctrl::index_t n) {
  const auto across = static_cast<unsigned>((n / 4 + 63) / 64);
  const unsigned down = hand_grid() / across > 0 ? hand_grid() / across : 1;
  return [=](cudaStream_t s) {
    kernel<<<dim3(across, down), dim3(64, 4), 0, s>>>(m, c, n);
    return cudaGetLastError();
  };
}

CUDA_BENCH(BM_VectorMatAdd) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t n = 16384;  // 2^28 floats
  cudabench::DeviceArray<float> a(n * n), b(n * n), c(n * n);
  BENCH_CUDA(cudaMemset(a.p, 0x3f, a.n * 4));
  BENCH_CUDA(cudaMemset(b.p, 0x3e, b.n * 4));
  const ctrl::index_t ext[2] = {n, n};
  versus_hand<apps::MatAdd>(state, "matadd 2^28 floats", ctrl::Threads(n, n), 3.0 * 4 * n * n, 0.95,
                            hand(&hand_add4, f4(c.p), cf4(a.p), cf4(b.p), n * n / 4),
                            hand(&hand_add1, c.p, cp(a.p), cp(b.p), n * n), {}, ctrl::Out<float, 2>(c.p, ext),
                            ctrl::In<float, 2>(a.p, ext), ctrl::In<float, 2>(b.p, ext));
}

CUDA_BENCH(BM_VectorJacobiCopy) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t n = 4096;
  cudabench::DeviceArray<float> m(n * n), copy(n * n);
  BENCH_CUDA(cudaMemset(m.p, 0x3f, m.n * 4));
  const ctrl::index_t ext[2] = {n, n};
  versus_hand<apps::JacobiCopy>(state, "jacobi copy 4096^2", ctrl::Threads(n, n), 2.0 * 4 * n * n, 0.95,
                                hand(&hand_copy4, f4(copy.p), cf4(m.p), n * n / 4),
                                hand(&hand_copy1, copy.p, cp(m.p), n * n), {}, ctrl::Out<float, 2>(copy.p, ext),
                                ctrl::In<float, 2>(m.p, ext));
}

CUDA_BENCH(BM_VectorJacobiUpdate) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t n = 4096;
  cudabench::DeviceArray<float> m(n * n), copy(n * n);
  BENCH_CUDA(cudaMemset(copy.p, 0x3f, copy.n * 4));
  const ctrl::index_t ext[2] = {n, n};
  versus_hand<apps::JacobiUpdate>(state, "jacobi update 4096^2", ctrl::Threads(n - 2, n - 2), 2.0 * 4 * n * n, 0.95,
                                  hand(&hand_jacobi4, m.p, cp(copy.p), n), hand(&hand_jacobi1, m.p, cp(copy.p), n),
                                  {{"float4_coherent", hand(&hand_jacobi4_coherent, m.p, cp(copy.p), n)},
                                   {"float4_64x4", hand_2d(&hand_jacobi4_2d, m.p, cp(copy.p), n)}},
                                  ctrl::InOut<float, 2>(m.p, ext), ctrl::In<float, 2>(copy.p, ext));
}

CUDA_BENCH(BM_VectorBlackScholes) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t n = ctrl::index_t{1} << 27;
  cudabench::BlackScholesArrays bs(static_cast<std::size_t>(n));
  const ctrl::index_t ext[1] = {n};
  // No goal against float4 (its math dominates); the row shows whether the generic kernel keeps up.
  versus_hand<apps::BlackScholes>(
      state, "Black-Scholes 2^27", ctrl::Threads(n), 5.0 * 4 * n, 0.0,
      hand(&hand_bs4, f4(bs.call.p), f4(bs.put.p), cf4(bs.price.p), cf4(bs.strike.p), cf4(bs.years.p), n / 4),
      hand(&hand_bs1, bs.call.p, bs.put.p, cp(bs.price.p), cp(bs.strike.p), cp(bs.years.p), n), {},
      ctrl::Out<float>(bs.call.p, ext), ctrl::Out<float>(bs.put.p, ext), ctrl::In<float>(bs.price.p, ext),
      ctrl::In<float>(bs.strike.p, ext), ctrl::In<float>(bs.years.p, ext), 0.02F, 0.30F);
}

BENCHMARK(BM_VectorMatAdd)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VectorJacobiCopy)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VectorJacobiUpdate)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VectorBlackScholes)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

BENCHMARK(BM_CoarseningMatAdd)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CoarseningBlackScholes)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CoarseningJacobiCopy)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CoarseningJacobiUpdate)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
