// Empty launch + wait on a CPU controller against an empty OpenMP parallel-for on the same cores
// (the anchor a CPU launch is held to; goal: ctrl on all the cores at no more than OpenMP's cost;
// figures, with StarPU's for scale: bench/results/cpu-launch.md).
//
// BM_interleaved/* (the goal's figures): ctrl and OpenMP alternate in rounds of about 20 ms in one
// process, the first of the pair alternating too, and each reports the median of its rounds and
// the median of the rounds' ratios: both see the same machine, whatever else runs on it. Before
// each round the process waits until every other thread of it sleeps (/proc/self/task), so that
// neither the OpenMP team nor ctrl's helpers, which both spin for a while after their last
// region, spin against the other's round. OpenMP runs as users get it: libgomp's default wait
// policy (OMP_WAIT_POLICY unset: a worker spins GOMP_SPINCOUNT = 300,000 pauses, a few ms, then
// sleeps on a futex); ctrl's helpers spin SpinWait::default_spins, then sleep. Under
// OMP_WAIT_POLICY=active the team never sleeps: the `unquiet` counter then counts the rounds
// that started with another thread still running.
//   all_cores:    ctrl::cpu(), the host thread unpinned (as OpenMP's master thread), vs an OpenMP
//                 team on every core. The waiter runs the launch itself in the place of the worker
//                 of whichever core it is on, that worker's helper standing aside (docs/model.md,
//                 "Launch cost on CPU cores").
//   host_on_core0: the same with the host thread pinned to the first core (as OMP_PROC_BIND
//                 pins the master thread), the OpenMP master pinned there too.
//   host_apart:   the host thread pinned to core 0, the controller on the other cores: every
//                 launch crosses to the queue thread (a controller on some of the cores keeps
//                 its launches there), against OpenMP's team on every core (as many threads
//                 as the host and the controller's workers together).
// BM_ctrl_* and BM_omp_all_cores: the same, measured one after the other (Google Benchmark's own
// loop), as the earliest figures of bench/results/cpu-launch.md were; kept to compare with them.
#include <ctrl/ctrl.hpp>

#include <benchmark/benchmark.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
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

// --- interleaved rounds ---------------------------------------------------------------------

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// How many threads of this process other than the caller are running (state R) now.
int others_running() {
  const std::string self = std::to_string(gettid());
  int running = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    if (task.path().filename() == self) continue;
    std::ifstream stat(task.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const auto paren = line.rfind(')');  // the name may hold spaces; the state follows it
    if (paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'R') ++running;
  }
  return running;
}

// Waits (up to 0.5 s) until every other thread of the process sleeps; false if one still runs.
bool quiesce() {
  const double until = now_s() + 0.5;
  for (;;) {
    if (others_running() == 0) return true;
    if (now_s() > until) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

// Runs step in batches for about `seconds` and returns the time of one step in µs.
template <class F>
double round_us(F&& step, double seconds) {
  constexpr int batch = 64;
  long steps = 0;
  const double t0 = now_s();
  double t = t0;
  do {
    for (int i = 0; i < batch; ++i) step();
    steps += batch;
    t = now_s();
  } while (t - t0 < seconds);
  return (t - t0) / static_cast<double>(steps) * 1e6;
}

void omp_empty_region(int threads) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int i = 0; i < threads; ++i) benchmark::DoNotOptimize(i);
}

enum class Host { unpinned, on_core0, apart };

void interleaved(benchmark::State& state, Host host) {
  const std::vector<int>& all = usable_cores();
  if (host == Host::apart && all.size() < 2) return state.SkipWithError("needs 2 cores");
  const ctrl::DeviceSpec spec = host == Host::apart ? ctrl::cpu_range(all[1], all.back()) : ctrl::cpu();
  // The OpenMP team starts before the host is pinned: its threads inherit the mask of the thread
  // that starts them, and must have every core.
  omp_empty_region(cores());
  if (host != Host::unpinned) pin_self(all.front());
  constexpr int rounds = 30;
  constexpr double seconds = 0.02;
  {
    ctrl::Controller ctl{spec};
    const int threads = static_cast<int>(ctrl::cores_of(spec).size());
    const ctrl::Threads space(threads);
    auto ctrl_step = [&] {
      ctl.launch<Empty>(space);
      ctl.wait();
    };
    auto omp_step = [&] { omp_empty_region(cores()); };
    std::vector<double> tc, to, ratio;
    int unquiet = 0;
    for (auto _ : state) {
      round_us(ctrl_step, seconds / 4);  // warm both up once: threads started, pages touched
      round_us(omp_step, seconds / 4);
      for (int r = 0; r < rounds; ++r) {
        double c = 0, o = 0;
        for (int k = 0; k < 2; ++k) {
          unquiet += quiesce() ? 0 : 1;
          if ((r + k) % 2 == 0)
            c = round_us(ctrl_step, seconds);
          else
            o = round_us(omp_step, seconds);
        }
        tc.push_back(c);
        to.push_back(o);
        ratio.push_back(c / o);
      }
    }
    state.counters["ctrl_us"] = median(tc);
    state.counters["omp_us"] = median(to);
    state.counters["ratio"] = median(ratio);
    state.counters["ratio_min"] = *std::min_element(ratio.begin(), ratio.end());
    state.counters["ratio_max"] = *std::max_element(ratio.begin(), ratio.end());
    state.counters["unquiet"] = unquiet;
    state.SetLabel(ctl.name() + " vs " + std::to_string(cores()) + " OpenMP threads");
  }
  unpin_self();
}

void BM_interleaved_all_cores(benchmark::State& s) { interleaved(s, Host::unpinned); }
void BM_interleaved_host_on_core0(benchmark::State& s) { interleaved(s, Host::on_core0); }
void BM_interleaved_host_apart(benchmark::State& s) { interleaved(s, Host::apart); }

}  // namespace

BENCHMARK(BM_interleaved_all_cores)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_interleaved_host_on_core0)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_interleaved_host_apart)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ctrl_all_cores)->MinTime(1.0);
BENCHMARK(BM_omp_all_cores)->MinTime(1.0);
BENCHMARK(BM_ctrl_all_cores_host_on_core0)->MinTime(1.0);
BENCHMARK(BM_ctrl_host_apart)->MinTime(1.0);
BENCHMARK_MAIN();
