// Host tasks (Controller::host_task; docs/model.md, "Host tasks"): host code in a controller's
// queue order, with a kernel's roles over the tiles' host memory.
#include "controller_core.hpp"
#include "host_task.hpp"

#include <fmt/format.h>

namespace ctrl::detail {

namespace {
// The host task running on this thread (its controller and number), if any: a controller called
// from inside one would wait on the queue that runs it, or call CUDA from a stream callback.
struct RunningTask {
  const ControllerCore* controller = nullptr;
  std::uint64_t number = 0;
};
thread_local RunningTask running_task;
}  // namespace

void refuse_inside_host_task(const char* what, const std::string& controller) {
  if (!running_task.controller) return;
  throw UsageError(
      fmt::format("{} on controller {} from inside host task #{} of controller {}: a host task runs in "
                  "a controller's queue and must not call a controller (queue the work after it instead)",
                  what, controller, running_task.number, running_task.controller->name()));
}

void ControllerCore::submit_host_task(std::unique_ptr<HostTaskBody> body, const TileUse* uses, std::size_t n_uses) {
  std::lock_guard lock(mutex_);
  refuse_while_recording("host task");
  const std::uint64_t number = host_tasks_ + 1;
  for (std::size_t j = 0; j < n_uses; ++j) {
    const TileState& t = *uses[j].tile;
    const auto what = [&] { return fmt::format("host task #{} on controller {}: tile {}", number, name_, t.label()); };
    if (t.owner != this) {
      throw UsageError(t.owner ? fmt::format("{} is {} controller {}", what(),
                                             t.internal ? "internal to" : "attached to", t.owner->name())
                               : fmt::format("{} is not attached to this controller", what()));
    }
    if (t.internal) throw UsageError(fmt::format("{} is internal: it has no host memory for a host task", what()));
  }
  host_tasks_ = number;
  // The record, settled now in submission order as a launch's is: an In or InOut tile whose
  // device copy is newer comes home first; what the task writes is then the current copy, and a
  // later launch that reads it copies it in.
  std::vector<Copy> home;
  std::vector<void*> ptrs(n_uses);
  for (std::size_t j = 0; j < n_uses; ++j) {
    TileState& t = *uses[j].tile;
    ptrs[j] = t.host();
    if (!shared_ && reads(uses[j].role) && !t.host_valid) {
      home.push_back({t.image, t.host(), t.bytes()});
      stats_.bytes_out += t.bytes();
      ++stats_.copies_out;
      t.host_valid = true;
    }
  }
  for (std::size_t j = 0; j < n_uses; ++j) {
    TileState& t = *uses[j].tile;
    if (!writes(uses[j].role)) continue;
    t.host_valid = true;
    t.device_valid = shared_;
  }
  MemorySpace* mem = parts_.memory.get();
  std::shared_ptr<HostTaskBody> task(std::move(body));
  parts_.queue->submit_host(
      [mem, home = std::move(home)] {
        for (const Copy& c : home) mem->copy_out(c.host, c.device, c.bytes);
      },
      [this, task, ptrs = std::move(ptrs), number] { run_host_task(*task, ptrs.data(), number); });
}

void ControllerCore::run_host_task(HostTaskBody& body, void* const* ptrs, std::uint64_t number) {
  // Marks this thread as inside the task until it returns or throws (tasks do not nest, but a
  // waiter may run one between its own).
  struct Inside {
    RunningTask outer = running_task;
    Inside(const ControllerCore* c, std::uint64_t n) { running_task = {c, n}; }
    ~Inside() { running_task = outer; }
    Inside(const Inside&) = delete;
    Inside& operator=(const Inside&) = delete;
  };
  try {
    const Inside inside(this, number);
    body.run(ptrs);
  } catch (const std::exception& e) {
    std::throw_with_nested(
        KernelError(fmt::format("host task #{} on controller {} failed: {}", number, name_, e.what())));
  } catch (...) {
    std::throw_with_nested(
        KernelError(fmt::format("host task #{} on controller {} failed with a non-standard exception", number, name_)));
  }
}

}  // namespace ctrl::detail
