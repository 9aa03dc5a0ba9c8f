// A pool of workers pinned one per core. The thread that calls run() (the runner) takes one
// worker's share: the controller's queue thread, pinned to the first core, takes worker 0's; a
// host thread that waits on the controller and runs its launch itself (thread_queue.hpp) takes the
// share of the worker whose core it is on, as an OpenMP master thread is thread 0 wherever it
// runs. Helper threads run the other shares; they spin briefly and then sleep between jobs. A
// fork/join costs what an OpenMP parallel region does: one line that the helpers spin on (the
// generation, the runner's worker and the job), one count of the shares the helpers finished,
// which only they write, no allocation (docs/model.md, "Launch cost on CPU cores").
#pragma once
#include "../core/spin_wait.hpp"
#include "../core/thread_queue.hpp"

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <type_traits>
#include <vector>

namespace ctrl::detail {

// A job borrowed for the length of one run(): a callable on the caller's stack, no allocation.
class JobRef {
 public:
  JobRef() = default;
  template <class F, class = std::enable_if_t<!std::is_same_v<std::remove_cvref_t<F>, JobRef>>>
  JobRef(const F& f)  // NOLINT(google-explicit-constructor): run([&](int w) {...}) reads best
      : self_(&f), call_([](const void* s, int w) { (*static_cast<const F*>(s))(w); }) {}
  void operator()(int worker) const { call_(self_, worker); }

 private:
  const void* self_ = nullptr;
  void (*call_)(const void*, int) = nullptr;
};

class WorkerPool {
 public:
  // handoff: the controller's queue, which idle helpers watch (may be null: nothing to watch).
  // roaming: run() may be called from any of the cores (a waiting host thread, on a controller of
  // every core the process may use); the pool then has a helper on the first core too, which runs
  // worker 0's share while the runner is elsewhere. Otherwise the runner always takes worker 0's.
  WorkerPool(std::vector<int> cores, std::shared_ptr<Handoff> handoff, bool roaming);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int size() const { return static_cast<int>(cores_.size()); }
  const std::vector<int>& cores() const { return cores_; }
  bool roaming() const { return roaming_; }

  // Pins the calling thread to the first core: it takes worker 0's share.
  void bind_caller();
  // The worker of the core the calling thread is on now, or -1 where that core is not the pool's.
  int worker_here() const;
  // Runs job(w) for every worker w and returns when all have finished; rethrows the first
  // exception a share threw. The caller runs the share of the worker whose core it is on (a
  // roaming pool) or worker 0's, and that worker's helper stands aside for this job: each share
  // runs once, and the helper does not spin on the caller's core. One thread at a time calls it
  // (the queue's runner); it may move to another core meanwhile (only the speed changes).
  //
  // A job that can be copied byte for byte and is small (a lambda holding a few pointers and
  // numbers: CpuExecution's static launch) is copied onto the line the helpers spin on, beside
  // the word that starts it: a helper then finds what it points to at once (the launch's body,
  // its grid) instead of first reading the job from the runner's stack, one cache miss fewer
  // before the share starts. Larger jobs are read where they are.
  static constexpr std::size_t inline_align = 8, inline_bytes = 40;
  template <class F>
  static constexpr bool copied_onto_line = std::is_trivially_copyable_v<F> && sizeof(F) <= inline_bytes &&
                                           alignof(F) <= inline_align;
  template <class F>
  void run(const F& job) {
    if constexpr (copied_onto_line<F>) {
      run_job(JobRef(*::new (static_cast<void*>(line_.inline_job)) F(job)));
    } else {
      run_job(JobRef(job));
    }
  }

 private:
  // The word the helpers wait on: a generation above the runner's worker. One atomic, so that a
  // helper reads which job is new and whose share the runner took at once.
  static constexpr int worker_bits = 16;
  static std::uint64_t worker_of(std::uint64_t word) { return word & ((std::uint64_t{1} << worker_bits) - 1); }
  static std::uint64_t generation_of(std::uint64_t word) { return word >> worker_bits; }
  // Returns the word published.
  std::uint64_t publish(int runner);
  // How many shares the helpers have finished once every job up to `word`'s has: size() - 1 a job
  // (every helper but the one standing aside, or every helper of a pool that does not roam).
  std::uint64_t arrivals_by(std::uint64_t word) const {
    return generation_of(word) * static_cast<std::uint64_t>(size() - 1);
  }

  void run_job(JobRef job);
  void helper(int w);
  void stop_helpers();  // every helper returns (the destructor, or a helper that could not start)
  std::uint64_t wait_for_job(std::uint64_t seen, bool& watching);
  void stand_aside(int w, bool& watching);
  void record(std::exception_ptr e);

  std::vector<int> cores_;
  std::vector<int> worker_of_core_;  // indexed by core number: -1 where the core is not the pool's
  std::shared_ptr<Handoff> handoff_;
  bool roaming_;
  int first_helper_;     // 0 in a roaming pool of several cores, else 1
  int last_runner_ = 0;  // the worker whose share the previous run()'s caller took (runner only)
  std::vector<std::thread> helpers_;
  std::unique_ptr<SpinWait[]> aside_;  // per worker: where its helper sleeps while it stands aside

  std::atomic<bool> stopping_{false};  // read by the helpers at each job, written once
  // The word and the job (a copy: the helpers read no line of the runner's stack to find it,
  // and a small job itself) on a line of their own, written by the runner only, read by every
  // helper. The helpers' count of finished shares on another, written by the helpers only: it
  // only grows, so the runner does not reset it before a job (a store that would first take the
  // line back from the helpers).
  struct alignas(64) Line {
    std::atomic<std::uint64_t> epoch{0};
    JobRef job;
    alignas(inline_align) unsigned char inline_job[inline_bytes];
  };
  static_assert(sizeof(Line) == 64, "the word and the job fill one cache line");
  Line line_;
  alignas(64) std::atomic<std::uint64_t> arrived_{0};
  alignas(64) SpinWait start_{SpinWait::partner_elsewhere};
  SpinWait finish_{SpinWait::partner_elsewhere};
  std::atomic<bool> failed_{false};  // error_ is set: run() takes the lock only then
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

}  // namespace ctrl::detail
