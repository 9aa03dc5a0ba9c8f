// Whether other work shared a CPU group's cores during a round (docs/loop.md, "Another job on the
// cores"): the cores' busy time by the kernel's count (/proc/stat) less this process's threads'
// time on them (/proc/self/task/TID/schedstat), read before and after the round. Time this
// process's own threads take from each other (a waiting driver beside a worker) is not counted.
#pragma once
#include <ctrl/energy/estimate.hpp>

#include <sched.h>
#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace ctrl::loop::detail {

struct ThreadTime {
  pid_t tid = 0;
  std::uint64_t ran_ns = 0;  // time on a core since the thread started
  cpu_set_t cores{};         // where it may run
};
struct CoreSnapshot {
  std::vector<energy::CoreTicks> busy;  // per core; empty where /proc/stat cannot be read
  std::vector<ThreadTime> threads;      // this process's
};

CoreSnapshot core_snapshot();

// The calling thread's time on a core so far, in nanoseconds (0 where unknown).
std::uint64_t own_ran_ns();

// Per processor: the share of its cores' time over span_s[i] that other work took between `before`
// and now: the cores' busy time less that of this process's threads confined to *cores[i], its
// driver's (driver_ran_ns[i], measured by the driver, which ends before now) included; 0 where
// cores[i] is null or nothing could be read. /proc/stat counts in ticks (10 ms): one round's
// share is coarse, a mean over rounds is not.
std::vector<double> taken_by_others(const CoreSnapshot& before, const std::vector<const std::vector<int>*>& cores,
                                    const std::vector<std::uint64_t>& driver_ran_ns, const std::vector<double>& span_s);

}  // namespace ctrl::loop::detail
