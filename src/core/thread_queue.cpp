#include "thread_queue.hpp"

#include <ctrl/detail/start_threads.hpp>

#include <utility>

namespace ctrl::detail {

std::int64_t Handoff::clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Submitted, not finished, not handed to the queue thread, and no runner that would hand it over
// when it stops.
bool Handoff::unhanded() const {
  const std::uint64_t s = submitted_.load();
  return s > handed_.load() && s > completed_.load() && !running_.load();
}

void Handoff::hand_over() {
  const std::uint64_t s = submitted_.load();
  std::uint64_t h = handed_.load();
  while (h < s) {
    if (handed_.compare_exchange_weak(h, s)) {
      work_.notify();
      return;
    }
  }
}

void Handoff::poll() {
  if (!unhanded()) return;
  const std::uint64_t ticket = submitted_.load();
  const std::int64_t now = clock_ns();
  if (seen_ticket_.load() != ticket) {
    // First seen now. Two watchers may both stamp it: the task is only handed over a little later.
    seen_at_.store(now);
    seen_ticket_.store(ticket);
  } else if (now - seen_at_.load() >= grace.count()) {
    hand_over();
  }
}

void Handoff::unwatch() {
  // Pairs with submit(): it stores the ticket and then reads watchers_; the last watcher to leave
  // counts itself out and then reads the tickets. One of the two sees the other, so a task is never
  // left with nobody to hand it over.
  if (watchers_.fetch_sub(1) == 1 && unhanded()) hand_over();
}

void ThreadQueue::start(std::function<void()> on_thread_start) {
  thread_ = start_thread<std::thread>("the queue thread of a controller",
                                      [this, f = std::move(on_thread_start)] { loop(f); });
}

ThreadQueue::~ThreadQueue() {
  h_->stopping_.store(true);
  h_->hand_over();
  h_->work_.notify();
  if (thread_.joinable()) thread_.join();
}

std::uint64_t ThreadQueue::submit(Task task) {
  Handoff& h = *h_;
  std::uint64_t ticket;
  {
    std::lock_guard lock(tasks_mutex_);
    tasks_.push_back(std::move(task));
    ticket = h.submitted_.load() + 1;
    h.submitted_.store(ticket);
  }
  // Left for a waiter only when nothing else is queued (else the runner is busy and this task
  // follows the others) and a watcher will hand it over if nobody waits.
  const bool idle = h.completed_.load() + 1 == ticket;
  if (!(waiter_may_run_ && idle && h.watchers_.load() > 0)) h.hand_over();
  return ticket;
}

bool ThreadQueue::try_become_runner() { return !h_->running_.load() && !h_->running_.exchange(true); }

void ThreadQueue::stop_running() {
  Handoff& h = *h_;
  h.running_.store(false);
  // Tasks submitted meanwhile by other threads, which nobody else may be watching: the queue
  // thread runs them (it may be waiting for the runner's place).
  if (h.submitted_.load() > h.completed_.load()) {
    h.hand_over();
    h.work_.notify();
  }
  h.done_.notify();
}

void ThreadQueue::run_next() {
  Task task;
  {
    std::lock_guard lock(tasks_mutex_);
    task = std::move(tasks_.front());
    tasks_.pop_front();
  }
  try {
    task();
  } catch (...) {
    // Later tasks still run: the coherence record was settled at submission, so skipping
    // copies would leave it wrong. The failure is reported at the next wait or detach.
    std::lock_guard lock(error_mutex_);
    if (!error_) error_ = std::current_exception();
    ++failures_;
    failed_.store(true);
  }
  h_->completed_.store(h_->completed_.load() + 1);  // only the runner writes it
  h_->done_.notify();
}

void ThreadQueue::wait(std::uint64_t ticket) {
  Handoff& h = *h_;
  if (h.completed_.load() >= ticket) return;
  const bool may_run = waiter_may_run_ && waiter_may_run_();
  if (!may_run && h.handed_.load() < ticket) h.hand_over();
  while (h.completed_.load() < ticket) {
    if (may_run && try_become_runner()) {
      // The waiter runs the tasks up to its own, in order, as the queue thread would have.
      while (h.completed_.load() < ticket) run_next();
      stop_running();
      return;
    }
    h.done_.wait([&] { return h.completed_.load() >= ticket || (may_run && !h.running_.load()); });
  }
}

std::exception_ptr ThreadQueue::take_error(std::uint64_t& failures) {
  if (!failed_.load()) {
    failures = 0;
    return nullptr;
  }
  std::lock_guard lock(error_mutex_);
  failures = failures_;
  failures_ = 0;
  failed_.store(false);
  return std::exchange(error_, nullptr);
}

void ThreadQueue::loop(const std::function<void()>& on_thread_start) {
  if (on_thread_start) on_thread_start();
  Handoff& h = *h_;
  for (;;) {
    h.work_.wait([&] { return h.stopping_.load() || (h.handed_.load() > h.completed_.load() && !h.running_.load()); });
    if (try_become_runner()) {
      while (h.completed_.load() < h.handed_.load()) run_next();
      stop_running();
    }
    if (h.stopping_.load() && h.completed_.load() == h.submitted_.load()) return;
  }
}

}  // namespace ctrl::detail
