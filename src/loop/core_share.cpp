#include "core_share.hpp"

#include <ctrl/energy/estimate.hpp>

#include <dirent.h>
#include <unistd.h>

#include <ctime>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace ctrl::loop::detail {

namespace {

// The first field of /proc/self/task/TID/schedstat: nanoseconds the thread has run.
bool read_ran(pid_t tid, std::uint64_t& ns) {
  const energy::FileRead r = energy::read_small_file("/proc/self/task/" + std::to_string(tid) + "/schedstat");
  if (r.error != 0) return false;
  char* end = nullptr;
  ns = std::strtoull(r.text.c_str(), &end, 10);
  return end != r.text.c_str();
}

bool confined(const cpu_set_t& set, const std::vector<int>& cores) {
  int inside = 0;
  for (const int c : cores)
    if (c >= 0 && c < CPU_SETSIZE && CPU_ISSET(c, &set)) ++inside;
  return inside > 0 && inside == CPU_COUNT(&set);
}

std::vector<energy::CoreTicks> core_ticks() {
  const energy::FileRead r = energy::read_small_file(energy::default_proc_stat);
  if (r.error != 0) return {};
  try {
    return energy::parse_proc_stat(r.text, energy::default_proc_stat);
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace

std::uint64_t own_ran_ns() {
  timespec t{};  // the same count as schedstat's first field, without a file
  if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) return 0;
  return static_cast<std::uint64_t>(t.tv_sec) * 1000000000U + static_cast<std::uint64_t>(t.tv_nsec);
}

CoreSnapshot core_snapshot() {
  CoreSnapshot s;
  s.busy = core_ticks();
  if (s.busy.empty()) return s;
  DIR* dir = ::opendir("/proc/self/task");
  if (!dir) return s;
  while (const dirent* e = ::readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    ThreadTime t;
    t.tid = static_cast<pid_t>(std::atol(e->d_name));
    if (!read_ran(t.tid, t.ran_ns)) continue;
    CPU_ZERO(&t.cores);
    if (::sched_getaffinity(t.tid, sizeof t.cores, &t.cores) != 0) continue;  // ended meanwhile
    s.threads.push_back(t);
  }
  ::closedir(dir);
  return s;
}

std::vector<double> taken_by_others(const CoreSnapshot& before, const std::vector<const std::vector<int>*>& cores,
                                    const std::vector<std::uint64_t>& driver_ran_ns,
                                    const std::vector<double>& span_s) {
  std::vector<double> share(cores.size(), 0.0);
  if (before.busy.empty()) return share;
  const CoreSnapshot after = core_snapshot();
  static const double tick_s = 1.0 / static_cast<double>(std::max(1L, ::sysconf(_SC_CLK_TCK)));
  for (std::size_t i = 0; i < cores.size(); ++i) {
    if (!cores[i] || cores[i]->empty() || !(span_s[i] > 0)) continue;
    double busy_s = 0;  // every task's time on the cores, by the kernel's ticks
    for (const int c : *cores[i]) {
      const auto find = [c](const std::vector<energy::CoreTicks>& v) {
        return std::find_if(v.begin(), v.end(), [c](const energy::CoreTicks& t) { return t.core == c; });
      };
      const auto b = find(before.busy), a = find(after.busy);
      if (b != before.busy.end() && a != after.busy.end() && a->busy >= b->busy)
        busy_s += tick_s * static_cast<double>(a->busy - b->busy);
    }
    std::uint64_t ours_ns = driver_ran_ns[i];  // this process's threads confined to the cores
    for (const ThreadTime& t : after.threads) {
      if (!confined(t.cores, *cores[i])) continue;
      const auto b = std::find_if(before.threads.begin(), before.threads.end(),
                                  [&](const ThreadTime& u) { return u.tid == t.tid; });
      const std::uint64_t from = b == before.threads.end() ? 0 : b->ran_ns;
      if (t.ran_ns > from) ours_ns += t.ran_ns - from;
    }
    const double others = busy_s - 1e-9 * static_cast<double>(ours_ns);
    share[i] = std::clamp(others / (span_s[i] * static_cast<double>(cores[i]->size())), 0.0, 1.0);
  }
  return share;
}

}  // namespace ctrl::loop::detail
