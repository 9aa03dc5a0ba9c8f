// Helpers shared by the workloads: filling and checking large host arrays with plain threads
// (not the controllers': these run before and after the measured runs), and the bookkeeping of a
// verification.
#pragma once
#include <ctrl/detail/start_threads.hpp>
#include <ctrl/loop/workload.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace ctrl::loop {

// fn(begin, end) over [0, n) split into one contiguous range per hardware thread. A thread the
// system will not start is a DeviceError (ctrl::detail::cannot_start_thread), once the others have ended.
inline void host_parallel_for(index_t n, const std::function<void(index_t, index_t)>& fn) {
  const auto hw = static_cast<index_t>(std::max(1U, std::thread::hardware_concurrency()));
  const index_t parts = std::max<index_t>(1, std::min(hw, n / 64));
  if (parts == 1) {
    fn(0, n);
    return;
  }
  std::vector<std::thread> threads;
  ctrl::detail::start_threads(
      threads, static_cast<std::size_t>(parts),
      [&](std::size_t k) {
        const auto p = static_cast<index_t>(k);
        return [&fn, b = n * p / parts, e = n * (p + 1) / parts] { fn(b, e); };
      },
      "a thread filling or checking host arrays");
  for (auto& t : threads) t.join();
}

}  // namespace ctrl::loop
