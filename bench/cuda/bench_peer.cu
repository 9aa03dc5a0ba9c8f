// Several GPUs in one process (issue 19). First, a tile moving GPU to GPU through ctrl (Controller::take of a 256 MiB
// internal tile, back and forth between two controllers) against cudaMemcpyPeer of the same bytes between the same
// devices, measured in the same run (interleaved rounds, medians). With two GPUs the controllers
// are on cuda:0 and cuda:1 (a peer copy where the GPUs reach each other); with one GPU both are on
// cuda:0 (the same path: a copy within the device). Goal: ctrl moves at >= 90 % of cudaMemcpyPeer.
// Then one DGEMM split over two GPUs (below).
#include "bench_support.hpp"

#include <ctrl/cuda.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace {

using cudabench::median;

constexpr std::size_t peer_bytes = std::size_t{256} << 20;
constexpr int peer_rounds = 20;

struct PeerFill {
  static constexpr const char* name = "peer_fill";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<std::uint32_t, 1> o) const {
    o(t.x) = static_cast<std::uint32_t>(t.x) * 2654435761U;
  }
};

// The second device: cuda:1 where there is one, else cuda:0 again.
int second_device() {
  int n = 0;
  BENCH_CUDA(cudaGetDeviceCount(&n));
  return n > 1 ? 1 : 0;
}

// "cuda:0 -> cuda:1 (peer access)", for the goal's line.
std::string pair_name(int a, int b) {
  if (a == b) return "two controllers on cuda:0 (one GPU)";
  int can = 0;
  BENCH_CUDA(cudaDeviceCanAccessPeer(&can, b, a));
  return "cuda:0 <-> cuda:1" + std::string(can ? " (peer access)" : " (no peer access: through the host)");
}

// Two buffers of peer_bytes, one on each device, with peer access enabled both ways where the
// devices allow it (as ctrl enables it), so that cudaMemcpyPeer copies directly.
struct PeerBuffers {
  int a, b;
  void* on_a = nullptr;
  void* on_b = nullptr;
  PeerBuffers(int da, int db) : a(da), b(db) {
    BENCH_CUDA(cudaSetDevice(a));
    BENCH_CUDA(cudaMalloc(&on_a, peer_bytes));
    BENCH_CUDA(cudaMemset(on_a, 1, peer_bytes));
    BENCH_CUDA(cudaSetDevice(b));
    BENCH_CUDA(cudaMalloc(&on_b, peer_bytes));
    if (a != b) enable(a, b), enable(b, a);
  }
  ~PeerBuffers() {
    cudaFree(on_a);
    cudaFree(on_b);
    cudaSetDevice(0);
  }
  static void enable(int from, int to) {
    int can = 0;
    BENCH_CUDA(cudaDeviceCanAccessPeer(&can, from, to));
    if (!can) return;
    BENCH_CUDA(cudaSetDevice(from));
    const cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
    if (e != cudaErrorPeerAccessAlreadyEnabled) BENCH_CUDA(e);
    (void)cudaGetLastError();
  }
  // There and back: two copies of peer_bytes, each complete before the next and both done when
  // it returns, as take's are (cudaMemcpyPeer itself may return before its copy is done).
  void there_and_back() {
    BENCH_CUDA(cudaMemcpyPeer(on_b, b, on_a, a, peer_bytes));
    sync();
    BENCH_CUDA(cudaMemcpyPeer(on_a, a, on_b, b, peer_bytes));
    sync();
  }
  void sync() const {
    for (const int d : {a, b}) {
      BENCH_CUDA(cudaSetDevice(d));
      BENCH_CUDA(cudaDeviceSynchronize());
    }
  }
};

CUDA_BENCH(BM_cudaMemcpyPeer) {
  BENCH_REQUIRE_GPU(state);
  PeerBuffers buffers(0, second_device());
  std::vector<double> t;
  for (auto _ : state) {
    buffers.there_and_back();
    for (int r = 0; r < peer_rounds; ++r) t.push_back(cudabench::seconds([&] { buffers.there_and_back(); }) / 2);
    state.SetIterationTime(median(t));
  }
  state.counters["GBps"] = static_cast<double>(peer_bytes) / median(t) / 1e9;
  state.SetLabel(pair_name(0, buffers.b));
}
BENCHMARK(BM_cudaMemcpyPeer)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

CUDA_BENCH(BM_peer_tile_move) {
  BENCH_REQUIRE_GPU(state);
  const int b = second_device();
  PeerBuffers buffers(0, b);  // the anchor, interleaved with ctrl's moves
  ctrl::Controller ga(ctrl::cuda(0)), gb(ctrl::cuda(b));
  const auto n = static_cast<ctrl::index_t>(peer_bytes / sizeof(std::uint32_t));
  ctrl::Tile<std::uint32_t, 1> tile({n}, ctrl::shape_only, "moved");
  ga.create_internal(tile);
  ga.launch<PeerFill>(ctrl::Threads(n), tile);
  ga.wait();
  std::pair<double, double> s;
  for (auto _ : state) {
    s = cudabench::interleaved(
        peer_rounds, [&] { buffers.there_and_back(); },
        [&] {
          gb.take(tile);
          ga.take(tile);
        });
    state.SetIterationTime(s.second / 2);
  }
  ga.destroy_internal(tile);
  const ctrl::TransferStats moved = gb.transfers();
  state.counters["peer_copies"] = static_cast<double>(moved.copies_peer);
  state.counters["host_copies"] = static_cast<double>(moved.copies_in + moved.copies_out);
  const double gbps = 2.0 * static_cast<double>(peer_bytes) / s.second / 1e9;
  cudabench::report(
      state, {"transfers", "GPU to GPU tile move, take (256 MiB, " + pair_name(0, b) + ")", "GB/s", gbps,
              2.0 * static_cast<double>(peer_bytes) / s.first / 1e9, 0.90, false, "cudaMemcpyPeer, same devices"});
}
BENCHMARK(BM_peer_tile_move)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace

// ---- one DGEMM split over two GPUs ----------------------------------------------------------------
//
// C = A B (n x n, doubles) with the rows of A and C split in halves over two controllers, one per
// GPU, each holding its rows and the whole B in device memory (cuBLAS on each controller's stream
// and handle), against one controller doing every row; the inputs are on the devices before the
// clock starts, so this is the devices' rate, not PCIe's. Goal (issue 19): >= 1.8x one GPU's rate.
// With one GPU it skips: two controllers on one device share its SMs and say nothing of the split.

struct SplitDgemm {
  static constexpr const char* name = "split_dgemm";
  void cuda_library(ctrl::CudaContext& ctx, ctrl::Out<double, 2> c, ctrl::In<double, 2> a,
                    ctrl::In<double, 2> b) const {
    const int m = static_cast<int>(c.extent(0)), n = static_cast<int>(c.extent(1)), k = static_cast<int>(a.extent(1));
    const double one = 1.0, zero = 0.0;
    cublasHandle_t h = ctx.cublas();
    ctrl::cublas_check(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
    // Row-major C = A B is column-major C^T = B^T A^T: the same memory, operands swapped.
    ctrl::cublas_check(
        cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b.data(), n, a.data(), k, &zero, c.data(), n),
        "cublasDgemm");
  }
};

struct DgemmFill {
  static constexpr const char* name = "dgemm_fill";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<double, 2> o) const {
    o(t.x, t.y) = static_cast<double>((t.x * 131 + t.y * 17) % 97) / 97.0 - 0.5;
  }
};

// One controller's share: its rows of A and C and the whole B, internal to it and filled there.
struct DgemmShare {
  ctrl::Controller& c;
  ctrl::Tile<double, 2> a, b, out;
  DgemmShare(ctrl::Controller& ctl, ctrl::index_t rows, ctrl::index_t n)
      : c(ctl),
        a({rows, n}, ctrl::shape_only, "A rows"),
        b({n, n}, ctrl::shape_only, "B"),
        out({rows, n}, ctrl::shape_only, "C rows") {
    for (auto* t : {&a, &b, &out}) c.create_internal(*t);
    c.launch<DgemmFill>(ctrl::Threads(rows, n), a);
    c.launch<DgemmFill>(ctrl::Threads(n, n), b);
    c.wait();
  }
  ~DgemmShare() {
    for (auto* t : {&a, &b, &out}) c.destroy_internal(*t);
  }
  void launch() { c.launch<SplitDgemm>(ctrl::Threads(out.extent(0), out.extent(1)), out, a, b); }
};

CUDA_BENCH(BM_DgemmTwoGpus) {
  BENCH_REQUIRE_GPU(state);
  if (second_device() == 0) {
    state.SkipWithError("needs a second GPU (one GPU here: the split's rate needs two devices)");
    return;
  }
  const ctrl::index_t n = 16384, half = n / 2;  // 8.8 TFLOP: about 0.14 s on one H100's DGEMM
  ctrl::Controller g0(ctrl::cuda(0)), g1(ctrl::cuda(1));
  std::pair<double, double> s;
  {
    DgemmShare whole(g0, n, n);
    DgemmShare top(g1, half, n);  // (cuda:1's share sits beside cuda:0's whole problem: 6 GiB each)
    DgemmShare bottom_on_0(g0, half, n);
    for (auto _ : state) {
      s = cudabench::interleaved(
          5, [&] { whole.launch(), g0.wait(); },
          [&] {
            top.launch(), bottom_on_0.launch();
            g1.wait(), g0.wait();
          });
      state.SetIterationTime(s.second);
    }
  }
  const double flop = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  state.counters["one_gpu_TFLOPs"] = flop / s.first / 1e12;
  state.counters["two_gpus_TFLOPs"] = flop / s.second / 1e12;
  cudabench::report(state, {"multi-gpu", "DGEMM 16384^3 split over cuda:0 and cuda:1 (rows halved)", "TFLOP/s",
                            flop / s.second / 1e12, flop / s.first / 1e12, 1.8, false, "one GPU, every row"});
}
BENCHMARK(BM_DgemmTwoGpus)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
