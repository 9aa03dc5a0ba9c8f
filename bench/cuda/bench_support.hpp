// What the CUDA benchmarks share: error checks, timing (interleaved rounds, medians), the goals
// each benchmark checks against its anchor measured in the same run, and a CudaContext for
// launching a kernel body with a geometry of one's choosing.
#pragma once
#include <ctrl/ctrl.hpp>
#include <ctrl/cuda/context.hpp>
#include <ctrl/cuda/geometry.hpp>

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cudabench {

void check(cudaError_t e, const char* call);
#define BENCH_CUDA(call) ::cudabench::check((call), #call)

inline double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
template <class F>
double seconds(F&& f) {
  const double t0 = now();
  f();
  return now() - t0;
}
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
// Runs a and b alternately `rounds` times (after one untimed run of each) and returns the
// medians of their times in seconds: an anchor and its ctrl counterpart see the same machine.
template <class A, class B>
std::pair<double, double> interleaved(int rounds, A&& a, B&& b) {
  a();
  b();
  std::vector<double> ta, tb;
  for (int r = 0; r < rounds; ++r) {
    ta.push_back(seconds(a));
    tb.push_back(seconds(b));
  }
  return {median(ta), median(tb)};
}

// A goal: `measured` (ctrl) against `anchor` (measured in the same run). For "ratio_max" goals
// measured/anchor must be at most `limit`; for "fraction_min" goals measured/anchor at least.
struct Goal {
  std::string group, what, unit;
  double measured = 0, anchor = 0, limit = 0;
  bool at_most = true;  // measured/anchor <= limit, else >= limit
  std::string note;
};
void report(const Goal& g);
// Records the goal and puts its figures into the benchmark's counters.
void report(benchmark::State& state, const Goal& g);

// A line for the summary, printed (and appended to $CTRL_BENCH_SUMMARY) after the goals' table:
// figures that are no goal but explain one (the coarsening sweep).
void note(const std::string& line);

// Device-to-device cudaMemcpy bandwidth of 1 GiB (bytes read + written per second), measured once
// per run: the anchor of the bandwidth goals and of the coarsening sweep.
double d2d_bandwidth();

// The limits the controller fits geometries to, read from device 0.
ctrl::cuda_detail::DeviceLimits device_limits();

// Page-touching, non-zero, varied fill (fast enough for gigabytes).
void fill(float* p, std::size_t n, std::uint32_t seed, float lo, float hi);

// A CudaContext on a stream of one's own, for launching bodies outside a controller.
class StreamContext final : public ctrl::CudaContext {
 public:
  StreamContext();
  ~StreamContext() override;
  int device() const override { return 0; }
  const cudaDeviceProp& properties() const override { return props_; }
  cudaStream_t stream() const override { return stream_; }
  cublasHandle_t cublas() override;
  cufftHandle fft_plan(int, const int*, cufftType, int) override;
  std::string name() const override { return "bench stream"; }

 private:
  cudaStream_t stream_ = nullptr;
  cudaDeviceProp props_{};
  cublasHandle_t cublas_ = nullptr;
};

// Device memory for benchmarks.
template <class T>
struct DeviceArray {
  T* p = nullptr;
  std::size_t n = 0;
  explicit DeviceArray(std::size_t count) : n(count) {
    BENCH_CUDA(cudaMalloc(reinterpret_cast<void**>(&p), n * sizeof(T)));
  }
  ~DeviceArray() { cudaFree(p); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
};

// Black-Scholes' five device arrays of n options, the inputs filled as the case study's ranges.
struct BlackScholesArrays {
  explicit BlackScholesArrays(std::size_t n);
  DeviceArray<float> price, strike, years, call, put;
};

// The median time in seconds of `reps` runs of `enqueue` (work on the default stream) between two
// events, the first `skip` runs left out as warm-up.
template <class F>
double median_event_seconds(int reps, int skip, F&& enqueue) {
  cudaEvent_t e0, e1;
  BENCH_CUDA(cudaEventCreate(&e0));
  BENCH_CUDA(cudaEventCreate(&e1));
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    BENCH_CUDA(cudaEventRecord(e0));
    enqueue();
    BENCH_CUDA(cudaEventRecord(e1));
    BENCH_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    if (i >= skip) t.push_back(ms * 1e-3);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return median(t);
}

bool have_gpu();

// Runs a benchmark's body; an exception (a failed CUDA call, ctrl's errors) marks the benchmark
// as failed with its message instead of ending the whole program.
void guarded(benchmark::State& state, void (*body)(benchmark::State&));
#define CUDA_BENCH(name)                                                            \
  void name##_body(benchmark::State& state);                                        \
  void name(benchmark::State& state) { ::cudabench::guarded(state, &name##_body); } \
  void name##_body(benchmark::State& state)
#define BENCH_REQUIRE_GPU(state)           \
  if (!::cudabench::have_gpu()) {          \
    state.SkipWithError("no CUDA device"); \
    return;                                \
  }

}  // namespace cudabench
