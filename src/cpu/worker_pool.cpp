#include "worker_pool.hpp"

#include "topology.hpp"

#include <utility>

namespace ctrl::detail {

WorkerPool::WorkerPool(std::vector<int> cores) : cores_(std::move(cores)) {
  for (int w = 1; w < size(); ++w) helpers_.emplace_back([this, w] { helper(w); });
}

WorkerPool::~WorkerPool() {
  stopping_.store(true);
  epoch_.fetch_add(1);
  start_.notify();
  for (auto& t : helpers_) t.join();
}

void WorkerPool::bind_caller() { pin_current_thread(cores_.front()); }

void WorkerPool::record(std::exception_ptr e) {
  std::lock_guard lock(error_mutex_);
  if (!error_) error_ = std::move(e);
}

void WorkerPool::run(const std::function<void(int)>& job) {
  job_ = &job;
  pending_.store(size() - 1);
  epoch_.fetch_add(1);  // publishes job_ to the helpers
  start_.notify();
  try {
    job(0);
  } catch (...) {
    record(std::current_exception());
  }
  finish_.wait([&] { return pending_.load() == 0; });
  job_ = nullptr;
  std::exception_ptr e;
  {
    std::lock_guard lock(error_mutex_);
    e = std::exchange(error_, nullptr);
  }
  if (e) std::rethrow_exception(e);
}

void WorkerPool::helper(int w) {
  try {
    pin_current_thread(cores_[static_cast<std::size_t>(w)]);
  } catch (...) {
    record(std::current_exception());  // surfaces with the first job; the worker still runs unpinned
  }
  std::uint64_t seen = 0;
  for (;;) {
    start_.wait([&] { return epoch_.load() != seen; });
    seen = epoch_.load();
    if (stopping_.load()) return;
    try {
      (*job_)(w);
    } catch (...) {
      record(std::current_exception());
    }
    if (pending_.fetch_sub(1) == 1) finish_.notify();
  }
}

}  // namespace ctrl::detail
