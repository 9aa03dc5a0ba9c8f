#include <ctrl/loop/barrier.hpp>

#include <ctrl/errors.hpp>

namespace ctrl::loop {

void Barrier::reset(std::size_t members) {
  std::lock_guard lock(mutex_);
  members_ = members;
  waiting_ = 0;
  broken_ = false;
}

void Barrier::wait() {
  std::unique_lock lock(mutex_);
  if (broken_) throw DeviceError(what_ + ": another processor of the run failed");
  const std::uint64_t gen = generation_;
  if (++waiting_ == members_) {
    waiting_ = 0;
    ++generation_;
    cv_.notify_all();
    return;
  }
  cv_.wait(lock, [&] { return generation_ != gen || broken_; });
  if (generation_ == gen) throw DeviceError(what_ + ": another processor of the run failed");
}

void Barrier::break_it() {
  std::lock_guard lock(mutex_);
  broken_ = true;
  cv_.notify_all();
}

}  // namespace ctrl::loop
