// A queue with a dedicated thread: the host returns from submit() at once and the thread runs
// the tasks in order. Used by kinds whose execution needs a host thread (CPU cores, offload).
//
// The fast path of a synchronous launch (docs/model.md, "Launch cost on CPU cores"): a task
// submitted to an idle queue is not handed to the queue thread at once when a waiter may run it
// and a watcher (an idle worker of the kind's pool, which spins anyway) will hand it over if no
// waiter comes within Handoff::grace. wait() then runs it on the waiting thread: no thread
// crossing, no wake-up. One thread at a time runs tasks (the runner), in ticket order, so launch
// order and error reporting are those of the queue thread.
#pragma once
#include "device.hpp"
#include "spin_wait.hpp"

#include <atomic>
#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

namespace ctrl::detail {

// The state that a queue's waiters, its thread and its watchers share. Held by shared_ptr: a
// watcher (a pool helper) may poll it for a few spins after the queue is gone.
class Handoff {
 public:
  // How long a task submitted to an idle queue is left for a waiter to run, from when a watcher
  // first sees it, before a watcher hands it to the queue thread: longer than a host takes from
  // launch() to wait(), short next to a kernel worth running asynchronously. The watchers time
  // it, not the submitter: a launch reads no clock.
  static constexpr std::chrono::nanoseconds grace{5000};

  // A watcher is a thread that spins idle next to the queue (a CPU kind's pool helper; several
  // may watch at once). watch() says it spins; unwatch() (one per watch()) says it is about to
  // sleep, stop or stand aside, and the last watcher to leave hands over what is left. It does
  // not unwatch while it works: it works only for a runner, and a runner hands over what is left
  // when it stops. poll(), called now and then while spinning (by any helper), hands over a task
  // seen left longer than grace. A watcher counts itself once per idle spell, not once per launch: a
  // launch adds no read-modify-write of the count.
  //
  // A task is left for a waiter only on an idle queue, after the pool's last job: none is older
  // than the watcher's idle spell. A watcher therefore starts polling only grace after its spell
  // began, so that in a run of launch + wait it reads none of the lines the host thread writes at
  // every launch (each read there would make the host's next write wait for the line). A task
  // nobody waits for thus starts between grace and twice grace (plus a few spins) after launch.
  void watch() { watchers_.fetch_add(1); }
  void unwatch();
  void poll();
  static std::int64_t clock_ns();  // the steady clock, as poll() reads it

 private:
  friend class ThreadQueue;
  bool unhanded() const;
  void hand_over();  // the queue thread runs every task submitted so far

  // One cache line per writer: the submitter, the runner, the rest (rarely written). Watchers
  // only read them, and only now and then.
  alignas(64) std::atomic<std::uint64_t> submitted_{0};
  alignas(64) std::atomic<std::uint64_t> completed_{0};
  std::atomic<bool> running_{false};                  // a runner (the queue thread or a waiter) holds the tasks
  alignas(64) std::atomic<std::uint64_t> handed_{0};  // tasks the queue thread runs without waiting for a waiter
  std::atomic<int> watchers_{0};
  std::atomic<bool> stopping_{false};
  SpinWait work_;  // the queue thread waits for handed tasks
  SpinWait done_;  // hosts wait for completion, or for the runner's place
  // The last ticket a watcher's poll() found left for a waiter, and when (clock_ns()): written by
  // the watchers only, once grace has passed since their last job.
  alignas(64) std::atomic<std::uint64_t> seen_ticket_{0};
  std::atomic<std::int64_t> seen_at_{0};
};

class ThreadQueue final : public Queue {
 public:
  // Without a waiter_may_run test, every task goes to the queue thread.
  ThreadQueue() : ThreadQueue(std::make_shared<Handoff>(), {}) {}
  // waiter_may_run: whether the calling thread may run tasks itself (it takes the place of the
  // kind's worker on its core); a watcher of `handoff` makes a waiter's run possible (see the top
  // of this file).
  ThreadQueue(std::shared_ptr<Handoff> handoff, std::function<bool()> waiter_may_run)
      : h_(std::move(handoff)), waiter_may_run_(std::move(waiter_may_run)) {}
  ~ThreadQueue() override;  // runs what is queued, then joins

  void start(std::function<void()> on_thread_start) override;
  std::uint64_t submit(Task task) override;
  std::uint64_t last_ticket() const override { return h_->submitted_.load(); }
  void wait(std::uint64_t ticket) override;
  std::exception_ptr take_error(std::uint64_t& failures) override;

 private:
  void loop(const std::function<void()>& on_thread_start);
  bool try_become_runner();
  void stop_running();
  void run_next();  // the runner runs the oldest task

  std::shared_ptr<Handoff> h_;
  std::function<bool()> waiter_may_run_;
  std::mutex tasks_mutex_;
  std::deque<Task> tasks_;

  std::atomic<bool> failed_{false};  // error_ is set: take_error() takes the lock only then (at every wait)
  std::mutex error_mutex_;
  std::exception_ptr error_;
  std::uint64_t failures_ = 0;

  std::thread thread_;
};

}  // namespace ctrl::detail
