// The calling thread's placement, for tests of what depends on the core a thread is on (a waiting
// host thread takes the share of the worker of its core): the cores this process may use, and a
// scope that pins the calling thread to one of them and gives it back its mask on leaving.
#pragma once
#include <sched.h>

#include <vector>

namespace ctrl::test {

// The cores in the calling thread's affinity mask, in increasing order.
inline std::vector<int> allowed_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cores;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cores;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cores.push_back(c);
  return cores;
}

// Pins the calling thread to `core` for the scope's length; pinned() is false where the system
// refused (a core the thread may not use), and the thread is then where it was.
class PinnedThread {
 public:
  explicit PinnedThread(int core) {
    CPU_ZERO(&saved_);
    if (sched_getaffinity(0, sizeof saved_, &saved_) != 0) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(core, &one);
    pinned_ = sched_setaffinity(0, sizeof one, &one) == 0;
  }
  ~PinnedThread() {
    if (pinned_) sched_setaffinity(0, sizeof saved_, &saved_);
  }
  PinnedThread(const PinnedThread&) = delete;
  PinnedThread& operator=(const PinnedThread&) = delete;

  bool pinned() const { return pinned_; }

 private:
  cpu_set_t saved_;
  bool pinned_ = false;
};

// Moves the calling thread to `core` (for a test that moves a thread in the middle of something):
// false where the system refused.
inline bool move_to_core(int core) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(core, &one);
  return sched_setaffinity(0, sizeof one, &one) == 0;
}

}  // namespace ctrl::test
