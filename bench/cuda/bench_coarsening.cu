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
    const double ms = launch_ms(ctx.stream(), [&] {
      return cd::launch<K>(ctrl::Variant::generic, ctx, g, space, K{}, params...);
    });
    return bytes / (ms * 1e-3) / copy;
  };
  const ctrl::detail::CudaGeometry table = cd::geometry_for(traits, space, lim);
  const cd::Coarsening table_co =
      cd::fitted_coarsening(cd::hopper_coarsening(traits.coal, traits.ops, traits.share), shape, space, lim);
  std::string line = strf("coarsening %s (%s, block %ux%u): effective bandwidth / D2D copy:", what,
                          space.str().c_str(), shape.x, shape.y);
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
        const double r = ratio_of(cd::geometry_for(shape, space, lim, cd::Coarsening{items, m.grid_stride, m.prefetch}));
        state.counters[strf("ratio_%s_i%u", m.name, items)] = r;
        line += strf(" %u: %.3f", items, r);
      }
    }
    table_ratio = ratio_of(table);
    state.SetIterationTime(bytes / (table_ratio * copy));
  }
  const bool table_stride = table_co.grid_stride;
  line += strf(" | table (%u items%s%s): %.3f", table.items, table_stride ? ", grid-stride" : "",
               table.prefetch == 1 ? ", prefetch L1" : table.prefetch == 2 ? ", prefetch L2" : "", table_ratio);
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
                            ctrl::Out<float>(bs.put.p, ext), ctrl::In<float>(bs.price.p, ext), ctrl::In<float>(bs.strike.p, ext),
                            ctrl::In<float>(bs.years.p, ext), 0.02F, 0.30F);
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

BENCHMARK(BM_CoarseningMatAdd)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CoarseningBlackScholes)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CoarseningJacobiCopy)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CoarseningJacobiUpdate)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
