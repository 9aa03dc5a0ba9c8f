#include "worker_pool.hpp"

#include "topology.hpp"

#include <utility>

namespace ctrl::detail {

WorkerPool::WorkerPool(std::vector<int> cores, std::shared_ptr<Handoff> handoff)
    : cores_(std::move(cores)), handoff_(std::move(handoff)) {
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

void WorkerPool::run(JobRef job) {
  job_ = &job;
  pending_.store(size() - 1);
  epoch_.fetch_add(1);  // publishes job_ to the helpers
  start_.notify();
  try {
    job(0);
  } catch (...) {
    record(std::current_exception());
  }
  if (size() > 1) finish_.wait([&] { return pending_.load() == 0; });
  job_ = nullptr;
  std::exception_ptr e;
  {
    std::lock_guard lock(error_mutex_);
    e = std::exchange(error_, nullptr);
  }
  if (e) std::rethrow_exception(e);
}

// Between jobs a helper spins, and while it spins it watches the controller's queue: a launch
// left there for a waiter that never comes goes to the queue thread (thread_queue.hpp). The first
// helper is the watcher; it stops watching only when it is about to sleep, handing over what is
// left. Every helper polls, every poll_every spins: one of them is running whatever the load.
void WorkerPool::wait_for_job(int w, std::uint64_t seen) {
  Handoff* h = handoff_.get();
  if (!h) {
    start_.wait([&] { return epoch_.load() != seen; });
    return;
  }
  constexpr unsigned poll_every = 32;  // the queue's state is read now and then, not fought over
  unsigned spins = 0;
  bool spinning = true;
  if (w == 1) h->watch();
  start_.wait(
      [&] {
        if (spinning && ++spins % poll_every == 0) h->poll();
        return epoch_.load() != seen;
      },
      [&] {
        spinning = false;
        if (w == 1) h->unwatch();
      });
  if (w == 1 && stopping_.load()) h->unwatch();  // a watcher that stops hands over too
}

void WorkerPool::helper(int w) {
  try {
    pin_current_thread(cores_[static_cast<std::size_t>(w)]);
  } catch (...) {
    record(std::current_exception());  // surfaces with the first job; the worker still runs unpinned
  }
  std::uint64_t seen = 0;
  for (;;) {
    wait_for_job(w, seen);
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
