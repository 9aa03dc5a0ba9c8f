#include "cpu_execution.hpp"

#include "../core/thread_queue.hpp"
#include "topology.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <new>

namespace ctrl::detail {

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
  pool_.run([&](int worker) {
    CpuBlock b{0, 0, space, worker, w};
    split_range(space.x(), w, worker, b.x_begin, b.x_end);
    if (b.x_begin < b.x_end) body.run_cpu_block(v, b, ptrs);
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
  if (!p) throw std::bad_alloc();
  return p;
}

void HostSharedMemory::release(void* p) { std::free(p); }

DeviceParts make_cpu_kind(const DeviceSpec& spec) {
  DeviceParts parts;
  parts.exec = std::make_unique<CpuExecution>(resolve_cores(spec));
  parts.memory = std::make_unique<HostSharedMemory>();
  parts.queue = std::make_unique<ThreadQueue>();
  return parts;
}

}  // namespace ctrl::detail
