// Private: threads kept alive for the whole of one dynamic programme. The sweep has several
// parallel steps a level (bucketing the sources, the sweep, collecting its points) and the bounds
// a few a processor row; starting threads for each would cost more than the steps on small
// levels, so the workers wait between them instead.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ctrl::partition::detail {

class Pool {
 public:
  // `threads` - 1 workers; the calling thread is thread 0 of every run. A worker that cannot be
  // started is a ctrl::DeviceError (cannot_start_thread), thrown once those started have ended.
  explicit Pool(unsigned threads);
  ~Pool();
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  unsigned size() const noexcept { return static_cast<unsigned>(workers_.size()) + 1; }

  // Runs body(0) .. body(T - 1), T = min(threads, size()), and waits for all. An exception thrown
  // by any body is rethrown here (the lowest thread's), after all have ended.
  template <class F>
  void run(unsigned threads, F&& body) {
    dispatch(
        threads, [](void* f, unsigned t) { (*static_cast<F*>(f))(t); }, &body);
  }

  // Runs body(lo, hi) on `threads` contiguous slices of [0, count) (empty slices are skipped).
  template <class F>
  void slices(unsigned threads, std::size_t count, F&& body) {
    const unsigned T = threads < size() ? threads : size();
    run(T, [&](unsigned t) {
      const std::size_t lo = count * t / T, hi = count * (t + 1) / T;
      if (lo < hi) body(lo, hi);
    });
  }

 private:
  using Call = void (*)(void*, unsigned);
  void dispatch(unsigned threads, Call call, void* body);
  void work(unsigned t);
  void stop();  // every worker returns

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  std::uint64_t generation_ = 0;  // one a run
  unsigned active_ = 0;           // threads of the current run
  unsigned pending_ = 0;          // workers of the current run still busy
  bool stop_ = false;
  Call call_ = nullptr;
  void* body_ = nullptr;
  std::vector<std::exception_ptr> failed_;
};

}  // namespace ctrl::partition::detail
