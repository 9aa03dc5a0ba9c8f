#include "pool.hpp"

#include <ctrl/detail/start_threads.hpp>

namespace ctrl::partition::detail {

Pool::Pool(unsigned threads) : failed_(threads < 1 ? 1 : threads) {
  if (threads <= 1) return;
  ctrl::detail::start_threads(
      workers_, threads - 1, [this](std::size_t k) { return [this, t = static_cast<unsigned>(k) + 1] { work(t); }; },
      [this] { stop(); }, "a worker of the partition programme");
}

Pool::~Pool() {
  stop();
  for (std::thread& th : workers_) th.join();
}

void Pool::stop() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
}

void Pool::work(unsigned t) {
  std::uint64_t seen = 0;
  for (;;) {
    std::unique_lock<std::mutex> lock(mutex_);
    start_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    if (t >= active_) continue;
    const Call call = call_;
    void* const body = body_;
    lock.unlock();
    try {
      call(body, t);
    } catch (...) {
      failed_[t] = std::current_exception();
    }
    lock.lock();
    if (--pending_ == 0) done_.notify_one();
  }
}

void Pool::dispatch(unsigned threads, Call call, void* body) {
  const unsigned T = threads < 1 ? 1 : (threads < size() ? threads : size());
  if (T > 1) {
    const std::lock_guard<std::mutex> lock(mutex_);
    call_ = call;
    body_ = body;
    active_ = T;
    pending_ = T - 1;
    ++generation_;
  }
  if (T > 1) start_.notify_all();
  try {
    call(body, 0);
  } catch (...) {
    failed_[0] = std::current_exception();
  }
  if (T > 1) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
  }
  for (unsigned t = 0; t < T; ++t)
    if (failed_[t]) {
      const std::exception_ptr e = failed_[t];
      for (auto& f : failed_) f = nullptr;
      std::rethrow_exception(e);
    }
}

}  // namespace ctrl::partition::detail
