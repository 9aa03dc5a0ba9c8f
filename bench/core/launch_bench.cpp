// Empty launch + wait on a CPU controller against an empty OpenMP parallel-for on the same cores
// (issue 3's anchor: OpenMP 1.0 µs, StarPU 34.6 µs on the 2-core box; issue 15's goal: ctrl on
// all the cores at no more than OpenMP's cost, bench/results/cpu-launch.md).
//   all cores:    ctrl::cpu(), the host thread unpinned (as OpenMP's master thread), vs an OpenMP
//                 team on every core. The waiter runs the launch itself in the place of the worker
//                 of whichever core it is on, that worker's helper standing aside (docs/model.md,
//                 "Launch cost on CPU cores").
//   host on core 0: the same with the host thread pinned to the first core (as OMP_PROC_BIND
//                 pins the master thread): the waiter always runs the launch.
//   host apart:   the host thread pinned to core 0, the controller on the other cores: every
//                 launch crosses to the queue thread (a controller on some of the cores keeps
//                 its launches there); as many threads on as many cores as the OpenMP team
#include <ctrl/ctrl.hpp>

#include <benchmark/benchmark.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>

#include <vector>

namespace {

struct Empty {
  static constexpr const char* name = "empty";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread) const {}
};

void pin_self(int core) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(core, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

// The cores this process may use (taskset restricts the whole comparison, OpenMP's team included:
// `taskset -c 0,1` gives the 2-core figures on a larger host), saved before any pinning.
const std::vector<int>& usable_cores() {
  static const std::vector<int> all = ctrl::cores_of(ctrl::cpu());
  return all;
}

void unpin_self() {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (const int c : usable_cores()) CPU_SET(c, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

int cores() { return static_cast<int>(usable_cores().size()); }

void ctrl_launch_wait(benchmark::State& state, const ctrl::DeviceSpec& spec, bool host_apart) {
  if (host_apart) pin_self(usable_cores().front());
  {
    ctrl::Controller ctl{spec};
    const ctrl::Threads space(ctl.spec().cores.empty() ? cores() : static_cast<ctrl::index_t>(ctl.spec().cores.size()));
    for (auto _ : state) {
      ctl.launch<Empty>(space);
      ctl.wait();
    }
    state.SetLabel(ctl.name());
  }
  unpin_self();
}

void omp_parallel_for(benchmark::State& state, int threads) {
  omp_set_num_threads(threads);
  for (auto _ : state) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < threads; ++i) benchmark::DoNotOptimize(i);
  }
  state.SetLabel(std::to_string(threads) + " OpenMP threads");
}

void BM_ctrl_all_cores(benchmark::State& s) { ctrl_launch_wait(s, ctrl::cpu(), false); }
void BM_omp_all_cores(benchmark::State& s) { omp_parallel_for(s, cores()); }
void BM_ctrl_all_cores_host_on_core0(benchmark::State& s) {
  pin_self(ctrl::cores_of(ctrl::cpu()).front());
  ctrl_launch_wait(s, ctrl::cpu(), false);
}
void BM_ctrl_host_apart(benchmark::State& s) {
  if (cores() < 2) return s.SkipWithError("needs 2 cores");
  ctrl_launch_wait(s, ctrl::cpu_range(usable_cores()[1], usable_cores().back()), true);
}

}  // namespace

BENCHMARK(BM_ctrl_all_cores)->MinTime(1.0);
BENCHMARK(BM_omp_all_cores)->MinTime(1.0);
BENCHMARK(BM_ctrl_all_cores_host_on_core0)->MinTime(1.0);
BENCHMARK(BM_ctrl_host_apart)->MinTime(1.0);
BENCHMARK_MAIN();
