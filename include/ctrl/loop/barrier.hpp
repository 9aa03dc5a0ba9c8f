// A barrier for the processors of one round that a failing member breaks: the others leave it
// with an error instead of waiting for a member that will never come (a device error in one
// block must not hang the round). What a Problem whose blocks meet during a run uses: halo
// exchanges (Divisible), the redistribution between the phases of fft2d-whole.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

namespace ctrl::loop {

class Barrier {
 public:
  // `what` names the meeting in the error the others get ("halo exchange").
  explicit Barrier(std::string what) : what_(std::move(what)) {}
  // Before a round: `members` will call wait(); clears a break.
  void reset(std::size_t members);
  // Returns when every member has called it; DeviceError when the barrier is (or gets) broken.
  void wait();
  // Called by a member that failed: every wait() now and later (until reset) throws.
  void break_it();

 private:
  std::string what_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::size_t members_ = 0, waiting_ = 0;
  std::uint64_t generation_ = 0;
  bool broken_ = false;
};

}  // namespace ctrl::loop
