// The geometry search: for each case-study kernel, every power-of-two block shape of 32 to 1024
// threads (columns x rows: columns along the space's last index, threadIdx.x), each with 1, 2, 4
// and 8 logical threads per CUDA thread (coarsening; 1-D and 2-D spaces), launched through the
// same generic-body path the controller uses (ctrl::cuda_detail::launch) on resident data, timed
// with events (median of 5 after a warm-up). The table's geometry (include/ctrl/cuda/geometry.hpp:
// block and coarsening, as a controller launch fits them) must be within 10 % of the best found.
#include "bench_support.hpp"

#include "blackscholes/blackscholes_kernels.hpp"
#include "jacobi/jacobi_kernels.hpp"
#include "matadd/matadd_kernels.hpp"
#include "mandelbrot/mandelbrot_kernels.hpp"
#include "matmul/matmul_kernels.hpp"
#include "recurrence/recurrence_kernels.hpp"

#include <ctrl/cuda.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using ctrl::cuda_detail::Coarsening;
using ctrl::cuda_detail::HwShape;

// printf-style formatting (fmt's compile-time format strings do not get through nvcc).
template <class... A>
std::string strf(const char* f, A... a) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, a...);
  return buf;
}

std::vector<HwShape> candidates(int dims) {
  std::vector<HwShape> out;
  if (dims == 1) {
    for (unsigned t = 32; t <= 1024; t *= 2) out.push_back({t, 1, 1});
    return out;
  }
  for (unsigned t = 32; t <= 1024; t *= 2)
    for (unsigned cols = 1; cols <= t; cols *= 2) out.push_back({cols, t / cols, 1});
  return out;
}

// Milliseconds per launch of `launch(geometry)` (events; median of up to 5 after a warm-up);
// infinite for a geometry that cannot launch (a 1024-thread block of a kernel whose coarsened
// body needs more than 64 registers per thread).
template <class Launch>
double time_ms(cudaStream_t s, const Launch& launch, const ctrl::detail::CudaGeometry& g) {
  if (const cudaError_t e = launch(g); e != cudaSuccess) {
    (void)cudaGetLastError();
    if (e == cudaErrorLaunchOutOfResources || e == cudaErrorInvalidConfiguration || e == cudaErrorInvalidValue)
      return INFINITY;
    BENCH_CUDA(e);
  }
  cudaEvent_t e0, e1;
  BENCH_CUDA(cudaEventCreate(&e0));
  BENCH_CUDA(cudaEventCreate(&e1));
  std::vector<double> t;
  for (int i = 0; i < 6; ++i) {
    BENCH_CUDA(cudaEventRecord(e0, s));
    BENCH_CUDA(launch(g));
    BENCH_CUDA(cudaEventRecord(e1, s));
    BENCH_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    if (i > 0) t.push_back(ms);
    if (i == 1 && ms > 40) break;  // a hopeless shape: one timed run is enough
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return cudabench::median(t);
}

template <class K, class... P>
void search(benchmark::State& state, const char* what, const ctrl::Threads& space, const P&... params) {
  cudabench::StreamContext ctx;
  const K kernel{};
  const ctrl::Traits traits = ctrl::detail::traits_of<K>();
  auto launch = [&](const ctrl::detail::CudaGeometry& g) {
    return ctrl::cuda_detail::launch<K>(ctrl::Variant::generic, ctx, g, space, kernel, params...);
  };
  const ctrl::cuda_detail::DeviceLimits lim = cudabench::device_limits();
  const HwShape chosen = ctrl::cuda_detail::block_shape(traits, space);
  const ctrl::detail::CudaGeometry chosen_g = ctrl::cuda_detail::geometry_for(traits, space, lim);
  // Every candidate prefetches as the table's choice does (where it runs several items).
  const auto pf = ctrl::cuda_detail::hopper_coarsening(traits.coal, traits.ops, traits.share).prefetch;
  const std::vector<unsigned> counts = space.dims() <= 2 ? std::vector<unsigned>{1, 2, 4, 8} : std::vector<unsigned>{1};
  double best = 1e30, chosen_ms = 0;
  HwShape best_shape{};
  unsigned best_items = 1;
  std::string table;
  for (auto _ : state) {
    for (const unsigned items : counts) {
      for (const HwShape& b : candidates(space.dims())) {
        const double ms =
            time_ms(ctx.stream(), launch, ctrl::cuda_detail::geometry_for(b, space, lim, Coarsening{items, false, pf}));
        table += strf(" %ux%u/%u:%.4g", b.x, b.y, items, ms);
        state.counters[strf("ms_%ux%u_i%u", b.x, b.y, items)] = std::isinf(ms) ? -1.0 : ms;  // -1: cannot launch
        if (ms < best) best = ms, best_shape = b, best_items = items;
      }
    }
    // The chosen geometry timed again beside the best (the search's own figure for it may be older).
    chosen_ms = time_ms(ctx.stream(), launch, chosen_g);
    const double best_again =
        time_ms(ctx.stream(), launch,
                ctrl::cuda_detail::geometry_for(best_shape, space, lim, Coarsening{best_items, false, pf}));
    best = std::min(best, best_again);
    state.SetIterationTime(chosen_ms * 1e-3);
  }
  std::printf("geometry %s (%s, traits %s): chosen %ux%u/%u items %.4g ms, best %ux%u/%u items %.4g ms;%s\n", what,
              space.str().c_str(), traits.str().c_str(), chosen.x, chosen.y, chosen_g.items, chosen_ms, best_shape.x,
              best_shape.y, best_items, best, table.c_str());
  state.counters["chosen_cols"] = chosen.x;
  state.counters["chosen_rows"] = chosen.y;
  state.counters["chosen_items"] = chosen_g.items;
  state.counters["best_cols"] = best_shape.x;
  state.counters["best_rows"] = best_shape.y;
  state.counters["best_items"] = best_items;
  cudabench::report(state,
                    {"geometry",
                     strf("%s (%s), chosen %ux%u/%u vs best %ux%u/%u (cols x rows / items)", what, traits.str().c_str(),
                          chosen.x, chosen.y, chosen_g.items, best_shape.x, best_shape.y, best_items),
                     "ms", chosen_ms, best, 1.10, true, "best geometry found by search"});
}

CUDA_BENCH(BM_GeometryMatAdd) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t n = 8192;
  cudabench::DeviceArray<float> a(n * n), b(n * n), c(n * n);
  BENCH_CUDA(cudaMemset(a.p, 0x3f, a.n * 4));
  BENCH_CUDA(cudaMemset(b.p, 0x3e, b.n * 4));
  const ctrl::index_t ext[2] = {n, n};
  search<apps::MatAdd>(state, "matadd", ctrl::Threads(n, n), ctrl::Out<float, 2>(c.p, ext),
                       ctrl::In<float, 2>(a.p, ext), ctrl::In<float, 2>(b.p, ext));
}

// Irregular, compute-bound (double): the whole set at 8192x8192, 1000 iterations.
CUDA_BENCH(BM_GeometryMandelbrot) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t n = 8192;
  cudabench::DeviceArray<float> it(n * n);
  const ctrl::index_t ext[2] = {n, n};
  search<apps::Mandelbrot>(state, "mandelbrot", ctrl::Threads(n, n), ctrl::Out<float, 2>(it.p, ext),
                           apps::mandel::view(-0.75, 0.0, 3.0, n, n), 1000);
}

CUDA_BENCH(BM_GeometryJacobiCopy) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t n = 8192;
  cudabench::DeviceArray<float> m(n * n), copy(n * n);
  BENCH_CUDA(cudaMemset(m.p, 0x3f, m.n * 4));
  const ctrl::index_t ext[2] = {n, n};
  search<apps::JacobiCopy>(state, "jacobi_copy", ctrl::Threads(n, n), ctrl::Out<float, 2>(copy.p, ext),
                           ctrl::In<float, 2>(m.p, ext));
}

CUDA_BENCH(BM_GeometryJacobiUpdate) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t n = 8192;
  cudabench::DeviceArray<float> m(n * n), copy(n * n);
  BENCH_CUDA(cudaMemset(copy.p, 0x3f, copy.n * 4));
  const ctrl::index_t ext[2] = {n, n};
  search<apps::JacobiUpdate>(state, "jacobi_update", ctrl::Threads(n - 2, n - 2), ctrl::InOut<float, 2>(m.p, ext),
                             ctrl::In<float, 2>(copy.p, ext));
}

CUDA_BENCH(BM_GeometryBlackScholes) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t n = ctrl::index_t{1} << 26;
  cudabench::BlackScholesArrays bs(static_cast<std::size_t>(n));
  const ctrl::index_t ext[1] = {n};
  search<apps::BlackScholes>(state, "blackscholes", ctrl::Threads(n), ctrl::Out<float>(bs.call.p, ext),
                             ctrl::Out<float>(bs.put.p, ext), ctrl::In<float>(bs.price.p, ext),
                             ctrl::In<float>(bs.strike.p, ext), ctrl::In<float>(bs.years.p, ext), 0.02F, 0.30F);
}

CUDA_BENCH(BM_GeometryRecurrence) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t n = 4096;
  std::vector<float> h(static_cast<std::size_t>(n * n));
  cudabench::fill(h.data(), h.size(), 4, -1, 1);
  cudabench::DeviceArray<float> x(n * n), y(n * n);
  BENCH_CUDA(cudaMemcpy(x.p, h.data(), x.n * 4, cudaMemcpyHostToDevice));
  const ctrl::index_t ext[2] = {n, n};
  search<apps::Recurrence>(state, "recurrence", ctrl::Threads(n, n), ctrl::Out<float, 2>(y.p, ext),
                           ctrl::In<float, 2>(x.p, ext), 100);
}

CUDA_BENCH(BM_GeometryMatMul) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t n = 2048;
  std::vector<float> h(static_cast<std::size_t>(n * n));
  cudabench::DeviceArray<float> a(n * n), b(n * n), c(n * n);
  cudabench::fill(h.data(), h.size(), 5, -1, 1);
  BENCH_CUDA(cudaMemcpy(a.p, h.data(), a.n * 4, cudaMemcpyHostToDevice));
  cudabench::fill(h.data(), h.size(), 6, -1, 1);
  BENCH_CUDA(cudaMemcpy(b.p, h.data(), b.n * 4, cudaMemcpyHostToDevice));
  const ctrl::index_t ext[2] = {n, n};
  search<apps::MatMul>(state, "matmul (generic)", ctrl::Threads(n, n), ctrl::Out<float, 2>(c.p, ext),
                       ctrl::In<float, 2>(a.p, ext), ctrl::In<float, 2>(b.p, ext));
}

BENCHMARK(BM_GeometryMatAdd)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GeometryJacobiCopy)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GeometryMandelbrot)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GeometryJacobiUpdate)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GeometryBlackScholes)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GeometryRecurrence)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GeometryMatMul)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
