// The parts a device kind is composed of (the Xeon Phi paper): an execution model (how a
// kernel's index space runs), a memory space (the communication model: shared with the host, or
// separate and reached by copies), and a queue. A new kind is a new combination of parts,
// registered under a name; the controller core knows only these interfaces.
#pragma once
#include "event_state.hpp"
#include "poison.hpp"

#include <ctrl/detail/launch_body.hpp>
#include <ctrl/detail/tile_state.hpp>
#include <ctrl/device_spec.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>

namespace ctrl::detail {

// A recorded sequence of launches (include/ctrl/graph.hpp) as an execution model sees it: launch
// i's body, variant, index space and tile pointers (resolved to this device's images).
struct ReplayLaunch {
  const LaunchBody* body;
  Variant variant;
  Threads space;
  void* const* ptrs;
};
class RecordedSequence {
 public:
  virtual std::size_t size() const = 0;
  virtual ReplayLaunch launch(std::size_t i) const = 0;

 protected:
  ~RecordedSequence() = default;
};

// What an execution model makes of a recorded sequence to replay it faster than launch by launch
// (the CUDA kind: a CUDA graph). Called in the queue's context.
class ReplayPlan {
 public:
  virtual ~ReplayPlan() = default;
  // Runs the sequence `times` times. changed: a value or a tile pointer differs from the last
  // replay's (or there was none), so a plan built from it must be brought up to date first.
  virtual void replay(const RecordedSequence& sequence, bool changed, std::uint64_t times) = 0;
};

// How kernels run. Called from the queue's context, in FIFO order.
class ExecutionModel {
 public:
  virtual ~ExecutionModel() = default;
  virtual Family family() const = 0;
  virtual std::string describe() const = 0;
  virtual void run(const LaunchBody& body, Variant v, const Threads& space, void* const* ptrs) = 0;
  // Called once on the thread that will run the queue's tasks, before the first task.
  virtual void bind_queue_thread() {}
  // A plan for replaying recorded sequences (host thread, when a recording ends); null: the core
  // replays them launch by launch through run(), in one queue entry (the CPU kinds).
  virtual std::unique_ptr<ReplayPlan> plan_replays() { return nullptr; }
};

// Where a controller's copy of a tile lives. On shared-memory kinds the host memory is used in
// place and nothing is ever copied.
class MemorySpace {
 public:
  virtual ~MemorySpace() = default;
  virtual bool shared_with_host() const = 0;
  virtual std::string describe() const = 0;
  virtual void* allocate(std::size_t bytes) = 0;                                 // host thread
  virtual void release(void* p) = 0;                                             // queue context
  virtual void copy_in(void* device, const void* host, std::size_t bytes) = 0;   // queue context
  virtual void copy_out(void* host, const void* device, std::size_t bytes) = 0;  // queue context
  // Direct copies from another controller's images, for a tile that controller hands over
  // (Controller::take). reaches: whether this space can copy from `source`'s images without the
  // host's memory (host thread; may set up the access once, as GPUs' peer access). copy_from:
  // that copy, into `image` (this space's), in the queue context; the core calls it only where
  // reaches said yes, after the source's writers finished, and waits for it before the source
  // image goes. Kinds with no such path keep the defaults: the core then goes through the host.
  virtual bool reaches(const MemorySpace& /*source*/) { return false; }
  virtual void copy_from(void* image, const MemorySpace& source, const void* from, std::size_t bytes);
  // A host range is about to be copied to and from this space for a while (attach) / no longer.
  virtual void host_range_attached(void* /*host*/, std::size_t /*bytes*/) {}
  virtual void host_range_detached(void* /*host*/, std::size_t /*bytes*/) {}
  // The same, seeing the whole tile (and so its storage): what the core calls. A kind that keeps
  // host memory prepared beyond one attach (the CUDA kind page-locks it for the storage's life,
  // TileStorage::prepared) overrides these; by default they forward to the range hooks.
  virtual void tile_attached(TileState& t) { host_range_attached(t.host(), t.bytes()); }
  virtual void tile_detached(TileState& t) { host_range_detached(t.host(), t.bytes()); }
  // Checking mode for Out parameters (poison.hpp): fill an image with the poison before a kernel;
  // after it, find the elements that still hold it, waiting for the kernels queued before. Both
  // in the queue context. Kinds whose images the host addresses use fill_poison / scan_poison.
  virtual void poison(void* image, std::size_t bytes, std::size_t elem_size) = 0;
  virtual PoisonScan find_poison(const void* image, std::size_t bytes, std::size_t elem_size) = 0;
};

// A task borrowed for the length of one call: a callable on the caller's stack, no allocation.
class TaskRef {
 public:
  template <class F>
  explicit TaskRef(F& f) : self_(&f), call_([](void* s) { (*static_cast<F*>(s))(); }) {}
  void operator()() const { call_(self_); }

 private:
  void* self_;
  void (*call_)(void*);
};

// Runs tasks in FIFO order. Tickets number the tasks from 1.
class Queue {
 public:
  using Task = std::function<void()>;
  virtual ~Queue() = default;
  virtual std::uint64_t submit(Task task) = 0;
  // Whether submit runs each task at once on the caller's thread (the CUDA stream queue): then
  // the controller hands it launches by reference through submit_inline, allocating nothing.
  virtual bool runs_inline() const { return false; }
  // Runs the task before returning, in FIFO order with the others (a failure is kept for
  // take_error, as with submit). For queues that do not run inline: submits a copy and waits.
  virtual std::uint64_t submit_inline(TaskRef task) {
    const std::uint64_t ticket = submit([task] { task(); });
    wait(ticket);
    return ticket;
  }
  // A host task (Controller::host_task): `copies` (the device's copies home) runs as a task,
  // then `host` on a host thread once everything queued before it has finished; tasks queued
  // after start after it. A failure of `copies` skips `host`. Queue threads run both as one task;
  // a queue that only enqueues device work (CUDA streams) puts `host` in its streams' order.
  virtual std::uint64_t submit_host(Task copies, Task host) {
    return submit([copies = std::move(copies), host = std::move(host)] {
      copies();
      host();
    });
  }
  // Events (Controller::record_event, wait_for; event_state.hpp). record_event: `e` is reached once
  // the tasks queued before it have finished; by default a task that sets its flag. wait_event:
  // the tasks queued after it start once `e` is reached; by default a task that blocks the queue
  // until then (EventState::block, which fails it naming `waiter` if it never comes).
  virtual void record_event(const std::shared_ptr<EventState>& e) {
    submit([e] { e->set(EventState::State::reached); });
  }
  virtual void wait_event(const std::shared_ptr<EventState>& e, const std::string& waiter) {
    submit([e, waiter] { e->block(waiter); });
  }
  virtual std::uint64_t last_ticket() const = 0;
  // Returns once the task with this ticket, and every task before it, has finished.
  virtual void wait(std::uint64_t ticket) = 0;
  // The first failure since the last call, with the number of failed tasks; null if none.
  virtual std::exception_ptr take_error(std::uint64_t& failures) = 0;
  // Called by the owner before the queue thread's first task (e.g. to pin it).
  virtual void start(std::function<void()> on_thread_start) = 0;
};

struct DeviceParts {
  std::unique_ptr<ExecutionModel> exec;
  std::unique_ptr<MemorySpace> memory;
  std::unique_ptr<Queue> queue;
};

// A device kind: builds the parts for a spec, or throws (UsageError for bad specs, DeviceError for
// devices that are absent or fail).
using KindFactory = DeviceParts (*)(const DeviceSpec&);
void register_kind(const std::string& kind, KindFactory factory);
KindFactory find_kind(const std::string& kind);  // null when no such kind is built
std::string registered_kinds();                  // "cpu, cuda, offload"
void register_builtin_kinds();                   // src/backends.cpp: the kinds this build has

}  // namespace ctrl::detail
