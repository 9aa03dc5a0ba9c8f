// Synchronisation between the test's host thread and kernels that run as host code (kinds of the
// CPU family only: these kernels have a cpu variant and no generic body, so they never reach a GPU).
// They prove orderings without timing anything: a kernel that waits for something that can only
// happen if the runtime behaves would deadlock otherwise, and the wait is bounded so that the test
// fails (the kernel throws, surfacing as a KernelError) instead of hanging.
#pragma once
#include <ctrl/ctrl.hpp>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace ctrl::test {

// Generous: only a broken runtime ever reaches it.
inline constexpr std::chrono::seconds deadlock_bound{30};

template <class Pred>
bool wait_until(Pred pred) {
  const auto give_up = std::chrono::steady_clock::now() + deadlock_bound;
  for (unsigned i = 0; !pred(); ++i) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    if (i < 1000)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

// The host opens it; kernels wait at it.
struct Gate {
  std::atomic<bool> open{false};
  std::atomic<int> reached{0};  // kernels that have started waiting
};

// Holds its controller's queue until the host opens the gate.
struct WaitAtGate {
  static constexpr const char* name = "wait_at_gate";
  void cpu(const CpuBlock& b, Gate* gate) const {
    if (b.worker != 0) return;
    gate->reached.fetch_add(1);
    if (!wait_until([&] { return gate->open.load(); })) throw std::runtime_error("the host never opened the gate");
  }
};

// Two (or more) kernels meet here: each arrives and waits until `expected` have arrived, which
// happens only if they run at the same time.
struct Rendezvous {
  std::atomic<int> arrived{0};
  int expected = 2;
};

inline void meet(Rendezvous* r) {
  r->arrived.fetch_add(1);
  if (!wait_until([&] { return r->arrived.load() >= r->expected; })) {
    throw std::runtime_error("rendezvous: the other kernel never arrived; the launches ran one after the other");
  }
}

}  // namespace ctrl::test
