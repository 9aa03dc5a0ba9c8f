// A pool of workers pinned one per core. The thread that calls run() is worker 0 (the
// controller's queue thread, pinned to the first core); the others are helper threads that spin
// briefly and then sleep between jobs.
#pragma once
#include "../core/spin_wait.hpp"

#include <atomic>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ctrl::detail {

class WorkerPool {
 public:
  explicit WorkerPool(std::vector<int> cores);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int size() const { return static_cast<int>(cores_.size()); }
  const std::vector<int>& cores() const { return cores_; }

  // Pins the calling thread to the first core: it becomes worker 0.
  void bind_caller();
  // Runs job(w) on every worker w and returns when all have finished; rethrows the first
  // exception a worker threw. Only worker 0's thread calls it.
  void run(const std::function<void(int)>& job);

 private:
  void helper(int w);
  void record(std::exception_ptr e);

  std::vector<int> cores_;
  std::vector<std::thread> helpers_;
  std::atomic<std::uint64_t> epoch_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stopping_{false};
  const std::function<void(int)>* job_ = nullptr;
  SpinWait start_, finish_;
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

}  // namespace ctrl::detail
