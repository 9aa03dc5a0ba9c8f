// For the native twins (and the benchmarks that run them): an OpenMP team of one thread per core,
// thread i pinned to cores[i], as a ctrl CPU controller pins its workers. Compile with OpenMP.
#pragma once
#include <ctrl/device_spec.hpp>
#include <ctrl/errors.hpp>

#include <omp.h>
#include <sched.h>

#include <atomic>
#include <string>
#include <vector>

namespace apps::native {

// Sets the team size to cores.size() (no dynamic adjustment) and pins each thread of the team
// with sched_setaffinity. libgomp keeps the threads of a team of the same size from one parallel
// region to the next, so later `#pragma omp parallel for` loops run on these cores; a loop with
// schedule(static) then splits rows exactly as a ctrl CPU controller does (ctrl::split_range).
inline void pin_openmp(const std::vector<int>& cores) {
  const int n = static_cast<int>(cores.size());
  omp_set_dynamic(0);
  omp_set_num_threads(n);
  std::atomic<int> failed{-1};
  std::atomic<int> team{0};
#pragma omp parallel
  {
    const int t = omp_get_thread_num();
    if (t == 0) team.store(omp_get_num_threads());
    if (t < n) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cores[static_cast<std::size_t>(t)], &set);
      if (sched_setaffinity(0, sizeof set, &set) != 0) failed.store(cores[static_cast<std::size_t>(t)]);
    }
  }
  if (team.load() != n) {
    throw ctrl::DeviceError("OpenMP gave a team of " + std::to_string(team.load()) + " threads for " +
                            std::to_string(n) + " cores (" + ctrl::format_cores(cores) + ")");
  }
  if (failed.load() >= 0)
    throw ctrl::DeviceError("cannot pin an OpenMP thread to core " + std::to_string(failed.load()));
}

// The cores each thread of the current team runs on now (for tests): element t is thread t's.
inline std::vector<int> openmp_thread_cpus() {
  std::vector<int> cpus(static_cast<std::size_t>(omp_get_max_threads()), -1);
#pragma omp parallel
  cpus[static_cast<std::size_t>(omp_get_thread_num())] = sched_getcpu();
  return cpus;
}

}  // namespace apps::native
