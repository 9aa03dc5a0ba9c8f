// Empty launch: a ctrl launch of an empty generic kernel against a raw CUDA launch of an empty
// __global__ function on a stream of its own, back to back and with a synchronize after each.
// Goal: ctrl <= 1.1x raw, both measured here (the raw launch itself moves by a third between runs
// on a shared machine, so only the ratio of one run means anything: bench/results/cuda-h200.md).
//
// Recorded launches (include/ctrl/graph.hpp) against CUDA graphs captured by hand, side by side:
// 2,000 empty kernels (goal: <= 1.2x the hand-captured graph's time per kernel), and Jacobi
// 512x512 x 1000 iterations (goal: <= 1.1x the hand-captured graph; the native twin's kernels on
// a stream and ctrl's unrecorded launches are shown beside them).
#include "bench_support.hpp"

#include "jacobi/jacobi_kernels.hpp"
#include "jacobi/jacobi_native_cuda_compute.cuh"

#include <ctrl/cuda.hpp>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

__global__ void empty_kernel() {}

struct Empty {
  static constexpr const char* name = "empty";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread) const {}
};

CUDA_BENCH(BM_EmptyLaunch) {
  BENCH_REQUIRE_GPU(state);
  const bool sync = state.range(0) != 0;
  const int batch = sync ? 2000 : 20000;
  cudaStream_t s = nullptr;
  BENCH_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  ctrl::Controller gpu{ctrl::cuda(0)};
  auto raw = [&] {
    for (int i = 0; i < batch; ++i) {
      empty_kernel<<<1, 1, 0, s>>>();
      if (sync) BENCH_CUDA(cudaStreamSynchronize(s));
    }
    BENCH_CUDA(cudaStreamSynchronize(s));
  };
  auto ctl = [&] {
    for (int i = 0; i < batch; ++i) {
      gpu.launch<Empty>(ctrl::Threads(1));
      if (sync) gpu.wait();
    }
    gpu.wait();
  };
  double raw_s = 0, ctl_s = 0;
  for (auto _ : state) {
    const auto [r, c] = cudabench::interleaved(15, raw, ctl);
    raw_s = r / batch;
    ctl_s = c / batch;
    state.SetIterationTime(ctl_s);
  }
  BENCH_CUDA(cudaGetLastError());
  cudaStreamDestroy(s);
  cudabench::report(state, {"launch", sync ? "empty launch + synchronize" : "empty launch, back to back", "us",
                            ctl_s * 1e6, raw_s * 1e6, 1.10, true, "raw CUDA launch on a stream"});
  state.counters["raw_us"] = raw_s * 1e6;
  state.counters["ctrl_us"] = ctl_s * 1e6;
}
BENCHMARK(BM_EmptyLaunch)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("sync")
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMicrosecond);

// A CUDA graph captured by hand from what enqueue() puts on s, instantiated.
template <class F>
cudaGraphExec_t capture_by_hand(cudaStream_t s, F&& enqueue) {
  cudaGraph_t g = nullptr;
  cudaGraphExec_t exec = nullptr;
  BENCH_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  enqueue();
  BENCH_CUDA(cudaStreamEndCapture(s, &g));
  BENCH_CUDA(cudaGraphInstantiate(&exec, g, 0));
  BENCH_CUDA(cudaGraphDestroy(g));
  return exec;
}

CUDA_BENCH(BM_ReplayEmpty) {
  BENCH_REQUIRE_GPU(state);
  const int kernels = 2000;
  cudaStream_t s = nullptr;
  BENCH_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const cudaGraphExec_t by_hand = capture_by_hand(s, [&] {
    for (int i = 0; i < kernels; ++i) empty_kernel<<<1, 1, 0, s>>>();
  });
  ctrl::Controller gpu{ctrl::cuda(0)};
  const ctrl::Graph recorded = gpu.record([&] {
    for (int i = 0; i < kernels; ++i) gpu.launch<Empty>(ctrl::Threads(1));
  });
  double hand_s = 0, ctl_s = 0;
  for (auto _ : state) {
    const auto [h, c] = cudabench::interleaved(
        15,
        [&] {
          BENCH_CUDA(cudaGraphLaunch(by_hand, s));
          BENCH_CUDA(cudaStreamSynchronize(s));
        },
        [&] {
          gpu.replay(recorded);
          gpu.wait();
        });
    hand_s = h / kernels;
    ctl_s = c / kernels;
    state.SetIterationTime(ctl_s);
  }
  BENCH_CUDA(cudaGraphExecDestroy(by_hand));
  cudaStreamDestroy(s);
  cudabench::report(state, {"graphs", "2000 empty kernels, replayed", "us", ctl_s * 1e6, hand_s * 1e6, 1.20, true,
                            "hand-captured CUDA graph; goal 0.6 us each"});
  state.counters["hand_graph_us"] = hand_s * 1e6;
  state.counters["ctrl_replay_us"] = ctl_s * 1e6;
}
BENCHMARK(BM_ReplayEmpty)->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);

// Jacobi on device-resident data: the five ways of running 1000 iterations, interleaved. The
// fifth, ctrl's own kernels (the controller's geometry, launched as the controller launches them)
// captured by hand into one graph, tells the graph's structure apart from the kernels' time: the
// replay against it is ctrl's graph building, it against the hand-captured graph is the kernels.
namespace cd = ctrl::cuda_detail;
struct JacobiRuns {
  static constexpr ctrl::index_t rows = 512, cols = 512;
  static constexpr int iterations = 1000;
  cudaStream_t s = nullptr;
  float *dm = nullptr, *dcopy = nullptr;
  cudaGraphExec_t by_hand = nullptr, ctrl_kernels = nullptr;
  cudabench::StreamContext ctx;  // (ctrl's kernels captured by hand)
  ctrl::Controller gpu{ctrl::cuda(0)};
  ctrl::Tile<float, 2> m{{rows, cols}, "m"}, copy{{rows, cols}, ctrl::shape_only, "m_copy"};
  ctrl::Graph step;

  explicit JacobiRuns(const std::vector<float>& input) {
    BENCH_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    BENCH_CUDA(cudaMalloc(reinterpret_cast<void**>(&dm), input.size() * sizeof(float)));
    BENCH_CUDA(cudaMalloc(reinterpret_cast<void**>(&dcopy), input.size() * sizeof(float)));
    by_hand = capture_by_hand(s, [&] { native_iterations(); });
    ctrl_kernels = capture_by_hand(ctx.stream(), [&] { ctrl_iterations(); });
    gpu.create_internal(copy);
    load(input);  // (a recording's tiles must be attached)
    step = gpu.record([&] {
      gpu.launch<apps::JacobiCopy>(ctrl::Threads(rows, cols), copy, m);
      gpu.launch<apps::JacobiUpdate>(ctrl::Threads(rows - 2, cols - 2), m, copy);
    });
  }
  ~JacobiRuns() {
    gpu.detach(m);
    gpu.destroy_internal(copy);
    cudaGraphExecDestroy(by_hand);
    cudaGraphExecDestroy(ctrl_kernels);
    cudaFree(dm);
    cudaFree(dcopy);
    cudaStreamDestroy(s);
  }
  // Both matrices from the input; m attached (and valid on the device after the first launch).
  void load(const std::vector<float>& input) {
    if (m.state().owner) gpu.detach(m);
    std::memcpy(m.data(), input.data(), m.bytes());
    gpu.attach(m);
    BENCH_CUDA(cudaMemcpy(dm, input.data(), m.bytes(), cudaMemcpyHostToDevice));
  }
  // The native twin's two kernels per iteration (apps/jacobi/jacobi_native_cuda_compute.cuh).
  void native_iterations() {
    namespace nc = apps::native_cuda;
    const std::int64_t n = rows * cols;
    const dim3 block(64, 4), grid(nc::blocks(cols - 2, block.x), nc::blocks(rows - 2, block.y));
    for (int it = 0; it < iterations; ++it) {
      nc::jacobi_copy_kernel<float><<<nc::blocks(n, 256), 256, 0, s>>>(dcopy, dm, n);
      nc::jacobi_update_kernel<float><<<grid, block, 0, s>>>(dm, dcopy, rows, cols);
    }
  }
  // ctrl's two launches per iteration on dm and dcopy, on ctx's stream, with the controller's geometry.
  void ctrl_iterations() {
    const ctrl::index_t ext[2] = {rows, cols};
    const ctrl::Threads whole(rows, cols), inner(rows - 2, cols - 2);
    const auto gc = cd::geometry_for(ctrl::detail::traits_of<apps::JacobiCopy>(), whole, cudabench::device_limits());
    const auto gu = cd::geometry_for(ctrl::detail::traits_of<apps::JacobiUpdate>(), inner, cudabench::device_limits());
    const ctrl::Out<float, 2> copy_out(dcopy, ext);
    const ctrl::In<float, 2> m_in(dm, ext), copy_in(dcopy, ext);
    const ctrl::InOut<float, 2> m_io(dm, ext);
    for (int it = 0; it < iterations; ++it) {
      BENCH_CUDA(
          cd::launch<apps::JacobiCopy>(ctrl::Variant::generic, ctx, gc, whole, apps::JacobiCopy{}, copy_out, m_in));
      BENCH_CUDA(
          cd::launch<apps::JacobiUpdate>(ctrl::Variant::generic, ctx, gu, inner, apps::JacobiUpdate{}, m_io, copy_in));
    }
  }
  void ctrl_kernels_graph() {
    BENCH_CUDA(cudaGraphLaunch(ctrl_kernels, ctx.stream()));
    BENCH_CUDA(cudaStreamSynchronize(ctx.stream()));
  }
  void hand_graph() {
    BENCH_CUDA(cudaGraphLaunch(by_hand, s));
    BENCH_CUDA(cudaStreamSynchronize(s));
  }
  void native_stream() {
    native_iterations();
    BENCH_CUDA(cudaStreamSynchronize(s));
  }
  void replay() {
    gpu.replay(step, iterations);
    gpu.wait();
  }
  void unrecorded() {
    for (int it = 0; it < iterations; ++it) {
      gpu.launch<apps::JacobiCopy>(ctrl::Threads(rows, cols), copy, m);
      gpu.launch<apps::JacobiUpdate>(ctrl::Threads(rows - 2, cols - 2), m, copy);
    }
    gpu.wait();
  }
};

CUDA_BENCH(BM_ReplayJacobi) {
  BENCH_REQUIRE_GPU(state);
  std::vector<float> input(static_cast<std::size_t>(JacobiRuns::rows * JacobiRuns::cols));
  cudabench::fill(input.data(), input.size(), 5, 0, 100);
  JacobiRuns j(input);
  double hand = 0, stream = 0, replay = 0, unrecorded = 0, kernels = 0;
  for (auto _ : state) {
    std::vector<double> t[5];
    for (int r = 0; r <= 9; ++r) {  // round 0 warms up (and instantiates the unrolled graphs)
      const double a = cudabench::seconds([&] { j.hand_graph(); }), b = cudabench::seconds([&] { j.native_stream(); });
      const double c = cudabench::seconds([&] { j.replay(); }), d = cudabench::seconds([&] { j.unrecorded(); });
      const double e = cudabench::seconds([&] { j.ctrl_kernels_graph(); });
      if (r > 0) t[0].push_back(a), t[1].push_back(b), t[2].push_back(c), t[3].push_back(d), t[4].push_back(e);
    }
    hand = cudabench::median(t[0]), stream = cudabench::median(t[1]);
    replay = cudabench::median(t[2]), unrecorded = cudabench::median(t[3]), kernels = cudabench::median(t[4]);
    state.SetIterationTime(replay);
  }
  // Results: 1000 iterations each way from the same input, bit for bit.
  j.load(input);
  j.hand_graph();
  std::vector<float> by_hand(input.size());
  BENCH_CUDA(cudaMemcpy(by_hand.data(), j.dm, j.m.bytes(), cudaMemcpyDeviceToHost));
  j.replay();
  j.gpu.detach(j.m);
  std::vector<float> replayed(j.m.data(), j.m.data() + input.size());
  j.load(input);
  j.unrecorded();
  j.gpu.detach(j.m);
  // The goal is the first (the same launches, recorded or not); the second compares ctrl's generic
  // kernels with the twin's hand-written ones (same formula, same order of additions).
  const bool same = std::memcmp(replayed.data(), j.m.data(), j.m.bytes()) == 0;
  const bool as_twin = std::memcmp(replayed.data(), by_hand.data(), j.m.bytes()) == 0;
  j.gpu.attach(j.m);
  if (!same) state.SkipWithError("jacobi: the replayed result differs from the unrecorded launches'");
  cudabench::report(state, {"graphs", "jacobi 512x512 x 1000, replayed", "ms", replay * 1e3, hand * 1e3, 1.10, true,
                            "hand-captured CUDA graph of the native kernels"});
  char line[480];  // (no fmt here: nvcc cannot compile its headers)
  std::snprintf(line, sizeof line,
                "jacobi 512x512 x 1000 iterations: hand-captured graph %.3f ms, ctrl replay %.3f ms, ctrl's kernels "
                "in a hand-captured graph %.3f ms, native kernels on a stream %.3f ms, ctrl unrecorded launches "
                "%.3f ms; replayed result %s the unrecorded launches', %s the hand-captured graph's",
                hand * 1e3, replay * 1e3, kernels * 1e3, stream * 1e3, unrecorded * 1e3,
                same ? "identical to" : "DIFFERS from", as_twin ? "identical to" : "differs from");
  cudabench::note(line);
  std::printf("%s\n", line);
  // The launch geometries of the two kernels at this size, ctrl's and the twin's.
  const auto lim = cudabench::device_limits();
  for (const auto& [what, g] :
       {std::pair{"ctrl copy", cd::geometry_for(ctrl::detail::traits_of<apps::JacobiCopy>(),
                                                ctrl::Threads(JacobiRuns::rows, JacobiRuns::cols), lim)},
        std::pair{"ctrl update", cd::geometry_for(ctrl::detail::traits_of<apps::JacobiUpdate>(),
                                                  ctrl::Threads(JacobiRuns::rows - 2, JacobiRuns::cols - 2), lim)}}) {
    std::snprintf(line, sizeof line, "%s: grid %ux%u block %ux%u, %u items, vector runs %s", what, g.grid[0], g.grid[1],
                  g.block[0], g.block[1], g.items, g.vector_items ? "possible" : "no");
    cudabench::note(line);
    std::printf("%s\n", line);
  }
  cudabench::note("twin: copy grid 1024 block 256 (1-D); update grid 8x128 block 64x4");
  state.counters["hand_graph_ms"] = hand * 1e3;
  state.counters["ctrl_replay_ms"] = replay * 1e3;
  state.counters["native_stream_ms"] = stream * 1e3;
  state.counters["ctrl_unrecorded_ms"] = unrecorded * 1e3;
  state.counters["ctrl_kernels_hand_graph_ms"] = kernels * 1e3;
}
BENCHMARK(BM_ReplayJacobi)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
