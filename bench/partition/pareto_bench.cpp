// Speed of the workload-distribution optimisers on profiles derived from the measured DGEMM
// profile (dgemm_like.hpp): the paper's scale (p = 5, m = 450, n = 268), ten times larger
// (p = 32, m = 2000, n = 4000), and the growth of each algorithm with p, m and n.
//
//   pareto_bench [benchmark flags]      Google Benchmark (use --benchmark_format=json)
//   pareto_bench --peak ALGO P M N      one run in this process; prints time and peak memory
//                                       as JSON (ALGO: dp, dpK (K threads), paper, hpopta)
#include "dgemm_like.hpp"

#include <ctrl/partition/hepopta_paper.hpp>
#include <ctrl/partition/hpopta.hpp>
#include <ctrl/partition/pareto_dp.hpp>

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>

namespace {

using namespace ctrl::partition;

const bench::Measured& measured() {
  static const bench::Measured m = bench::measured_dgemm(CTRL_DGEMM_CSV);
  return m;
}

const Profile& profile(int p, int m) {
  static std::map<std::pair<int, int>, Profile> cache;
  auto it = cache.find({p, m});
  if (it == cache.end()) it = cache.emplace(std::make_pair(p, m), bench::dgemm_like(measured(), p, m)).first;
  return it->second;
}

void BM_Dp(benchmark::State& state) {
  const auto p = static_cast<int>(state.range(0)), m = static_cast<int>(state.range(1));
  const Size n = state.range(2);
  const Profile& prof = profile(p, m);
  DpOptions opt;
  opt.threads = static_cast<unsigned>(state.range(3));
  DpStats stats;
  std::size_t points = 0;
  for (auto _ : state) {
    const Front f = pareto_front_dp(prof, n, opt, &stats);
    points = f.size();
    benchmark::DoNotOptimize(f.data());
  }
  state.counters["front"] = static_cast<double>(points);
  state.counters["states"] = static_cast<double>(stats.states);
  state.counters["table_MiB"] = static_cast<double>(stats.table_bytes) / (1 << 20);
  state.counters["threads"] = stats.threads;
}

void BM_Paper(benchmark::State& state) {
  const auto p = static_cast<int>(state.range(0)), m = static_cast<int>(state.range(1));
  const Size n = state.range(2);
  const Profile& prof = profile(p, m);
  std::size_t points = 0, saved = 0;
  for (auto _ : state) {
    PaperTrace trace;
    const Front f = hepopta_paper(prof, n, &trace);
    points = f.size();
    saved = 0;
    for (const auto& row : trace.memo)
      for (const auto& set : row) saved += set.size();
    benchmark::DoNotOptimize(f.data());
  }
  state.counters["front"] = static_cast<double>(points);
  state.counters["saved_points"] = static_cast<double>(saved);
}

void BM_Hpopta(benchmark::State& state) {
  const Profile& prof = profile(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  for (auto _ : state) benchmark::DoNotOptimize(hpopta(prof, state.range(2)));
}

// The two scales of the issue.
BENCHMARK(BM_Dp)->Name("scale/paper/dp")->Args({5, 450, 268, 0})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Paper)->Name("scale/paper/paper")->Args({5, 450, 268})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Hpopta)->Name("scale/paper/hpopta")->Args({5, 450, 268})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Dp)->Name("scale/10x/dp")->Args({32, 2000, 4000, 0})->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_Dp)->Name("scale/10x/dp-1thread")->Args({32, 2000, 4000, 1})->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_Hpopta)->Name("scale/10x/hpopta")->Args({32, 2000, 4000})->Unit(benchmark::kMillisecond)->Iterations(1);

// Growth of the dynamic programme around the larger scale (one thread, to show the algorithm).
// Only sizes up to n can be used, so m is varied below n and n with m below it.
BENCHMARK(BM_Dp)
    ->Name("growth/dp/p")
    ->ArgsProduct({{4, 8, 16, 32}, {2000}, {4000}, {1}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_Dp)
    ->Name("growth/dp/m")
    ->ArgsProduct({{32}, {250, 500, 1000, 2000}, {4000}, {1}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_Dp)
    ->Name("growth/dp/n")
    ->ArgsProduct({{32}, {500}, {1000, 2000, 4000, 8000}, {1}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
// Growth of both algorithms around the paper's scale.
BENCHMARK(BM_Dp)
    ->Name("growth/small/dp/p")
    ->ArgsProduct({{2, 3, 5, 8, 12}, {450}, {268}, {1}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Paper)
    ->Name("growth/small/paper/p")
    ->ArgsProduct({{2, 3, 5, 8, 12}, {450}, {268}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Dp)
    ->Name("growth/small/dp/m")
    ->ArgsProduct({{5}, {67, 134, 201, 268}, {268}, {1}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Paper)
    ->Name("growth/small/paper/m")
    ->ArgsProduct({{5}, {67, 134, 201, 268}, {268}})
    ->Unit(benchmark::kMillisecond);
// Sizes above n cannot be used: up to n = 450 the usable sizes grow with n, beyond it only n.
BENCHMARK(BM_Dp)
    ->Name("growth/small/dp/n")
    ->ArgsProduct({{5}, {450}, {134, 268, 536, 1072}, {1}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Paper)
    ->Name("growth/small/paper/n")
    ->ArgsProduct({{5}, {450}, {134, 268, 536, 1072}})
    ->Unit(benchmark::kMillisecond);

// One run, in a fresh process, for its peak resident memory.
int peak(const std::string& algo, int p, int m, Size n) {
  const Profile& prof = profile(p, m);
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t points = 0;
  if (algo.rfind("dp", 0) == 0) {
    DpOptions opt;
    opt.threads = algo == "dp" ? 0u : static_cast<unsigned>(std::atoi(algo.c_str() + 2));
    points = pareto_front_dp(prof, n, opt).size();
  } else if (algo == "paper") {
    points = hepopta_paper(prof, n).size();
  } else if (algo == "hpopta") {
    points = hpopta(prof, n) ? 1 : 0;
  } else {
    std::fprintf(stderr, "unknown algorithm %s\n", algo.c_str());
    return 2;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  std::printf(
      "{\"algorithm\": \"%s\", \"p\": %d, \"m\": %d, \"n\": %lld, \"seconds\": %.4f, \"front\": %zu, "
      "\"peak_rss_mib\": %.1f, \"rss_before_mib\": %.1f}\n",
      algo.c_str(), p, m, static_cast<long long>(n), seconds, points, static_cast<double>(after.ru_maxrss) / 1024,
      static_cast<double>(before.ru_maxrss) / 1024);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 6 && std::string(argv[1]) == "--peak")
    return peak(argv[2], std::atoi(argv[3]), std::atoi(argv[4]), std::atoll(argv[5]));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
