// Events: a point in one controller's queue that another controller's queue waits for, with no
// host thread waiting (docs/model.md, "Events between controllers").
//
//   ctrl::Event done = gpu.record_event();   // after the work queued on gpu so far
//   cpu.wait_for(done);                       // cpu's later work starts once it is reached
//   cpu.host_task(report, stats);             // queued at once; runs after gpu's work
#pragma once
#include <memory>
#include <string>

namespace ctrl {

namespace detail {
struct EventState;
}

// How long a controller's queue waits for another controller's event before it gives up and fails
// that wait with a DeviceError: far beyond any kernel, short of a hang.
inline constexpr double event_timeout_s = 600.0;

// A handle (copies share the event). A default-constructed Event is empty: waiting for it is a
// UsageError.
class Event {
 public:
  Event() = default;
  bool empty() const { return state_ == nullptr; }
  std::string controller() const;  // the recording controller's name ("cuda:0"); "" if empty
  // Whether the work before it has finished (never blocks).
  bool reached() const;

 private:
  friend class Controller;
  explicit Event(std::shared_ptr<detail::EventState> s) : state_(std::move(s)) {}
  std::shared_ptr<detail::EventState> state_;
};

}  // namespace ctrl
