#include "worker_pool.hpp"

#include "topology.hpp"

#include <ctrl/detail/start_threads.hpp>
#include <ctrl/errors.hpp>

#include <fmt/format.h>
#include <sched.h>

#include <utility>

namespace ctrl::detail {

WorkerPool::WorkerPool(std::vector<int> cores, std::shared_ptr<Handoff> handoff, bool roaming)
    : cores_(std::move(cores)),
      handoff_(std::move(handoff)),
      roaming_(roaming),
      first_helper_(roaming && cores_.size() > 1 ? 0 : 1),
      aside_(std::make_unique<SpinWait[]>(cores_.size())) {
  if (cores_.size() >= std::size_t{1} << worker_bits) {
    throw DeviceError(fmt::format("a CPU controller has at most {} workers, not {}", (1 << worker_bits) - 1, size()));
  }
  for (int w = 0; w < size(); ++w) {
    const auto core = static_cast<std::size_t>(cores_[static_cast<std::size_t>(w)]);
    if (core >= worker_of_core_.size()) worker_of_core_.resize(core + 1, -1);
    worker_of_core_[core] = w;
  }
  start_threads(
      helpers_, static_cast<std::size_t>(size() - first_helper_),
      [this](std::size_t k) { return [this, w = first_helper_ + static_cast<int>(k)] { helper(w); }; },
      [this] { stop_helpers(); }, fmt::format("a helper of the CPU workers on cores {}", format_cores(cores_)));
}

WorkerPool::~WorkerPool() {
  stop_helpers();
  for (auto& t : helpers_) t.join();
}

void WorkerPool::stop_helpers() {
  stopping_.store(true);
  publish(0);
  start_.notify();
  for (int w = 0; w < size(); ++w) aside_[w].notify();
}

void WorkerPool::bind_caller() { pin_current_thread(cores_.front()); }

int WorkerPool::worker_here() const {
  const int core = sched_getcpu();  // a vDSO or rseq read, no system call
  if (core < 0 || static_cast<std::size_t>(core) >= worker_of_core_.size()) return -1;
  return worker_of_core_[static_cast<std::size_t>(core)];
}

void WorkerPool::record(std::exception_ptr e) {
  std::lock_guard lock(error_mutex_);
  if (!error_) error_ = std::move(e);
  failed_.store(true);
}

// Only the runner (or the destructor, once no runner is left) writes the word.
std::uint64_t WorkerPool::publish(int runner) {
  const std::uint64_t word =
      (generation_of(line_.epoch.load()) + 1) << worker_bits | static_cast<std::uint64_t>(runner);
  line_.epoch.store(word);
  return word;
}

void WorkerPool::run_job(JobRef job) {
  // Where the caller is on none of the cores (it moved since it was let run), it takes worker 0's
  // share: the result is the same, only that share runs off its core.
  const int here = roaming_ && size() > 1 ? worker_here() : 0;
  const int runner = here < 0 ? 0 : here;
  line_.job = job;
  const std::uint64_t word = publish(runner);  // publishes the job to the helpers
  start_.notify();
  // The helper that stood aside for the previous caller has a share again; it sleeps until told.
  if (runner != last_runner_) {
    aside_[last_runner_].notify();
    last_runner_ = runner;
  }
  try {
    job(runner);
  } catch (...) {
    record(std::current_exception());
  }
  const std::uint64_t all_done = arrivals_by(word);
  if (size() > 1) finish_.wait([&] { return arrived_.load() >= all_done; });
  if (!failed_.load()) return;
  std::exception_ptr e;
  {
    std::lock_guard lock(error_mutex_);
    e = std::exchange(error_, nullptr);
    failed_.store(false);
  }
  if (e) std::rethrow_exception(e);
}

// Between jobs a helper spins, and while it spins it watches the controller's queue: a launch
// left there for a waiter that never comes goes to the queue thread (thread_queue.hpp). Every
// spinning helper watches; one stops watching only when it is about to sleep (or to stand aside),
// and the last one to stop hands over what is left. Every helper polls, every poll_every spins
// once grace has passed since its last job (no launch left for a waiter is older than that): one
// of them is running whatever the load, and in a run of launch + wait none touches the queue.
// Returns the word that ended the wait.
std::uint64_t WorkerPool::wait_for_job(std::uint64_t seen, bool& watching) {
  std::uint64_t word = seen;
  Handoff* h = handoff_.get();
  if (!h) {
    start_.wait([&] { return (word = line_.epoch.load()) != seen; });
    return word;
  }
  constexpr unsigned poll_every = 32;  // the queue's state is read now and then, not fought over
  unsigned spins = 0;
  bool spinning = true;
  const std::int64_t poll_from = Handoff::clock_ns() + Handoff::grace.count();
  bool polling = false;
  if (!watching) {
    h->watch();
    watching = true;
  }
  start_.wait(
      [&] {
        if (spinning && ++spins % poll_every == 0 && (polling || (polling = Handoff::clock_ns() >= poll_from))) {
          h->poll();
        }
        return (word = line_.epoch.load()) != seen;
      },
      [&] {
        spinning = false;
        h->unwatch();
        watching = false;
      });
  return word;
}

// The runner took this worker's share, on this worker's core: the helper sleeps at once (spinning
// would take the core from the runner) until a runner takes another worker's share. A runner
// cannot publish the job after that one without this helper, so no job is missed.
void WorkerPool::stand_aside(int w, bool& watching) {
  if (watching) {
    handoff_->unwatch();
    watching = false;
  }
  const auto mine = static_cast<std::uint64_t>(w);
  aside_[w].wait([&] { return stopping_.load() || worker_of(line_.epoch.load()) != mine; }, [] {}, 0);
}

void WorkerPool::helper(int w) {
  try {
    pin_current_thread(cores_[static_cast<std::size_t>(w)]);
  } catch (...) {
    record(std::current_exception());  // surfaces with the first job; the worker still runs unpinned
  }
  std::uint64_t seen = 0;
  bool watching = false;
  for (;;) {
    seen = wait_for_job(seen, watching);
    if (stopping_.load()) break;
    if (worker_of(seen) == static_cast<std::uint64_t>(w)) {
      stand_aside(w, watching);  // the job is not this helper's to join: the runner counts it out
      continue;
    }
    try {
      line_.job(w);
    } catch (...) {
      record(std::current_exception());
    }
    if (arrived_.fetch_add(1) + 1 == arrivals_by(seen)) finish_.notify();  // the job's last share
  }
  if (watching) handoff_->unwatch();  // a watcher that stops hands over too
}

}  // namespace ctrl::detail
