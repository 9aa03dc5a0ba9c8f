// A queue with a dedicated thread: the host returns from submit() at once and the thread runs
// the tasks in order. Used by kinds whose execution needs a host thread (CPU cores, offload).
#pragma once
#include "device.hpp"
#include "spin_wait.hpp"

#include <atomic>
#include <deque>
#include <mutex>
#include <thread>

namespace ctrl::detail {

class ThreadQueue final : public Queue {
 public:
  ThreadQueue() = default;
  ~ThreadQueue() override;  // runs what is queued, then joins

  void start(std::function<void()> on_thread_start) override;
  std::uint64_t submit(Task task) override;
  std::uint64_t last_ticket() const override { return submitted_.load(); }
  void wait(std::uint64_t ticket) override;
  std::exception_ptr take_error(std::uint64_t& failures) override;

 private:
  void loop(const std::function<void()>& on_thread_start);

  std::mutex tasks_mutex_;
  std::deque<Task> tasks_;
  std::atomic<std::uint64_t> submitted_{0};
  std::atomic<std::uint64_t> completed_{0};
  std::atomic<bool> stopping_{false};
  SpinWait work_;  // the queue thread waits for tasks
  SpinWait done_;  // hosts wait for completion

  std::mutex error_mutex_;
  std::exception_ptr error_;
  std::uint64_t failures_ = 0;

  std::thread thread_;
};

}  // namespace ctrl::detail
