// Spin-then-park waiting: a waiter spins briefly (launch latency stays near an OpenMP barrier's)
// and then sleeps on a condition variable, so idle controllers cost no CPU. notify() takes no
// lock unless someone sleeps.
#pragma once
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace ctrl::detail {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

class SpinWait {
 public:
  // Busy spinning catches a partner running on another core; a periodic yield lets a partner
  // that shares this core (an oversubscribed machine) run; after that the waiter parks.
  static constexpr int yield_every = 64;
  static constexpr int default_spins = 4000;
  // A wait whose partner is on another core by design (a pool's helpers and its runner: the
  // helper of the runner's core stands aside) yields only after its first partner_elsewhere
  // spins, as an OpenMP thread at a barrier only pauses: a yield is a system call, 1-2 µs in a
  // virtual machine with page-table isolation (more than a whole fork/join), and a partner that
  // comes while the waiter is inside one is seen that much later. Yielding every 64 spins keeps a
  // waiting helper in the kernel for a good part of its wait where 64 pauses take about as long
  // as a yield (bench/results/cpu-launch.md). Waits whose partner may share the core (the queue
  // thread, pinned beside a pool helper, and a host thread that waits for it) yield from the start.
  static constexpr int partner_elsewhere = 512;

  SpinWait() = default;
  explicit SpinWait(int pure_spins) : pure_spins_(pure_spins) {}

  // Waits until pred() holds. pred must read the state with sequentially consistent atomics, and
  // the notifier must store it the same way before calling notify(). before_sleep() runs once,
  // when spinning is over and the waiter is about to park (a pool helper stops watching its
  // queue there: thread_queue.hpp).
  template <class Pred, class BeforeSleep>
  void wait(Pred pred, BeforeSleep before_sleep, int spins = default_spins) {
    for (int i = 0; i < spins; ++i) {
      if (pred()) return;
      if (i >= pure_spins_ && i % yield_every == yield_every - 1)
        std::this_thread::yield();
      else
        cpu_relax();
    }
    before_sleep();
    std::unique_lock lock(mutex_);
    sleepers_.fetch_add(1);
    while (!pred()) cv_.wait(lock);
    sleepers_.fetch_sub(1);
  }
  template <class Pred>
  void wait(Pred pred) {
    wait(pred, [] {});
  }

  void notify() {
    if (sleepers_.load() > 0) {
      std::lock_guard lock(mutex_);
      cv_.notify_all();
    }
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::atomic<int> sleepers_{0};
  int pure_spins_ = 0;  // spins before the first yield
};

}  // namespace ctrl::detail
