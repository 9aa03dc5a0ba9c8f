#include "bench_support.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <stdexcept>

namespace cudabench {

void check(cudaError_t e, const char* call) {
  if (e == cudaSuccess) return;
  throw std::runtime_error(fmt::format("{} failed: {}: {}", call, cudaGetErrorName(e), cudaGetErrorString(e)));
}

bool have_gpu() {
  static const bool yes = [] {
    int n = 0;
    const bool ok = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
    (void)cudaGetLastError();
    return ok;
  }();
  return yes;
}

void guarded(benchmark::State& state, void (*body)(benchmark::State&)) {
  try {
    body(state);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "benchmark failed: %s\n", e.what());
    state.SkipWithError(e.what());
  }
}

namespace {
std::mutex goals_mutex;
std::vector<Goal>& goals() {
  static std::vector<Goal> g;
  return g;
}
std::vector<std::string>& notes() {
  static std::vector<std::string> n;
  return n;
}
}  // namespace

void note(const std::string& line) {
  std::lock_guard lock(goals_mutex);
  notes().push_back(line);
}

double d2d_bandwidth() {
  static const double bw = [] {
    const std::size_t bytes = std::size_t{1} << 30;
    DeviceArray<char> a(bytes), b(bytes);
    BENCH_CUDA(cudaMemset(a.p, 1, bytes));
    const double t =
        median_event_seconds(12, 2, [&] { BENCH_CUDA(cudaMemcpyAsync(b.p, a.p, bytes, cudaMemcpyDeviceToDevice)); });
    return 2.0 * static_cast<double>(bytes) / t;
  }();
  return bw;
}

ctrl::cuda_detail::DeviceLimits device_limits() {
  ctrl::cuda_detail::DeviceLimits lim;
  cudaDeviceProp p{};
  BENCH_CUDA(cudaGetDeviceProperties(&p, 0));
  for (int d = 0; d < 3; ++d) lim.max_grid[d] = static_cast<unsigned>(p.maxGridSize[d]);
  lim.multiprocessors = static_cast<unsigned>(p.multiProcessorCount);
  lim.threads_per_multiprocessor = static_cast<unsigned>(p.maxThreadsPerMultiProcessor);
  lim.blocks_per_multiprocessor = static_cast<unsigned>(p.maxBlocksPerMultiProcessor);
  return lim;
}

void report(const Goal& g) {
  std::lock_guard lock(goals_mutex);
  goals().push_back(g);
}

void report(benchmark::State& state, const Goal& g) {
  report(g);
  state.counters["measured"] = g.measured;
  state.counters["anchor"] = g.anchor;
  state.counters["ratio"] = g.anchor != 0 ? g.measured / g.anchor : 0;
  state.counters["limit"] = g.limit;
  const double r = g.anchor != 0 ? g.measured / g.anchor : 0;
  state.counters["pass"] = (g.at_most ? r <= g.limit : r >= g.limit) ? 1 : 0;
}

// Called by main after the benchmarks: the goals as a table, on stdout and into
// $CTRL_BENCH_SUMMARY when set. Returns how many goals failed.
int print_goals() {
  std::lock_guard lock(goals_mutex);
  std::string out = "| group | what | ctrl | anchor | ratio | goal | result |\n|---|---|---|---|---|---|---|\n";
  int failed = 0;
  for (const Goal& g : goals()) {
    const double r = g.anchor != 0 ? g.measured / g.anchor : 0;
    const bool pass = g.at_most ? r <= g.limit : r >= g.limit;
    failed += pass ? 0 : 1;
    out += fmt::format("| {} | {} | {:.4g} {} | {:.4g} {} | {:.3f} | {} {:.2f} | {}{} |\n", g.group, g.what, g.measured,
                       g.unit, g.anchor, g.unit, r, g.at_most ? "<=" : ">=", g.limit, pass ? "PASS" : "FAIL",
                       g.note.empty() ? "" : " (" + g.note + ")");
  }
  if (!notes().empty()) {
    out += "\n";
    for (const std::string& n : notes()) out += "- " + n + "\n";
  }
  std::printf("\nGOALS\n%s", out.c_str());
  if (const char* path = std::getenv("CTRL_BENCH_SUMMARY")) {
    std::ofstream f(path, std::ios::app);
    f << out;
  }
  return failed;
}

void fill(float* p, std::size_t n, std::uint32_t seed, float lo, float hi) {
  std::uint32_t x = seed * 2654435761U + 12345U;
  const float scale = (hi - lo) / 4294967296.0F;
  for (std::size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    p[i] = lo + static_cast<float>(x) * scale;
  }
}

BlackScholesArrays::BlackScholesArrays(std::size_t n) : price(n), strike(n), years(n), call(n), put(n) {
  std::vector<float> h(n);
  fill(h.data(), n, 1, 5, 30);
  BENCH_CUDA(cudaMemcpy(price.p, h.data(), n * 4, cudaMemcpyHostToDevice));
  fill(h.data(), n, 2, 1, 100);
  BENCH_CUDA(cudaMemcpy(strike.p, h.data(), n * 4, cudaMemcpyHostToDevice));
  fill(h.data(), n, 3, 0.25F, 10);
  BENCH_CUDA(cudaMemcpy(years.p, h.data(), n * 4, cudaMemcpyHostToDevice));
}

StreamContext::StreamContext() {
  BENCH_CUDA(cudaSetDevice(0));
  BENCH_CUDA(cudaGetDeviceProperties(&props_, 0));
  BENCH_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}
StreamContext::~StreamContext() {
  if (cublas_) cublasDestroy(cublas_);
  cudaStreamDestroy(stream_);
}
cublasHandle_t StreamContext::cublas() {
  if (!cublas_) {
    if (cublasCreate(&cublas_) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
    cublasSetStream(cublas_, stream_);
  }
  return cublas_;
}
cufftHandle StreamContext::fft_plan(int, const int*, cufftType, int) {
  throw std::runtime_error("StreamContext: no cuFFT plans in benchmarks");
}

}  // namespace cudabench
