// Private: the threads of the partition library: how many it may use, and a body run on several.
#pragma once
#include <ctrl/detail/start_threads.hpp>

#include <exception>
#include <thread>
#include <vector>

namespace ctrl::partition::detail {

// The cores this process may use (its CPU affinity, as a batch system sets it), at least 1: the
// threads the programmes use by default.
unsigned usable_cores() noexcept;

// The most threads DpOptions::threads and ApproxOptions::threads may ask for: usable_cores(),
// unless a RaisedThreadCap is in scope.
unsigned thread_cap() noexcept;

// Checks a number of threads asked for (0: the default, every usable core): more than
// thread_cap() is a UsageError naming both. Threads past the cores gain nothing, and enough of
// them take every process the system allows (ctrl pareto --threads 100000).
void check_threads(unsigned asked);

// Raises thread_cap() to `most` while it lives, for tests that check that a front does not depend
// on the number of threads with as many as a big node has, on a machine of fewer cores. One at a
// time, while no other thread computes a front.
class RaisedThreadCap {
 public:
  explicit RaisedThreadCap(unsigned most);
  ~RaisedThreadCap();
  RaisedThreadCap(const RaisedThreadCap&) = delete;
  RaisedThreadCap& operator=(const RaisedThreadCap&) = delete;

 private:
  unsigned before_;
};

// Runs body(0) .. body(threads - 1), each but the first on its own thread, and waits for all. An
// exception thrown by any body is rethrown here (the first thread's first), after all have ended;
// a thread that cannot be started is a ctrl::DeviceError (cannot_start_thread), thrown once those
// started have ended.
template <class F>
void parallel(unsigned threads, F&& body) {
  if (threads <= 1) {
    body(0u);
    return;
  }
  std::vector<std::exception_ptr> failed(threads);
  const auto guarded = [&](unsigned t) {
    try {
      body(t);
    } catch (...) {
      failed[t] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  ctrl::detail::start_threads(
      pool, threads - 1,
      [&guarded](std::size_t k) { return [&guarded, t = static_cast<unsigned>(k) + 1] { guarded(t); }; },
      "a thread of the partition programme");
  guarded(0u);
  for (std::thread& th : pool) th.join();
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
}

}  // namespace ctrl::partition::detail
