// matmul on resident data: the cuBLAS variant through ctrl against cublasSgemm called directly
// on the same sizes in the same run (goal: within 2 %); for scale, the native tiled variant and
// the generic kernel against their hand-written twins.
#include "bench_support.hpp"

#include "matmul/matmul_cuda_variants.cuh"
#include "matmul/matmul_native_cuda_compute.cuh"

#include <ctrl/cuda.hpp>

namespace {

namespace nc = apps::native_cuda;

void matmul_resident(benchmark::State& state, ctrl::Variant v, nc::MatMulKind kind, ctrl::index_t n, int batch,
                     const char* what, double limit, const char* anchor_name) {
  BENCH_REQUIRE_GPU(state);
  ctrl::Tile<float, 2> a({n, n}, "a"), b({n, n}, "b"), c({n, n}, "c");
  cudabench::fill(a.data(), a.size(), 1, -1, 1);
  cudabench::fill(b.data(), b.size(), 2, -1, 1);
  // The direct calls: their own buffers, stream and handle.
  cudabench::DeviceArray<float> da(a.size()), db(b.size()), dc(c.size());
  BENCH_CUDA(cudaMemcpy(da.p, a.data(), a.bytes(), cudaMemcpyHostToDevice));
  BENCH_CUDA(cudaMemcpy(db.p, b.data(), b.bytes(), cudaMemcpyHostToDevice));
  cudaStream_t s = nullptr;
  BENCH_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  nc::Cublas blas(s);
  ctrl::Controller gpu{ctrl::cuda(0)};
  gpu.attach(a, b, c);
  auto direct = [&] {
    for (int i = 0; i < batch; ++i) nc::matmul_on_device(kind, dc.p, da.p, db.p, n, n, n, s, blas.get());
    BENCH_CUDA(cudaStreamSynchronize(s));
  };
  auto through_ctrl = [&] {
    for (int i = 0; i < batch; ++i) {
      if (v == ctrl::Variant::generic)
        gpu.launch<apps::MatMul>(v, ctrl::Threads(n, n), c, a, b);
      else
        gpu.launch<apps::MatMulCuda>(v, ctrl::Threads(n, n), c, a, b);
    }
    gpu.wait();
  };
  double raw = 0, ctl = 0;
  for (auto _ : state) {
    const auto [r, t] = cudabench::interleaved(7, direct, through_ctrl);
    raw = r / batch;
    ctl = t / batch;
    state.SetIterationTime(ctl);
  }
  gpu.detach(a, b, c);
  std::vector<float> ref(c.size());
  BENCH_CUDA(cudaMemcpy(ref.data(), dc.p, c.bytes(), cudaMemcpyDeviceToHost));
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double d = c[static_cast<ctrl::index_t>(i)] - ref[i];
    num += d * d;
    den += static_cast<double>(ref[i]) * ref[i];
  }
  if (!(std::sqrt(num / den) < 1e-4)) state.SkipWithError("matmul: ctrl and the direct call disagree");
  cudaStreamDestroy(s);
  const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  state.counters["ctrl_TFLOPs"] = flops / ctl / 1e12;
  state.counters["direct_TFLOPs"] = flops / raw / 1e12;
  cudabench::report(state, {"matmul", what, "ms", ctl * 1e3, raw * 1e3, limit, true, anchor_name});
}

CUDA_BENCH(BM_MatMulCublas) {
  matmul_resident(state, ctrl::Variant::library, nc::MatMulKind::cublas, 8192, 4,
                  "sgemm 8192^3, library variant (cuBLAS)", 1.02, "cublasSgemm called directly");
}
CUDA_BENCH(BM_MatMulTiled) {
  matmul_resident(state, ctrl::Variant::native, nc::MatMulKind::tiled, 4096, 4,
                  "4096^3, native variant (CUDA samples' tiling)", 1.02, "the same kernel as plain CUDA");
}
CUDA_BENCH(BM_MatMulGeneric) {
  matmul_resident(state, ctrl::Variant::generic, nc::MatMulKind::generic, 2048, 4, "2048^3, generic kernel", 1.02,
                  "a hand-written one-thread-per-element kernel");
}
BENCHMARK(BM_MatMulCublas)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MatMulTiled)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MatMulGeneric)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
