// Each case study on a ctrl CPU controller ("cpu": every core) against its native twin (the
// OpenMP team pinned one thread per core to the same cores), with the same inputs and the same
// work: the ctrl side times attach → launches → detach, the native side the twin's compute
// function (<name>_native_compute.hpp, the code the *_native programs run). Input preparation is
// outside the timing (manual time). Sizes are chosen so that one run takes at least 50 ms on the
// 2-core development machine.
//
//   apps_bench --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
//              --benchmark_out=cpu-apps.json --benchmark_out_format=json
//
// Each benchmark reports its mean time per run (real_time, manual) and the best run (min_ms).
// mandelbrot's twin runs under several OpenMP schedules (native_static, native_dynamic1, ...).
#include "blackscholes/blackscholes_kernels.hpp"
#include "blackscholes/blackscholes_native_compute.hpp"
#include "blackscholes/blackscholes_problem.hpp"
#include "common/app.hpp"
#include "common/native.hpp"
#include "jacobi/jacobi_kernels.hpp"
#include "jacobi/jacobi_native_compute.hpp"
#include "jacobi/jacobi_problem.hpp"
#include "matadd/matadd_kernels.hpp"
#include "matadd/matadd_native_compute.hpp"
#include "matadd/matadd_problem.hpp"
#include "matmul/matmul_kernels.hpp"
#include "matmul/matmul_native_compute.hpp"
#include "matmul/matmul_problem.hpp"
#include "mandelbrot/mandelbrot_kernels.hpp"
#include "mandelbrot/mandelbrot_native_compute.hpp"
#include "recurrence/recurrence_kernels.hpp"
#include "recurrence/recurrence_native_compute.hpp"
#include "recurrence/recurrence_problem.hpp"

#include <ctrl/ctrl.hpp>

#include <benchmark/benchmark.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using ctrl::index_t;

// ---- sizes -----------------------------------------------------------------------------------
const std::vector<std::int64_t> kMatAdd{12288, 12288};
const std::vector<std::int64_t> kBlackScholes{8000000};
const std::vector<std::int64_t> kJacobi{2048, 2048};
constexpr int kJacobiIterations = 100;
const std::vector<std::int64_t> kMatMulBlas{2560};
const std::vector<std::int64_t> kMatMulGeneric{768};
const std::vector<std::int64_t> kRecurrence{1024, 1024};
constexpr int kRecurrenceIterations = 100;
const std::vector<std::int64_t> kMandelbrot{2048, 2048};  // the program's default picture
constexpr int kMandelbrotIterations = 1000;
constexpr std::uint64_t kSeed = 1;

const std::vector<int>& cores() {
  static const std::vector<int> c = apps::native_cores(ctrl::cpu());
  return c;
}

// The ctrl programs leave the main thread unpinned; the twins' main thread is OpenMP thread 0,
// pinned to the first core. Each side gets its own arrangement before it runs.
void unpin_main_thread() {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cores()) CPU_SET(c, &set);
  sched_setaffinity(0, sizeof set, &set);
}

ctrl::Controller& controller() {
  static ctrl::Controller ctl{ctrl::cpu()};
  return ctl;
}

// Inputs made once per case, shared by the ctrl and native benchmarks.
const std::vector<apps::Array>& inputs(const std::string& key, const std::function<std::vector<apps::Array>()>& make) {
  static std::map<std::string, std::vector<apps::Array>> cache;
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, make()).first;
  return it->second;
}

template <class Setup, class Body>
void timed(benchmark::State& state, Setup&& setup, Body&& body) {
  double best = std::numeric_limits<double>::infinity();
  for (auto _ : state) {
    setup();
    const auto t0 = std::chrono::steady_clock::now();
    body();
    const auto t1 = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(t1 - t0).count();
    state.SetIterationTime(s);
    best = std::min(best, s);
  }
  state.counters["min_ms"] = best * 1e3;
}
template <class Body>
void timed(benchmark::State& state, Body&& body) {
  timed(
      state, [] {}, std::forward<Body>(body));
}

template <std::size_t N>
ctrl::Tile<float, N> tile_from(const apps::Array& a, const index_t (&ext)[N], const char* name) {
  ctrl::Tile<float, N> t(ext, name);
  std::copy(a.data.begin(), a.data.end(), t.data());
  return t;
}

// ---- matadd ----------------------------------------------------------------------------------
// The largest case (3 x 576 MiB): the inputs are made once, straight into the ctrl tiles, and the
// twin reads them from there (a detached tile's memory is plain host memory).
struct MatAddData {
  ctrl::Tile<float, 2> a{{kMatAdd[0], kMatAdd[1]}, "a"}, b{{kMatAdd[0], kMatAdd[1]}, "b"},
      c{{kMatAdd[0], kMatAdd[1]}, "c"};
  std::vector<float> c_native = std::vector<float>(a.size());
  MatAddData() {
    apps::fill_uniform(a.elements(), kSeed, 0, -1, 1);  // what apps::matadd_problem().generate makes
    apps::fill_uniform(b.elements(), kSeed, 1, -1, 1);
    c.fill(0);
  }
};
MatAddData& matadd_data() {
  static MatAddData d;
  return d;
}

void matadd_ctrl(benchmark::State& state) {
  auto& d = matadd_data();
  const index_t r = kMatAdd[0], c = kMatAdd[1];
  auto& ctl = controller();
  unpin_main_thread();
  timed(state, [&] {
    ctl.attach(d.a, d.b, d.c);
    ctl.launch<apps::MatAdd>(ctrl::Threads(r, c), d.c, d.a, d.b);
    ctl.detach(d.a, d.b, d.c);
  });
}

void matadd_native(benchmark::State& state) {
  auto& d = matadd_data();
  apps::native::pin_openmp(cores());
  timed(state, [&] { apps::native::matadd(d.c_native.data(), d.a.data(), d.b.data(), kMatAdd[0], kMatAdd[1]); });
}

// ---- blackscholes ----------------------------------------------------------------------------
constexpr float kRiskfree = 0.02F, kVolatility = 0.30F;
const std::vector<apps::Array>& blackscholes_in() {
  return inputs("blackscholes", [] {
    apps::BlackScholesParams p;
    return apps::blackscholes_problem(p).generate(kBlackScholes, kSeed);
  });
}

void blackscholes_ctrl(benchmark::State& state) {
  const auto& in = blackscholes_in();
  const index_t n = kBlackScholes[0];
  auto S = tile_from(in[0], {n}, "price"), X = tile_from(in[1], {n}, "strike"), T = tile_from(in[2], {n}, "years");
  ctrl::Tile<float, 1> call({n}, "call"), put({n}, "put");
  call.fill(0);
  put.fill(0);
  auto& ctl = controller();
  unpin_main_thread();
  timed(state, [&] {
    ctl.attach(S, X, T, call, put);
    ctl.launch<apps::BlackScholes>(ctrl::Threads(n), call, put, S, X, T, kRiskfree, kVolatility);
    ctl.detach(S, X, T, call, put);
  });
}

void blackscholes_native(benchmark::State& state) {
  const auto& in = blackscholes_in();
  std::vector<float> call(in[0].data.size()), put(in[0].data.size());
  apps::native::pin_openmp(cores());
  timed(state, [&] {
    apps::native::blackscholes(call.data(), put.data(), in[0].data.data(), in[1].data.data(), in[2].data.data(),
                               kBlackScholes[0], kRiskfree, kVolatility);
  });
}

// ---- jacobi ----------------------------------------------------------------------------------
const std::vector<apps::Array>& jacobi_in() {
  return inputs("jacobi", [] {
    apps::JacobiParams p;
    return apps::jacobi_problem(p).generate(kJacobi, kSeed);
  });
}

void jacobi_ctrl(benchmark::State& state) {
  const auto& in = jacobi_in();
  const index_t r = kJacobi[0], c = kJacobi[1];
  ctrl::Tile<float, 2> M({r, c}, "m"), copy({r, c}, ctrl::shape_only, "m_copy");
  auto& ctl = controller();
  ctl.create_internal(copy);
  unpin_main_thread();
  timed(
      state, [&] { std::copy(in[0].data.begin(), in[0].data.end(), M.data()); },
      [&] {
        ctl.attach(M);
        for (int it = 0; it < kJacobiIterations; ++it) {
          ctl.launch<apps::JacobiCopy>(ctrl::Threads(r, c), copy, M);
          ctl.launch<apps::JacobiUpdate>(ctrl::Threads(r - 2, c - 2), M, copy);
        }
        ctl.detach(M);
      });
  ctl.destroy_internal(copy);
}

void jacobi_native(benchmark::State& state) {
  const auto& in = jacobi_in();
  std::vector<float> m(in[0].data.size());
  std::unique_ptr<float[]> copy(new float[in[0].data.size()]);
  apps::native::pin_openmp(cores());
  timed(
      state, [&] { std::copy(in[0].data.begin(), in[0].data.end(), m.begin()); },
      [&] { apps::native::jacobi(m.data(), copy.get(), kJacobi[0], kJacobi[1], kJacobiIterations); });
}

// ---- matmul ----------------------------------------------------------------------------------
const std::vector<apps::Array>& matmul_in(const std::vector<std::int64_t>& size) {
  return inputs("matmul" + std::to_string(size[0]), [&] {
    apps::MatMulParams p;
    return apps::matmul_problem(p).generate(size, kSeed);
  });
}

void matmul_ctrl(benchmark::State& state, ctrl::Variant variant, const std::vector<std::int64_t>& size) {
  const auto& in = matmul_in(size);
  const index_t n = size[0];
  auto A = tile_from(in[0], {n, n}, "a"), B = tile_from(in[1], {n, n}, "b");
  ctrl::Tile<float, 2> C({n, n}, "c");
  C.fill(0);
  apps::blas_single_threaded();
  auto& ctl = controller();
  unpin_main_thread();
  timed(state, [&] {
    ctl.attach(A, B, C);
    ctl.launch<apps::MatMul>(variant, ctrl::Threads(n, n), C, A, B);
    ctl.detach(A, B, C);
  });
}

void matmul_native(benchmark::State& state, bool blas, const std::vector<std::int64_t>& size) {
  const auto& in = matmul_in(size);
  const index_t n = size[0];
  std::vector<float> c(in[0].data.size());
  apps::blas_single_threaded();
  apps::native::pin_openmp(cores());
  timed(state, [&] {
    if (blas)
      apps::native::matmul_blas(c.data(), in[0].data.data(), in[1].data.data(), n, n, n);
    else
      apps::native::matmul_generic(c.data(), in[0].data.data(), in[1].data.data(), n, n, n);
  });
}

// ---- recurrence ------------------------------------------------------------------------------
const std::vector<apps::Array>& recurrence_in() {
  return inputs("recurrence", [] {
    apps::RecurrenceParams p;
    return apps::recurrence_problem(p).generate(kRecurrence, kSeed);
  });
}

void recurrence_ctrl(benchmark::State& state) {
  const auto& in = recurrence_in();
  const index_t r = kRecurrence[0], c = kRecurrence[1];
  auto X = tile_from(in[0], {r, c}, "x");
  ctrl::Tile<float, 2> Y({r, c}, "y");
  Y.fill(0);
  auto& ctl = controller();
  unpin_main_thread();
  timed(state, [&] {
    ctl.attach(X, Y);
    ctl.launch<apps::Recurrence>(ctrl::Threads(r, c), Y, X, kRecurrenceIterations);
    ctl.detach(X, Y);
  });
}

void recurrence_native(benchmark::State& state) {
  const auto& in = recurrence_in();
  std::vector<float> y(in[0].data.size());
  apps::native::pin_openmp(cores());
  timed(state, [&] {
    apps::native::recurrence(y.data(), in[0].data.data(), kRecurrence[0], kRecurrence[1], kRecurrenceIterations);
  });
}

std::string dims(const std::vector<std::int64_t>& s) {
  std::string out;
  for (auto v : s) {
    if (!out.empty()) out += 'x';
    out += std::to_string(v);
  }
  return out;
}

// ---- mandelbrot ------------------------------------------------------------------------------
// The program's default picture (the whole set, 1000 iterations): rows through the set cost up
// to 1000 steps a pixel, rows beside it a few. ctrl's dynamic chunks against the twin under each
// schedule an OpenMP programmer would try; the goal is the best of them.
apps::mandel::View mandelbrot_view() { return apps::mandel::view(-0.75, 0.0, 3.0, kMandelbrot[0], kMandelbrot[1]); }

void mandelbrot_ctrl(benchmark::State& state) {
  const index_t r = kMandelbrot[0], c = kMandelbrot[1];
  ctrl::Tile<float, 2> it({r, c}, "iterations");
  it.fill(0);
  auto& ctl = controller();
  unpin_main_thread();
  const auto v = mandelbrot_view();
  timed(state, [&] {
    ctl.attach(it);
    ctl.launch<apps::Mandelbrot>(ctrl::Threads(r, c), it, v, kMandelbrotIterations);
    ctl.detach(it);
  });
}

void mandelbrot_native(benchmark::State& state, omp_sched_t kind, int chunk) {
  std::vector<float> it(static_cast<std::size_t>(kMandelbrot[0] * kMandelbrot[1]));
  apps::native::pin_openmp(cores());
  omp_set_schedule(kind, chunk);
  const auto v = mandelbrot_view();
  timed(state, [&] {
    apps::native::mandelbrot(it.data(), kMandelbrot[0], kMandelbrot[1], v.re0, v.im0, v.step, kMandelbrotIterations);
  });
  apps::native::default_mandelbrot_schedule();
}

void register_all() {
  const auto reg = [](const std::string& name, auto fn) {
    benchmark::RegisterBenchmark(name.c_str(), fn)->UseManualTime()->Unit(benchmark::kMillisecond);
  };
  reg("matadd/" + dims(kMatAdd) + "/ctrl", matadd_ctrl);
  reg("matadd/" + dims(kMatAdd) + "/native", matadd_native);
  reg("blackscholes/" + dims(kBlackScholes) + "/ctrl", blackscholes_ctrl);
  reg("blackscholes/" + dims(kBlackScholes) + "/native", blackscholes_native);
  const std::string jacobi = "jacobi/" + dims(kJacobi) + "_k" + std::to_string(kJacobiIterations);
  reg(jacobi + "/ctrl", jacobi_ctrl);
  reg(jacobi + "/native", jacobi_native);
  const std::string blas = "matmul_blas/" + dims(kMatMulBlas);
  reg(blas + "/ctrl", [](benchmark::State& s) { matmul_ctrl(s, ctrl::Variant::library, kMatMulBlas); });
  reg(blas + "/native", [](benchmark::State& s) { matmul_native(s, true, kMatMulBlas); });
  const std::string generic = "matmul_generic/" + dims(kMatMulGeneric);
  reg(generic + "/ctrl", [](benchmark::State& s) { matmul_ctrl(s, ctrl::Variant::generic, kMatMulGeneric); });
  reg(generic + "/native", [](benchmark::State& s) { matmul_native(s, false, kMatMulGeneric); });
  const std::string rec = "recurrence/" + dims(kRecurrence) + "_k" + std::to_string(kRecurrenceIterations);
  reg(rec + "/ctrl", recurrence_ctrl);
  reg(rec + "/native", recurrence_native);
  const std::string mandel = "mandelbrot/" + dims(kMandelbrot) + "_k" + std::to_string(kMandelbrotIterations);
  reg(mandel + "/ctrl", mandelbrot_ctrl);
  const struct {
    const char* name;
    omp_sched_t kind;
    int chunk;
  } schedules[] = {{"static", omp_sched_static, 0},
                   {"static1", omp_sched_static, 1},
                   {"dynamic1", omp_sched_dynamic, 1},
                   {"dynamic8", omp_sched_dynamic, 8},
                   {"guided", omp_sched_guided, 1}};
  for (const auto& sch : schedules) {
    reg(mandel + "/native_" + sch.name,
        [kind = sch.kind, chunk = sch.chunk](benchmark::State& s) { mandelbrot_native(s, kind, chunk); });
  }
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

}  // namespace

int main(int argc, char** argv) {
  cores();  // the process's cores, before anything pins the main thread
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("ctrl_device", controller().name() + " (" + controller().description() + ")");
  benchmark::AddCustomContext("native_cores", ctrl::format_cores(cores()));
  benchmark::AddCustomContext("cpu_model", cpu_model());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
