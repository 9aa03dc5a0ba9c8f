// How a CPU controller cuts launches into blocks (src/cpu/block_grid.hpp), measured:
//   regular/<shape>:  the same element-wise work (2^20 elements, 16 multiply-adds each) as a
//                     1024×1024 launch and as 1×N, N×1, 1×1×N launches; time per element
//                     (ns_per_element). The 3-D body indexes a 3-D tile: its own N×N-equivalent
//                     is the cube 128×128×64. 1×N on one worker is what the x-only split gave
//                     every 1×N launch before.
//   regular/NxN_declared_irregular: the same work balanced dynamically, for the chunks' overhead.
//   mandelbrot/<balance>: an irregular body (escape-time iterations, 0 to 512 per pixel) as
//                     static blocks (declared regular) and as dynamic chunks (declared irregular).
//
//   bench_blocks_cpu --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
//                    --benchmark_out=cpu-blocks.json --benchmark_out_format=json
#include <ctrl/ctrl.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using ctrl::index_t;
using ctrl::Threads;

constexpr index_t kSide = 1024, kElements = kSide * kSide;

// 16 dependent multiply-adds per element, on a tile shaped like the launch: enough arithmetic that
// two workers are not merely sharing one memory bus, little enough that the loops' own cost shows.
CTRL_HOST_DEVICE inline float poly(float v) {
  for (int i = 0; i < 16; ++i) v = v * 0.5F + 1.0F;
  return v;
}
struct Poly2 {
  static constexpr const char* name = "poly2";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<float, 2> a) const { a(t.x, t.y) = poly(a(t.x, t.y)); }
};
struct Poly2Irregular : Poly2 {
  static constexpr ctrl::Traits traits{ctrl::cost::irregular};
};
struct Poly3 {
  static constexpr const char* name = "poly3";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<float, 3> a) const {
    a(t.x, t.y, t.z) = poly(a(t.x, t.y, t.z));
  }
};

// Escape-time iterations of z ← z² + c over [-2, 1] × [-1.5, 1.5], rows along the real axis: rows
// through the main cardioid (real part about -0.75 to 0.25) run up to 512 iterations per pixel,
// rows near -2 or 1 a few, so two equal row blocks differ several times in cost.
template <ctrl::cost Cost>
struct Mandelbrot {
  static constexpr const char* name = "mandelbrot";
  static constexpr ctrl::Traits traits{Cost};
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<std::uint16_t, 2> it) const {
    const double cr = -2.0 + 3.0 * static_cast<double>(t.x) / static_cast<double>(it.extent(0));
    const double ci = -1.5 + 3.0 * static_cast<double>(t.y) / static_cast<double>(it.extent(1));
    double zr = 0.0, zi = 0.0;
    std::uint16_t n = 0;
    while (n < 512 && zr * zr + zi * zi <= 4.0) {
      const double next = zr * zr - zi * zi + cr;
      zi = 2.0 * zr * zi + ci;
      zr = next;
      ++n;
    }
    it(t.x, t.y) = n;
  }
};

// Times launch + wait by hand, so that the time per element (a plain counter, in ns) and the
// benchmark's own time (per launch) come from the same clock; repetitions report their minimum
// too, the figure least disturbed by other work on a shared machine.
template <class Launch>
void time_launches(benchmark::State& state, ctrl::Controller& ctl, index_t elements, Launch&& launch) {
  double total_s = 0.0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    launch();
    ctl.wait();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(s);
    total_s += s;
  }
  state.counters["ns_per_element"] =
      total_s * 1e9 / (static_cast<double>(state.iterations()) * static_cast<double>(elements));
  state.SetLabel(ctl.name() + ": " + ctl.description());
}

template <class K, std::size_t R>
void launch_loop(benchmark::State& state, const ctrl::DeviceSpec& spec, const index_t (&ext)[R], Threads space) {
  ctrl::Controller ctl{spec};
  ctrl::Tile<float, R> a(ext, "a");
  a.fill(1.0F);
  ctl.attach(a);
  time_launches(state, ctl, space.size(), [&] { ctl.launch<K>(space, a); });
  ctl.detach(a);
}

void BM_regular_NxN(benchmark::State& s) { launch_loop<Poly2>(s, ctrl::cpu(), {kSide, kSide}, Threads(kSide, kSide)); }
void BM_regular_1xN(benchmark::State& s) { launch_loop<Poly2>(s, ctrl::cpu(), {1, kElements}, Threads(1, kElements)); }
void BM_regular_Nx1(benchmark::State& s) { launch_loop<Poly2>(s, ctrl::cpu(), {kElements, 1}, Threads(kElements, 1)); }
void BM_regular_1x1xN(benchmark::State& s) {
  launch_loop<Poly3>(s, ctrl::cpu(), {1, 1, kElements}, Threads(1, 1, kElements));
}
void BM_regular_cube(benchmark::State& s) {  // the 3-D body's own N×N-equivalent, for 1×1×N
  launch_loop<Poly3>(s, ctrl::cpu(), {128, 128, 64}, Threads(128, 128, 64));
}
void BM_regular_1xN_one_worker(benchmark::State& s) {
  launch_loop<Poly2>(s, ctrl::cpu_count(1), {1, kElements}, Threads(1, kElements));
}
void BM_regular_NxN_declared_irregular(benchmark::State& s) {
  launch_loop<Poly2Irregular>(s, ctrl::cpu(), {kSide, kSide}, Threads(kSide, kSide));
}

template <ctrl::cost Cost>
void mandelbrot(benchmark::State& state, const ctrl::DeviceSpec& spec) {
  constexpr index_t side = 512;
  ctrl::Controller ctl{spec};
  ctrl::Tile<std::uint16_t, 2> it({side, side}, "iterations");
  ctl.attach(it);
  time_launches(state, ctl, side * side, [&] { ctl.launch<Mandelbrot<Cost>>(Threads(side, side), it); });
  ctl.detach(it);
  std::uint64_t total = 0;
  for (std::uint16_t n : it.elements()) total += n;
  state.counters["mean_iterations"] = static_cast<double>(total) / static_cast<double>(side * side);
}

void BM_mandelbrot_static(benchmark::State& s) { mandelbrot<ctrl::cost::regular>(s, ctrl::cpu()); }
void BM_mandelbrot_dynamic(benchmark::State& s) { mandelbrot<ctrl::cost::irregular>(s, ctrl::cpu()); }
void BM_mandelbrot_one_worker(benchmark::State& s) { mandelbrot<ctrl::cost::regular>(s, ctrl::cpu_count(1)); }

}  // namespace

#define CTRL_BLOCKS_BENCH(f, seconds)                                 \
  BENCHMARK(f)->MinTime(seconds)->UseManualTime()->ComputeStatistics( \
      "min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); })
CTRL_BLOCKS_BENCH(BM_regular_NxN, 1.0);
CTRL_BLOCKS_BENCH(BM_regular_1xN, 1.0);
CTRL_BLOCKS_BENCH(BM_regular_Nx1, 1.0);
CTRL_BLOCKS_BENCH(BM_regular_1x1xN, 1.0);
CTRL_BLOCKS_BENCH(BM_regular_cube, 1.0);
CTRL_BLOCKS_BENCH(BM_regular_1xN_one_worker, 1.0);
CTRL_BLOCKS_BENCH(BM_regular_NxN_declared_irregular, 1.0);
CTRL_BLOCKS_BENCH(BM_mandelbrot_static, 2.0);
CTRL_BLOCKS_BENCH(BM_mandelbrot_dynamic, 2.0);
CTRL_BLOCKS_BENCH(BM_mandelbrot_one_worker, 2.0);
BENCHMARK_MAIN();
