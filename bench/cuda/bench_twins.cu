// Every case study on cuda:0 as its program runs it (attach, launch, detach: allocation,
// transfers, kernels, copies back) against its native CUDA twin (apps/<name>/
// <name>_native_cuda_compute.cuh: hand-written CUDA with hand-written transfers, host arrays
// page-locked once, outside the timing), interleaved in the same run. Goal: within 2 %.
#include "bench_support.hpp"

#include "blackscholes/blackscholes_kernels.hpp"
#include "blackscholes/blackscholes_native_cuda_compute.cuh"
#include "jacobi/jacobi_kernels.hpp"
#include "jacobi/jacobi_native_cuda_compute.cuh"
#include "matadd/matadd_kernels.hpp"
#include "matadd/matadd_native_cuda_compute.cuh"
#include "matmul/matmul_cuda_variants.cuh"
#include "matmul/matmul_native_cuda_compute.cuh"
#include "mandelbrot/mandelbrot_kernels.hpp"
#include "mandelbrot/mandelbrot_native_cuda_compute.cuh"
#include "recurrence/recurrence_kernels.hpp"
#include "recurrence/recurrence_native_cuda_compute.cuh"

#include <ctrl/cuda.hpp>

#include <cmath>
#include <memory>
#include <vector>

namespace {

namespace nc = apps::native_cuda;
constexpr int rounds = 7;

// Relative L2 difference between two outputs.
double differ(const float* a, const float* b, std::size_t n) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    num += d * d;
    den += static_cast<double>(b[i]) * b[i];
  }
  return std::sqrt(num / (den > 0 ? den : 1));
}

void finish(benchmark::State& state, const char* what, double ctl, double twin, double difference) {
  state.SetIterationTime(ctl);
  state.counters["twin_ms"] = twin * 1e3;
  state.counters["ctrl_ms"] = ctl * 1e3;
  state.counters["difference"] = difference;
  if (!(difference < 1e-5)) state.SkipWithError("ctrl and the twin disagree");
  cudabench::report(state, {"twins", what, "ms", ctl * 1e3, twin * 1e3, 1.02, true, "native CUDA twin"});
}

CUDA_BENCH(BM_TwinMatAdd) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t n = 8192;
  ctrl::Tile<float, 2> A({n, n}, "a"), B({n, n}, "b"), C({n, n}, "c");
  cudabench::fill(A.data(), A.size(), 1, -1, 1);
  cudabench::fill(B.data(), B.size(), 2, -1, 1);
  C.fill(0.0F);
  std::vector<float> c(C.size());
  nc::use_device(ctrl::cuda(0));
  nc::Stream s;
  nc::HostPin pa(A.data(), A.bytes()), pb(B.data(), B.bytes()), pc(c.data(), C.bytes());
  ctrl::Controller gpu{ctrl::cuda(0)};
  for (auto _ : state) {
    const auto [twin, ctl] = cudabench::interleaved(
        rounds, [&] { nc::matadd(c.data(), A.data(), B.data(), n, n, s); },
        [&] {
          gpu.attach(A, B, C);
          gpu.launch<apps::MatAdd>(ctrl::Threads(n, n), C, A, B);
          gpu.detach(A, B, C);
        });
    finish(state, "matadd 8192x8192", ctl, twin, differ(C.data(), c.data(), c.size()));
  }
}
BENCHMARK(BM_TwinMatAdd)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

CUDA_BENCH(BM_TwinJacobi) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t rows = 4096, cols = 4096;
  const int iterations = 100;
  std::vector<float> input(static_cast<std::size_t>(rows * cols));
  cudabench::fill(input.data(), input.size(), 3, 0, 100);
  ctrl::Tile<float, 2> M({rows, cols}, "m"), copy({rows, cols}, ctrl::shape_only, "m_copy");
  std::vector<float> m(input.size());
  nc::use_device(ctrl::cuda(0));
  nc::Stream s;
  nc::HostPin pm(m.data(), m.size() * sizeof(float));
  float* d_copy = nc::device_alloc<float>(m.size(), s);
  ctrl::Controller gpu{ctrl::cuda(0)};
  gpu.create_internal(copy);
  for (auto _ : state) {
    std::vector<double> tt, tc;
    for (int r = 0; r <= rounds; ++r) {  // round 0 warms up
      std::copy(input.begin(), input.end(), m.begin());
      const double a = cudabench::seconds([&] { nc::jacobi(m.data(), d_copy, rows, cols, iterations, s); });
      std::copy(input.begin(), input.end(), M.data());
      const double b = cudabench::seconds([&] {
        gpu.attach(M);
        for (int it = 0; it < iterations; ++it) {
          gpu.launch<apps::JacobiCopy>(ctrl::Threads(rows, cols), copy, M);
          gpu.launch<apps::JacobiUpdate>(ctrl::Threads(rows - 2, cols - 2), M, copy);
        }
        gpu.detach(M);
      });
      if (r > 0) tt.push_back(a), tc.push_back(b);
    }
    finish(state, "jacobi 4096x4096, 100 iterations", cudabench::median(tc), cudabench::median(tt),
           differ(M.data(), m.data(), m.size()));
  }
  gpu.destroy_internal(copy);
  nc::device_free(d_copy, s);
  nc::finish(s);
}
BENCHMARK(BM_TwinJacobi)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

CUDA_BENCH(BM_TwinBlackScholes) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t n = ctrl::index_t{1} << 25;
  ctrl::Tile<float, 1> price({n}, "price"), strike({n}, "strike"), years({n}, "years"), call({n}, "call"),
      put({n}, "put");
  cudabench::fill(price.data(), price.size(), 4, 5, 30);
  cudabench::fill(strike.data(), strike.size(), 5, 1, 100);
  cudabench::fill(years.data(), years.size(), 6, 0.25F, 10);
  call.fill(0.0F);
  put.fill(0.0F);
  std::vector<float> c(call.size()), p(put.size());
  nc::use_device(ctrl::cuda(0));
  nc::Stream s;
  const std::size_t bytes = price.bytes();
  nc::HostPin p1(price.data(), bytes), p2(strike.data(), bytes), p3(years.data(), bytes), p4(c.data(), bytes),
      p5(p.data(), bytes);
  ctrl::Controller gpu{ctrl::cuda(0)};
  for (auto _ : state) {
    const auto [twin, ctl] = cudabench::interleaved(
        rounds,
        [&] { nc::blackscholes(c.data(), p.data(), price.data(), strike.data(), years.data(), 0.02F, 0.30F, n, s); },
        [&] {
          gpu.attach(price, strike, years, call, put);
          gpu.launch<apps::BlackScholes>(ctrl::Threads(n), call, put, price, strike, years, 0.02F, 0.30F);
          gpu.detach(price, strike, years, call, put);
        });
    finish(state, "blackscholes 2^25 options", ctl, twin,
           std::max(differ(call.data(), c.data(), c.size()), differ(put.data(), p.data(), p.size())));
  }
}
BENCHMARK(BM_TwinBlackScholes)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

CUDA_BENCH(BM_TwinRecurrence) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t rows = 4096, cols = 4096;
  const int iterations = 100;
  ctrl::Tile<float, 2> X({rows, cols}, "x"), Y({rows, cols}, "y");
  cudabench::fill(X.data(), X.size(), 7, -1, 1);
  Y.fill(0.0F);
  std::vector<float> y(Y.size());
  nc::use_device(ctrl::cuda(0));
  nc::Stream s;
  nc::HostPin px(X.data(), X.bytes()), py(y.data(), Y.bytes());
  ctrl::Controller gpu{ctrl::cuda(0)};
  for (auto _ : state) {
    const auto [twin, ctl] = cudabench::interleaved(
        rounds, [&] { nc::recurrence(y.data(), X.data(), rows, cols, iterations, s); },
        [&] {
          gpu.attach(X, Y);
          gpu.launch<apps::Recurrence>(ctrl::Threads(rows, cols), Y, X, iterations);
          gpu.detach(X, Y);
        });
    finish(state, "recurrence 4096x4096, 100 iterations", ctl, twin, differ(Y.data(), y.data(), y.size()));
  }
}
BENCHMARK(BM_TwinRecurrence)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

// Irregular work: the whole set at 8192x8192, 1000 iterations (a pixel costs 1 to 1000 steps in
// double). Nothing to copy in; the picture (256 MiB) is copied back on both sides.
CUDA_BENCH(BM_TwinMandelbrot) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t n = 8192;
  const int limit = 1000;
  const auto v = apps::mandel::view(-0.75, 0.0, 3.0, n, n);
  ctrl::Tile<float, 2> it({n, n}, "iterations");
  it.fill(0.0F);
  std::vector<float> twin(it.size());
  nc::use_device(ctrl::cuda(0));
  nc::Stream s;
  nc::HostPin pin(twin.data(), it.bytes());
  ctrl::Controller gpu{ctrl::cuda(0)};
  for (auto _ : state) {
    const auto [t, ctl] = cudabench::interleaved(
        rounds, [&] { nc::mandelbrot(twin.data(), n, n, v, limit, s); },
        [&] {
          gpu.attach(it);
          gpu.launch<apps::Mandelbrot>(ctrl::Threads(n, n), it, v, limit);
          gpu.detach(it);
        });
    finish(state, "mandelbrot 8192x8192, 1000 iterations", ctl, t, differ(it.data(), twin.data(), twin.size()));
  }
}
BENCHMARK(BM_TwinMandelbrot)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

void twin_matmul(benchmark::State& state, ctrl::Variant v, nc::MatMulKind kind, ctrl::index_t n, const char* what) {
  BENCH_REQUIRE_GPU(state);
  ctrl::Tile<float, 2> A({n, n}, "a"), B({n, n}, "b"), C({n, n}, "c");
  cudabench::fill(A.data(), A.size(), 8, -1, 1);
  cudabench::fill(B.data(), B.size(), 9, -1, 1);
  C.fill(0.0F);
  std::vector<float> c(C.size());
  nc::use_device(ctrl::cuda(0));
  nc::Stream s;
  nc::Cublas blas(s);
  nc::HostPin pa(A.data(), A.bytes()), pb(B.data(), B.bytes()), pc(c.data(), C.bytes());
  ctrl::Controller gpu{ctrl::cuda(0)};
  for (auto _ : state) {
    const auto [twin, ctl] = cudabench::interleaved(
        rounds, [&] { nc::matmul(kind, c.data(), A.data(), B.data(), n, n, n, s, blas.get()); },
        [&] {
          gpu.attach(A, B, C);
          if (v == ctrl::Variant::generic)
            gpu.launch<apps::MatMul>(v, ctrl::Threads(n, n), C, A, B);
          else
            gpu.launch<apps::MatMulCuda>(v, ctrl::Threads(n, n), C, A, B);
          gpu.detach(A, B, C);
        });
    finish(state, what, ctl, twin, differ(C.data(), c.data(), c.size()));
  }
}
CUDA_BENCH(BM_TwinMatMulGeneric) {
  twin_matmul(state, ctrl::Variant::generic, nc::MatMulKind::generic, 4096, "matmul 4096^3, generic");
}
CUDA_BENCH(BM_TwinMatMulNative) {
  twin_matmul(state, ctrl::Variant::native, nc::MatMulKind::tiled, 4096, "matmul 4096^3, native (tiled)");
}
CUDA_BENCH(BM_TwinMatMulCublas) {
  twin_matmul(state, ctrl::Variant::library, nc::MatMulKind::cublas, 4096, "matmul 4096^3, cuBLAS");
}
BENCHMARK(BM_TwinMatMulGeneric)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TwinMatMulNative)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TwinMatMulCublas)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
