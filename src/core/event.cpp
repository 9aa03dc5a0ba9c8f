// Events between controllers (docs/model.md, "Events between controllers").
#include "controller_core.hpp"
#include "event_state.hpp"

#include <ctrl/event.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace ctrl {

std::string Event::controller() const { return state_ ? state_->controller : std::string(); }
bool Event::reached() const { return state_ && state_->reached(); }

namespace detail {

EventState::~EventState() {
  if (release) release();
}

std::string EventState::what() const { return fmt::format("event #{} of controller {}", number, controller); }

void EventState::set(State s) {
  {
    std::lock_guard lock(mutex_);
    if (state_ != State::pending) return;
    state_ = s;
  }
  cv_.notify_all();
}

bool EventState::pending() {
  {
    std::lock_guard lock(mutex_);
    if (state_ != State::pending) return false;
  }
  if (!poll) return true;
  const int p = poll();
  if (p != 0) set(p > 0 ? State::reached : State::abandoned);
  return p == 0;
}

bool EventState::reached() {
  (void)pending();
  std::lock_guard lock(mutex_);
  return state_ == State::reached;
}

void EventState::block(const std::string& waiter) {
  using namespace std::chrono;
  const auto deadline = steady_clock::now() + duration_cast<steady_clock::duration>(duration<double>(event_timeout_s));
  if (poll) {
    // A device's event: polled, from every 20 us up to every ms (a kernel's scale, then a host's).
    auto pause = microseconds(20);
    while (pending() && steady_clock::now() < deadline) {
      std::this_thread::sleep_for(pause);
      pause = std::min<microseconds>(pause * 2, milliseconds(1));
    }
  } else {
    std::unique_lock lock(mutex_);
    cv_.wait_until(lock, deadline, [&] { return state_ != State::pending; });
  }
  std::lock_guard lock(mutex_);
  if (state_ == State::reached) return;
  throw DeviceError(
      state_ == State::abandoned
          ? fmt::format("controller {} waited for {}, which will never be reached: its controller was destroyed "
                        "(or its device failed) before the work queued before it finished",
                        waiter, what())
          : fmt::format("controller {} waited for {} for {:.0f} s (ctrl::event_timeout_s) and gave up: that "
                        "controller's work before it has not finished",
                        waiter, what(), event_timeout_s));
}

std::shared_ptr<EventState> ControllerCore::record_event() {
  std::lock_guard lock(mutex_);
  refuse_while_recording("record_event");
  auto e = std::make_shared<EventState>();
  e->controller = name_;
  e->number = ++events_recorded_;
  e->recorder = this;
  parts_.queue->record_event(e);
  // Kept to abandon at destruction what the queue never reached; reached ones are dropped.
  std::erase_if(events_, [](const std::weak_ptr<EventState>& w) {
    const auto s = w.lock();
    return !s || !s->pending();
  });
  events_.push_back(e);
  return e;
}

void ControllerCore::wait_for(const std::shared_ptr<EventState>& e) {
  if (!e)
    throw UsageError(fmt::format("wait_for on controller {}: the event is empty (record_event makes one)", name_));
  std::lock_guard lock(mutex_);
  refuse_while_recording(fmt::format("wait_for of {}", e->what()));
  if (e->recorder == this) return;  // this queue runs in order
  parts_.queue->wait_event(e, name_);
}

void ControllerCore::abandon_events() noexcept {
  for (const auto& w : events_)
    if (const auto e = w.lock(); e && e->pending()) e->set(EventState::State::abandoned);
  events_.clear();
}

}  // namespace detail
}  // namespace ctrl
