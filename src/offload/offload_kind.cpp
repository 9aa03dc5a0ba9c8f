// The offload kind (the Xeon Phi paper): no new runtime, only a new composition of parts.
// CPU execution model (coarse blocks over pinned cores) + a separate memory space reached by
// explicit copies (the GPU's communication model) + a dedicated queue thread. The cores never
// touch host tiles: every attached tile gets its own image, in memory bound to the cores' NUMA
// node, and data moves exactly as a CUDA controller's would.
#include "../core/device.hpp"
#include "../core/thread_queue.hpp"
#include "../cpu/cpu_execution.hpp"
#include "../cpu/topology.hpp"

#include <fmt/format.h>

#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ctrl::detail {

namespace {

class NumaSeparateMemory final : public MemorySpace {
 public:
  explicit NumaSeparateMemory(std::vector<int> cores) : cores_(std::move(cores)) {}
  ~NumaSeparateMemory() override {
    for (auto& [p, bytes] : sizes_) free_near(p, bytes);
    for (auto& [bytes, p] : cached_) free_near(p, bytes);
  }

  bool shared_with_host() const override { return false; }
  std::string describe() const override {
    const int node = numa_node_of(cores_.front());
    return node < 0 ? std::string("a separate memory space (explicit copies)")
                    : fmt::format("a separate memory space on NUMA node {} (explicit copies)", node);
  }
  // Images are kept for reuse when released, as a device's memory pool keeps its blocks: a tile
  // attached and detached run after run (the loop's rounds) would otherwise map, fault in and zero
  // fresh pages every time, several times a warm run's cost, and a round's first runs after the
  // heap was trimmed would pay that again: runs would not match their profile
  // (bench/results/loop-2core.md).
  // Pages are mapped and freed outside the lock: the host thread allocates while the queue
  // thread releases.
  void* allocate(std::size_t bytes) override {
    void* p = take_cached(bytes);
    if (p == nullptr) p = allocate_near(cores_, bytes);
    std::lock_guard lock(mutex_);
    sizes_[p] = bytes;
    return p;
  }
  void release(void* p) override {
    std::vector<std::pair<void*, std::size_t>> evicted;
    {
      std::lock_guard lock(mutex_);
      auto it = sizes_.find(p);
      if (it == sizes_.end()) return;
      const std::size_t bytes = it->second;
      sizes_.erase(it);
      cached_.emplace(bytes, p);
      cached_bytes_ += bytes;
      while (cached_bytes_ > max_cached_bytes) {  // the largest blocks go first
        const auto last = std::prev(cached_.end());
        cached_bytes_ -= last->first;
        evicted.emplace_back(last->second, last->first);
        cached_.erase(last);
      }
    }
    for (const auto& [q, bytes] : evicted) free_near(q, bytes);
  }
  void copy_in(void* device, const void* host, std::size_t bytes) override { std::memcpy(device, host, bytes); }
  void copy_out(void* host, const void* device, std::size_t bytes) override { std::memcpy(host, device, bytes); }
  // Another offload controller's images are host memory too (on its NUMA node): one copy, node to node.
  bool reaches(const MemorySpace& source) override {
    return dynamic_cast<const NumaSeparateMemory*>(&source) != nullptr;
  }
  void copy_from(void* image, const MemorySpace& /*source*/, const void* from, std::size_t bytes) override {
    std::memcpy(image, from, bytes);
  }
  void poison(void* image, std::size_t bytes, std::size_t elem_size) override { fill_poison(image, bytes, elem_size); }
  PoisonScan find_poison(const void* image, std::size_t bytes, std::size_t elem_size) override {
    return scan_poison(image, bytes, elem_size);
  }

 private:
  std::vector<int> cores_;
  // A released image of exactly this size, or null.
  void* take_cached(std::size_t bytes) {
    std::lock_guard lock(mutex_);
    const auto it = cached_.find(bytes);
    if (it == cached_.end()) return nullptr;
    void* p = it->second;
    cached_bytes_ -= bytes;
    cached_.erase(it);
    return p;
  }

  static constexpr std::size_t max_cached_bytes = std::size_t{1} << 30;  // released images kept, at most
  std::mutex mutex_;                              // allocate runs on the host thread, release on the queue thread
  std::unordered_map<void*, std::size_t> sizes_;  // images in use
  std::multimap<std::size_t, void*> cached_;      // released images, by size
  std::size_t cached_bytes_ = 0;
};

}  // namespace

DeviceParts make_offload_kind(const DeviceSpec& spec) {
  std::vector<int> cores = resolve_cores(spec);
  DeviceParts parts;
  parts.exec = std::make_unique<CpuExecution>(cores);
  parts.memory = std::make_unique<NumaSeparateMemory>(std::move(cores));
  parts.queue = std::make_unique<ThreadQueue>();
  return parts;
}

}  // namespace ctrl::detail
