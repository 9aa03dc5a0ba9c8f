// What an Event handle shares (include/ctrl/event.hpp): whether the recording controller's queue
// has reached it, and how a waiter on another controller learns so. The recording queue either
// sets the flag (a task of its own) or gives a way to poll its device (a CUDA event, which a CUDA
// waiter also waits for on its streams).
#pragma once
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

namespace ctrl::detail {

struct EventState {
  enum class State { pending, reached, abandoned };

  std::string controller;          // the recording controller's name
  std::uint64_t number = 0;        // its events, from 1
  const void* recorder = nullptr;  // its core: an event of the waiter itself is already in order

  // A CUDA event recorded on the recorder's streams (null: none).
  void* cuda_event = nullptr;
  // Polls the device (null: the flag only): 1 reached, 0 not yet, -1 failed.
  std::function<int()> poll;
  std::function<void()> release;  // frees cuda_event

  EventState() = default;
  EventState(const EventState&) = delete;
  EventState& operator=(const EventState&) = delete;
  ~EventState();

  void set(State s);  // pending -> s (later calls change nothing)
  bool reached();
  // Whether it is still pending (neither reached nor abandoned), polling the device if any.
  bool pending();
  // Blocks the calling thread (a waiter's queue) until reached. DeviceError naming `waiter` when
  // abandoned, when the device reports a failure, or after event_timeout_s.
  void block(const std::string& waiter);
  std::string what() const;  // "event #3 of controller cuda:0"

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  State state_ = State::pending;
};

}  // namespace ctrl::detail
