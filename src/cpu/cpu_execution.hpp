// The CPU execution model: a launch's index space is cut into coarse blocks, one per pinned worker
// (the Controllers paper §4.5), along whichever dimensions have the work; an irregular kernel's
// space is cut into smaller chunks that the workers take as they finish (block_grid.hpp decides
// both). Library variants run once, on the launch's runner (the queue thread or a waiting host
// thread), and may fan out over the workers through CpuContext.
#pragma once
#include "../core/device.hpp"
#include "block_grid.hpp"
#include "worker_pool.hpp"

#include <ctrl/cpu/context.hpp>

namespace ctrl::detail {

class CpuExecution final : public ExecutionModel, public CpuContext {
 public:
  // handoff: the controller's queue state, which the pool's idle helpers watch (null where the
  // queue never leaves launches for a waiter: the offload kind).
  explicit CpuExecution(std::vector<int> cores, std::shared_ptr<Handoff> handoff = nullptr);

  Family family() const override { return Family::cpu; }
  std::string describe() const override;
  void bind_queue_thread() override { pool_.bind_caller(); }
  void run(const LaunchBody& body, Variant v, const Threads& space, void* const* ptrs) override;

  int workers() const override { return pool_.size(); }
  const std::vector<int>& cores() const override { return pool_.cores(); }
  void parallel_for(index_t n, const std::function<void(index_t, index_t, int)>& fn) override;

  // Whether the calling thread may run a launch (a host thread waiting on the controller,
  // thread_queue.hpp), taking the share of the worker whose core it is on while that worker
  // stands aside (worker_pool.hpp): only where the controller's cores cover every core this
  // process may use, so that the thread can never leave them, and the thread is on one of them
  // now. A controller on some of the cores keeps its launches on those cores: they go through
  // its queue thread, pinned to the first.
  bool caller_may_run() const { return pool_.roaming() && pool_.worker_here() >= 0; }

 private:
  void run_dynamic(const LaunchBody& body, Variant v, const BlockGrid& grid, void* const* ptrs);

  WorkerPool pool_;
  BlockGrid grid_;  // the static launch's grid, written by its runner, read by the helpers
};

// The host's own memory, used in place: a shared-memory communication model.
class HostSharedMemory final : public MemorySpace {
 public:
  bool shared_with_host() const override { return true; }
  std::string describe() const override { return "memory shared with the host"; }
  void* allocate(std::size_t bytes) override;
  void release(void* p) override;
  void copy_in(void*, const void*, std::size_t) override {}
  void copy_out(void*, const void*, std::size_t) override {}
  // The image is the host memory itself: checking mode poisons the tile in place, so that a
  // kernel that breaks the Out contract leaves the same result here as on a separate memory.
  void poison(void* image, std::size_t bytes, std::size_t elem_size) override { fill_poison(image, bytes, elem_size); }
  PoisonScan find_poison(const void* image, std::size_t bytes, std::size_t elem_size) override {
    return scan_poison(image, bytes, elem_size);
  }
};

DeviceParts make_cpu_kind(const DeviceSpec& spec);

}  // namespace ctrl::detail
