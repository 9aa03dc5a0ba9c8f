#include "threads.hpp"

#include <ctrl/errors.hpp>

#include <algorithm>
#include <atomic>
#include <string>

#if defined(__linux__)
#include <sched.h>
#endif

namespace ctrl::partition::detail {

namespace {
std::atomic<unsigned> raised_cap{0};  // 0: none
}  // namespace

unsigned usable_cores() noexcept {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

unsigned thread_cap() noexcept {
  const unsigned raised = raised_cap.load();
  return raised != 0 ? raised : usable_cores();
}

void check_threads(unsigned asked) {
  const unsigned cap = thread_cap();
  if (asked > cap)
    throw UsageError("threads: " + std::to_string(asked) + " asked, more than the " + std::to_string(cap) +
                     (cap == 1 ? " core" : " cores") + " this process may use (its CPU affinity): at most " +
                     std::to_string(cap) + ", or 0 for all of them");
}

RaisedThreadCap::RaisedThreadCap(unsigned most) : before_(raised_cap.exchange(most)) {}
RaisedThreadCap::~RaisedThreadCap() { raised_cap.store(before_); }

}  // namespace ctrl::partition::detail
