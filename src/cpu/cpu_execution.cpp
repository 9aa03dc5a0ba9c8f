#include "cpu_execution.hpp"

#include "../core/thread_queue.hpp"
#include "topology.hpp"

#include <ctrl/sizes.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <new>

namespace ctrl::detail {

namespace {

// Whether these cores include every core this process may use.
bool covers_process(const std::vector<int>& mine) {
  for (int c : cpu_topology().usable)
    if (std::find(mine.begin(), mine.end(), c) == mine.end()) return false;
  return true;
}

}  // namespace

// Waiters may run launches (the pool roams) only on the queue of the CPU kind (a handoff) and
// only where a waiter can never be on a core that is not the controller's.
CpuExecution::CpuExecution(std::vector<int> cores, std::shared_ptr<Handoff> handoff)
    : pool_(cores, handoff, handoff != nullptr && covers_process(cores)) {}

std::string CpuExecution::describe() const {
  return fmt::format("{} pinned worker{} on cores {}", workers(), workers() == 1 ? "" : "s", format_cores(cores()));
}

void CpuExecution::run(const LaunchBody& body, Variant v, const Threads& space, void* const* ptrs) {
  if (v == Variant::library) {
    body.run_cpu_library(*this, ptrs);
    return;
  }
  if (space.empty()) return;
  const int w = workers();
  if (w > 1 && body.traits().work == cost::irregular) {
    run_dynamic(body, v, chunk_grid(space, w), ptrs);
    return;
  }
  // The grid in a member and the rest by value: the job (five words) goes onto the helpers' line,
  // and a helper reads the grid and the body at once rather than after the runner's stack.
  grid_ = static_grid(space, w);
  const auto share = [grid = &grid_, b = &body, v, ptrs, w](int worker) {
    if (worker < grid->count()) b->run_cpu_block(v, grid->block(worker, worker, w), ptrs);
  };
  static_assert(WorkerPool::copied_onto_line<decltype(share)>);
  pool_.run(share);
}

void CpuExecution::run_dynamic(const LaunchBody& body, Variant v, const BlockGrid& grid, void* const* ptrs) {
  // On a cache line of its own: every increment would otherwise also evict the grid and the
  // captures that the workers read. Relaxed: the counter only hands out chunk numbers; the pool's
  // start and finish already order the data each chunk reads and writes.
  struct alignas(64) Counter {
    std::atomic<index_t> next{0};
  } counter;
  const int w = workers();
  const index_t chunks = grid.count();
  // A chunk that throws does not stop its worker: every other chunk still runs, as every other
  // block of a static launch does, so a failed launch leaves the same state whichever worker took
  // which chunk. The worker's first exception goes to the pool, which rethrows the launch's first.
  pool_.run([&](int worker) {
    std::exception_ptr failure;
    for (index_t c = counter.next.fetch_add(1, std::memory_order_relaxed); c < chunks;
         c = counter.next.fetch_add(1, std::memory_order_relaxed)) {
      try {
        body.run_cpu_block(v, grid.block(c, worker, w), ptrs);
      } catch (...) {
        if (!failure) failure = std::current_exception();
      }
    }
    if (failure) std::rethrow_exception(failure);
  });
}

void CpuExecution::parallel_for(index_t n, const std::function<void(index_t, index_t, int)>& fn) {
  const int w = workers();
  pool_.run([&](int worker) {
    index_t begin, end;
    split_range(n, w, worker, begin, end);
    if (begin < end) fn(begin, end, worker);
  });
}

void* HostSharedMemory::allocate(std::size_t bytes) {
  const std::size_t rounded = (bytes + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
  if (!p) throw_cannot_allocate(bytes, "an image in host memory");  // a DeviceError the controller names the tile in
  return p;
}

void HostSharedMemory::release(void* p) { std::free(p); }

DeviceParts make_cpu_kind(const DeviceSpec& spec) {
  DeviceParts parts;
  auto handoff = std::make_shared<Handoff>();
  auto exec = std::make_unique<CpuExecution>(resolve_cores(spec), handoff);
  parts.queue = std::make_unique<ThreadQueue>(std::move(handoff), [e = exec.get()] { return e->caller_may_run(); });
  parts.exec = std::move(exec);
  parts.memory = std::make_unique<HostSharedMemory>();
  return parts;
}

}  // namespace ctrl::detail
