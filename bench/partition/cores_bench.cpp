// Fronts for clusters (issue #16): the exact front on the machine's cores and the
// (1 + epsilon)-approximate front, on the simulated cluster of processors_bench.cpp
// (cluster_like.hpp: m = 64 sizes a processor, n = 16 units a processor) and on the "ten times
// the paper" instance of pareto_bench.cpp (p = 32, m = 2000, n = 4000).
//
//   cores_bench [benchmark flags]          Google Benchmark, one iteration each, one thread and all
//   cores_bench --peak GOAL THREADS [LIMIT_MIB [PROBES]]
//                                          one run in this process: time, peak memory, front size
//                                          as JSON (THREADS 0: every usable core; LIMIT_MIB: the
//                                          exact sweep's DpOptions::memory_limit, 0 for none;
//                                          PROBES: DpOptions::probes)
// GOAL: classes_exact, classes_approx (p = 1000, the processors of one kind share a profile),
// distinct_exact, distinct_approx (p = 1000, +-4 % between boards: no two profiles equal),
// wide_exact (p = 32, m = 2000, n = 4000), approx_10k (p = 10,000, epsilon 0.01),
// hpopta, load_balanced (p = 1000, distinct).
#include "cluster_like.hpp"

#include <ctrl/partition/approximate.hpp>
#include <ctrl/partition/classes.hpp>
#include <ctrl/partition/hpopta.hpp>
#include <ctrl/partition/load_balanced.hpp>
#include <ctrl/partition/pareto_dp.hpp>

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>

namespace {

using namespace ctrl::partition;

constexpr double epsilon = 0.01;
std::size_t memory_limit = DpOptions{}.memory_limit;
int probes = DpOptions{}.probes;

const bench::Measured& measured() {
  static const bench::Measured m = bench::measured_dgemm(CTRL_DGEMM_CSV);
  return m;
}

struct Case {
  Profile profile;
  Size n = 0;
};

// The instances, built once each.
const Case& instance(const std::string& name) {
  static std::map<std::string, Case> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  Case c;
  if (name == "classes") c = {bench::cluster_like(measured(), 1000, 64, 7, true), 16'000};
  if (name == "distinct") c = {bench::cluster_like(measured(), 1000, 64), 16'000};
  if (name == "wide") c = {bench::dgemm_like(measured(), 32, 2000), 4000};
  if (name == "10k") c = {bench::cluster_like(measured(), 10'000, 64), 160'000};
  return cache.emplace(name, std::move(c)).first->second;
}

struct Outcome {
  std::size_t front = 0;
  unsigned threads = 1;
  std::size_t classes = 0;
  std::size_t thresholds = 0;                          // the approximate front's, or the class walk's
  double bound_seconds = 0.0;                          // the exact programme's bounds (sweep) or floor (class walk)
  double sweep_seconds = 0.0;                          // the sweep or the class walk
  std::size_t table_bytes = 0, recomputed_levels = 0;  // the exact programme's
  // The sweep's phases (DpStats): each level's bounds, events (within targets), targets, collect,
  // recover; and the threads' imbalance.
  double level_bound_seconds = 0.0, events_seconds = 0.0, targets_seconds = 0.0, collect_seconds = 0.0,
         recover_seconds = 0.0;
  double imbalance = 1.0;
  std::size_t states = 0;
  std::size_t summarised_levels = 0;  // the exact programme's, past its memory limit
};

// One goal: which instance, and what is computed on it.
struct Goal {
  const char* name;
  const char* instance;
  std::function<Outcome(const Case&, unsigned)> run;
};

Outcome exact(const Case& c, unsigned threads) {
  DpOptions opt;
  opt.threads = threads;
  opt.memory_limit = memory_limit;
  opt.probes = probes;
  DpStats stats;
  const std::size_t points = pareto_front_dp(c.profile, c.n, opt, &stats).size();
  return {points,
          stats.threads,
          stats.classes,
          stats.thresholds,
          stats.bound_seconds,
          stats.sweep_seconds,
          stats.table_bytes,
          stats.recomputed_levels,
          stats.level_bound_seconds,
          stats.events_seconds,
          stats.targets_seconds,
          stats.collect_seconds,
          stats.recover_seconds,
          stats.imbalance,
          stats.states,
          stats.summarised_levels};
}

Outcome approx(const Case& c, unsigned threads) {
  ApproxStats stats;
  const std::size_t points = approximate_front(c.profile, c.n, epsilon, ApproxOptions{threads}, &stats).size();
  return {points, stats.threads, stats.classes, stats.thresholds};
}

const std::vector<Goal>& goals() {
  static const std::vector<Goal> all{
      {"classes_exact", "classes", exact},
      {"classes_approx", "classes", approx},
      {"distinct_exact", "distinct", exact},
      {"distinct_approx", "distinct", approx},
      {"wide_exact", "wide", exact},
      {"approx_10k", "10k", approx},
      {"hpopta", "distinct",
       [](const Case& c, unsigned) {
         return Outcome{hpopta(c.profile, c.n) ? 1u : 0u, 1, 0};
       }},
      {"load_balanced", "distinct",
       [](const Case& c, unsigned) {
         return Outcome{load_balanced(c.profile, c.n) ? 1u : 0u, 1, 0};
       }},
  };
  return all;
}

void run_goal(benchmark::State& state, const Goal& goal) {
  const Case& c = instance(goal.instance);
  Outcome out;
  for (auto _ : state) out = goal.run(c, static_cast<unsigned>(state.range(0)));
  state.counters["p"] = static_cast<double>(c.profile.size());
  state.counters["n"] = static_cast<double>(c.n);
  state.counters["front"] = static_cast<double>(out.front);
  state.counters["threads"] = out.threads;
}

int peak(const std::string& name, unsigned threads) {
  for (const Goal& goal : goals()) {
    if (name != goal.name) continue;
    const Case& c = instance(goal.instance);
    rusage before{};
    getrusage(RUSAGE_SELF, &before);
    const auto t0 = std::chrono::steady_clock::now();
    const Outcome out = goal.run(c, threads);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rusage after{};
    getrusage(RUSAGE_SELF, &after);
    std::printf(
        "{\"goal\": \"%s\", \"p\": %zu, \"n\": %lld, \"classes\": %zu, \"threads\": %u, \"seconds\": %.4f, "
        "\"front\": %zu, \"thresholds\": %zu, \"bound_seconds\": %.4f, \"sweep_seconds\": %.4f, "
        "\"level_bound_seconds\": %.4f, \"events_seconds\": %.4f, \"targets_seconds\": %.4f, "
        "\"collect_seconds\": %.4f, \"recover_seconds\": %.4f, \"imbalance\": %.3f, \"states\": %zu, "
        "\"table_mib\": %.1f, \"recomputed_levels\": %zu, \"summarised_levels\": %zu, \"peak_rss_mib\": %.1f, "
        "\"rss_before_mib\": %.1f}\n",
        goal.name, c.profile.size(), static_cast<long long>(c.n), processor_classes(c.profile).count(), out.threads,
        seconds, out.front, out.thresholds, out.bound_seconds, out.sweep_seconds, out.level_bound_seconds,
        out.events_seconds, out.targets_seconds, out.collect_seconds, out.recover_seconds, out.imbalance, out.states,
        static_cast<double>(out.table_bytes) / (1 << 20), out.recomputed_levels, out.summarised_levels,
        static_cast<double>(after.ru_maxrss) / 1024, static_cast<double>(before.ru_maxrss) / 1024);
    return 0;
  }
  std::fprintf(stderr, "unknown goal %s\n", name.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 4 && argc <= 6 && std::string(argv[1]) == "--peak") {
    if (argc >= 5) {
      const auto mib = std::strtoull(argv[4], nullptr, 10);
      memory_limit = mib == 0 ? SIZE_MAX : static_cast<std::size_t>(mib) << 20;
    }
    if (argc == 6) probes = std::atoi(argv[5]);
    return peak(argv[2], static_cast<unsigned>(std::atoi(argv[3])));
  }
  for (const Goal& goal : goals())
    benchmark::RegisterBenchmark((std::string("cores/") + goal.name).c_str(),
                                 [&goal](benchmark::State& s) { run_goal(s, goal); })
        ->ArgName("threads")
        ->Arg(1)
        ->Arg(0)
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
