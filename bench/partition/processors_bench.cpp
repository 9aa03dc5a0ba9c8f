// Growth of the distribution's cost with the number of abstract processors, by simulation: the
// first p processors of a heterogeneous cluster (cluster_like.hpp), p = 2 .. 1000. Under MPI every
// rank's controllers are abstract processors of one platform and rank 0 computes the distribution
// once, so this is the time rank 0 spends before the work starts.
//
// The workload grows with the platform: n = units * p (default 16 units of 64 rows a processor on
// average), every processor has m sizes 1..m (default 64, four times the average share, so the
// fastest GPUs can take what the time-optimal split gives them). One thread: the figure for one core.
//
//   processors_bench [--sizes=M] [--units=U] [--exact-max-p=P] [benchmark flags]
//       Google Benchmark; the exact fronts (HEPOPTA, HTPOPTA) only up to P processors
//   processors_bench --peak ALGO P [M U [LIMIT_MIB]]
//       one run in this process; prints time, peak memory and sizes as JSON
//       (ALGO: hpopta, hepopta, htpopta, load_balanced, even_split; LIMIT_MIB: the exact sweep's
//       DpOptions::memory_limit in MiB, 0 for none, default 2048)
#include "cluster_like.hpp"

#include <ctrl/partition/hpopta.hpp>
#include <ctrl/partition/load_balanced.hpp>
#include <ctrl/partition/pareto.hpp>
#include <ctrl/partition/pareto_dp.hpp>

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

using namespace ctrl::partition;

constexpr int processor_counts[] = {2, 5, 10, 20, 50, 100, 200, 500, 1000};
// Base power of the platform per abstract processor, in the profiles' units (a socket's dynamic
// power is about 1): static power is about half the dynamic power of a busy socket.
constexpr double base_power_per_processor = 0.5;

struct Setup {
  int sizes = 64;         // m
  int units = 16;         // workload per processor on average
  int exact_max_p = 500;  // the exact fronts beyond this: one run each (--peak), or extrapolated
  std::size_t memory_limit = DpOptions{}.memory_limit;  // the sweep's (--peak's LIMIT_MIB)
};

Setup setup;

const bench::Measured& measured() {
  static const bench::Measured m = bench::measured_dgemm(CTRL_DGEMM_CSV);
  return m;
}

const Profile& profile(int p) {
  static std::map<int, Profile> cache;
  auto it = cache.find(p);
  if (it == cache.end()) it = cache.emplace(p, bench::cluster_like(measured(), p, setup.sizes)).first;
  return it->second;
}

Size workload(int p) { return static_cast<Size>(setup.units) * p; }

DpOptions one_thread() {
  DpOptions opt;
  opt.threads = 1;
  opt.memory_limit = setup.memory_limit;
  return opt;
}

void set_common(benchmark::State& state, int p) {
  state.counters["p"] = p;
  state.counters["n"] = static_cast<double>(workload(p));
  state.counters["m"] = setup.sizes;
}

void BM_Hpopta(benchmark::State& state) {
  const auto p = static_cast<int>(state.range(0));
  const Profile& prof = profile(p);
  for (auto _ : state) benchmark::DoNotOptimize(hpopta(prof, workload(p)));
  set_common(state, p);
}

void BM_LoadBalanced(benchmark::State& state) {
  const auto p = static_cast<int>(state.range(0));
  const Profile& prof = profile(p);
  for (auto _ : state) benchmark::DoNotOptimize(load_balanced(prof, workload(p)));
  set_common(state, p);
}

void BM_EvenSplit(benchmark::State& state) {
  const auto p = static_cast<int>(state.range(0));
  const Profile& prof = profile(p);
  for (auto _ : state) benchmark::DoNotOptimize(even_split(prof, workload(p)));
  set_common(state, p);
}

// HEPOPTA by the default method, the dynamic programme (pareto_front_dp), on one thread.
void BM_Hepopta(benchmark::State& state) {
  const auto p = static_cast<int>(state.range(0));
  const Profile& prof = profile(p);
  DpStats stats;
  std::size_t points = 0;
  for (auto _ : state) {
    const Front f = pareto_front_dp(prof, workload(p), one_thread(), &stats);
    points = f.size();
    benchmark::DoNotOptimize(f.data());
  }
  set_common(state, p);
  state.counters["front"] = static_cast<double>(points);
  state.counters["states"] = static_cast<double>(stats.states);
  state.counters["probes"] = static_cast<double>(stats.probes);
  state.counters["table_MiB"] = static_cast<double>(stats.table_bytes) / (1 << 20);
  state.counters["bound_s"] = stats.bound_seconds;
  state.counters["sweep_s"] = stats.sweep_seconds;
}

void BM_Htpopta(benchmark::State& state) {
  const auto p = static_cast<int>(state.range(0));
  const Profile& prof = profile(p);
  const ParetoOptions opt{Method::dp, one_thread()};
  std::size_t points = 0;
  for (auto _ : state) {
    const Front f = htpopta(prof, workload(p), base_power_per_processor * p, opt);
    points = f.size();
    benchmark::DoNotOptimize(f.data());
  }
  set_common(state, p);
  state.counters["front"] = static_cast<double>(points);
}

void register_all() {
  const auto add = [](const char* name, void (*fn)(benchmark::State&), int p) {
    benchmark::RegisterBenchmark((std::string("processors/") + name).c_str(), fn)  // named .../p/real_time
        ->Arg(p)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  };
  for (const int p : processor_counts) {
    add("hpopta", BM_Hpopta, p);
    add("load_balanced", BM_LoadBalanced, p);
    add("even_split", BM_EvenSplit, p);
    if (p > setup.exact_max_p) continue;
    add("hepopta", BM_Hepopta, p);
    add("htpopta", BM_Htpopta, p);
  }
}

// One run, in a fresh process, for its peak resident memory.
int peak(const std::string& algo, int p) {
  const Profile& prof = profile(p);
  const Size n = workload(p);
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t points = 0;
  DpStats stats;
  if (algo == "hpopta") {
    points = hpopta(prof, n) ? 1 : 0;
  } else if (algo == "load_balanced") {
    points = load_balanced(prof, n) ? 1 : 0;
  } else if (algo == "even_split") {
    points = even_split(prof, n) ? 1 : 0;
  } else if (algo == "hepopta") {
    points = pareto_front_dp(prof, n, one_thread(), &stats).size();
  } else if (algo == "htpopta") {
    points = htpopta(prof, n, base_power_per_processor * p, ParetoOptions{Method::dp, one_thread()}).size();
  } else {
    std::fprintf(stderr, "unknown algorithm %s\n", algo.c_str());
    return 2;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  std::printf(
      "{\"algorithm\": \"%s\", \"p\": %d, \"m\": %d, \"n\": %lld, \"seconds\": %.4f, \"front\": %zu, "
      "\"states\": %zu, \"probes\": %zu, \"table_mib\": %.1f, \"checkpoints\": %zu, "
      "\"recomputed_levels\": %zu, \"sweep_seconds\": %.3f, \"peak_rss_mib\": %.1f, \"rss_before_mib\": %.1f}\n",
      algo.c_str(), p, setup.sizes, static_cast<long long>(n), seconds, points, stats.states, stats.probes,
      static_cast<double>(stats.table_bytes) / (1 << 20), stats.checkpoints, stats.recomputed_levels,
      stats.sweep_seconds, static_cast<double>(after.ru_maxrss) / 1024, static_cast<double>(before.ru_maxrss) / 1024);
  return 0;
}

// Takes --sizes=, --units= and --exact-max-p= out of argv, leaving Google Benchmark's flags.
void parse_own_flags(int& argc, char** argv) {
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    const auto value = [&](const char* flag, int& into) {
      const std::size_t len = std::strlen(flag);
      if (std::strncmp(argv[i], flag, len) != 0) return false;
      into = std::atoi(argv[i] + len);
      return true;
    };
    if (!value("--sizes=", setup.sizes) && !value("--units=", setup.units) &&
        !value("--exact-max-p=", setup.exact_max_p))
      argv[out++] = argv[i];
  }
  argc = out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 4 && std::string(argv[1]) == "--peak") {
    if (argc >= 5) setup.sizes = std::atoi(argv[4]);
    if (argc >= 6) setup.units = std::atoi(argv[5]);
    if (argc >= 7) {
      const auto mib = std::strtoull(argv[6], nullptr, 10);
      setup.memory_limit = mib == 0 ? SIZE_MAX : static_cast<std::size_t>(mib) << 20;
    }
    return peak(argv[2], std::atoi(argv[3]));
  }
  parse_own_flags(argc, argv);
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("sizes_per_processor", std::to_string(setup.sizes));
  benchmark::AddCustomContext("units_per_processor", std::to_string(setup.units));
  benchmark::AddCustomContext("exact_max_p", std::to_string(setup.exact_max_p));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
