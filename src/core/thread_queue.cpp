#include "thread_queue.hpp"

#include <utility>

namespace ctrl::detail {

void ThreadQueue::start(std::function<void()> on_thread_start) {
  thread_ = std::thread([this, f = std::move(on_thread_start)] { loop(f); });
}

ThreadQueue::~ThreadQueue() {
  stopping_.store(true);
  work_.notify();
  if (thread_.joinable()) thread_.join();
}

std::uint64_t ThreadQueue::submit(Task task) {
  std::uint64_t ticket;
  {
    std::lock_guard lock(tasks_mutex_);
    tasks_.push_back(std::move(task));
    ticket = submitted_.load() + 1;
    submitted_.store(ticket);
  }
  work_.notify();
  return ticket;
}

void ThreadQueue::wait(std::uint64_t ticket) {
  done_.wait([&] { return completed_.load() >= ticket; });
}

std::exception_ptr ThreadQueue::take_error(std::uint64_t& failures) {
  std::lock_guard lock(error_mutex_);
  failures = failures_;
  failures_ = 0;
  return std::exchange(error_, nullptr);
}

void ThreadQueue::loop(const std::function<void()>& on_thread_start) {
  if (on_thread_start) on_thread_start();
  std::uint64_t taken = 0;
  for (;;) {
    work_.wait([&] { return submitted_.load() > taken || stopping_.load(); });
    if (submitted_.load() == taken) {
      if (stopping_.load()) return;
      continue;
    }
    Task task;
    {
      std::lock_guard lock(tasks_mutex_);
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    ++taken;
    try {
      task();
    } catch (...) {
      // Later tasks still run: the coherence record was settled at submission, so skipping
      // copies would leave it wrong. The failure is reported at the next wait or detach.
      std::lock_guard lock(error_mutex_);
      if (!error_) error_ = std::current_exception();
      ++failures_;
    }
    completed_.store(taken);
    done_.notify();
  }
}

}  // namespace ctrl::detail
