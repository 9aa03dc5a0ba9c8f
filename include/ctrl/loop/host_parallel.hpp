// Helpers shared by the workloads: filling and checking large host arrays with plain threads
// (not the controllers': these run before and after the measured runs), and the bookkeeping of a
// verification.
#pragma once
#include <ctrl/loop/workload.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace ctrl::loop {

// fn(begin, end) over [0, n) split into one contiguous range per hardware thread.
inline void host_parallel_for(index_t n, const std::function<void(index_t, index_t)>& fn) {
  const auto hw = static_cast<index_t>(std::max(1U, std::thread::hardware_concurrency()));
  const index_t parts = std::max<index_t>(1, std::min(hw, n / 64));
  if (parts == 1) {
    fn(0, n);
    return;
  }
  std::vector<std::thread> threads;
  for (index_t p = 0; p < parts; ++p) {
    const index_t b = n * p / parts, e = n * (p + 1) / parts;
    threads.emplace_back([&fn, b, e] { fn(b, e); });
  }
  for (auto& t : threads) t.join();
}

}  // namespace ctrl::loop
