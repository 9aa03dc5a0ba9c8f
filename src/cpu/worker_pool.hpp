// A pool of workers pinned one per core. The thread that calls run() is worker 0: the
// controller's queue thread (pinned to the first core), or a host thread that waits on the
// controller and runs its launch itself (thread_queue.hpp); the others are helper threads that
// spin briefly and then sleep between jobs. A fork/join costs what an OpenMP parallel region
// does: one generation counter that the helpers spin on, one counter of those still working, no
// allocation (docs/model.md, "Launch cost on CPU cores").
#pragma once
#include "../core/spin_wait.hpp"
#include "../core/thread_queue.hpp"

#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace ctrl::detail {

// A job borrowed for the length of one run(): a callable on the caller's stack, no allocation.
class JobRef {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::remove_cvref_t<F>, JobRef>>>
  JobRef(const F& f)  // NOLINT(google-explicit-constructor): run([&](int w) {...}) reads best
      : self_(&f), call_([](const void* s, int w) { (*static_cast<const F*>(s))(w); }) {}
  void operator()(int worker) const { call_(self_, worker); }

 private:
  const void* self_;
  void (*call_)(const void*, int);
};

class WorkerPool {
 public:
  // handoff: the controller's queue, which idle helpers watch (may be null: nothing to watch).
  WorkerPool(std::vector<int> cores, std::shared_ptr<Handoff> handoff);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int size() const { return static_cast<int>(cores_.size()); }
  const std::vector<int>& cores() const { return cores_; }

  // Pins the calling thread to the first core: it becomes worker 0.
  void bind_caller();
  // Runs job(w) on every worker w and returns when all have finished; rethrows the first
  // exception a worker threw. One thread at a time calls it (the queue's runner).
  void run(JobRef job);

 private:
  void helper(int w);
  void wait_for_job(int w, std::uint64_t seen);
  void record(std::exception_ptr e);

  std::vector<int> cores_;
  std::shared_ptr<Handoff> handoff_;
  std::vector<std::thread> helpers_;
  // The generation and the job on a line of their own, read by every helper; the count of
  // helpers still working on another, written by each.
  alignas(64) std::atomic<std::uint64_t> epoch_{0};
  std::atomic<bool> stopping_{false};
  const JobRef* job_ = nullptr;
  alignas(64) std::atomic<int> pending_{0};
  alignas(64) SpinWait start_;
  SpinWait finish_;
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

}  // namespace ctrl::detail
