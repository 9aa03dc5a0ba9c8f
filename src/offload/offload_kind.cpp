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
#include <mutex>
#include <unordered_map>

namespace ctrl::detail {

namespace {

class NumaSeparateMemory final : public MemorySpace {
 public:
  explicit NumaSeparateMemory(std::vector<int> cores) : cores_(std::move(cores)) {}
  ~NumaSeparateMemory() override {
    for (auto& [p, bytes] : sizes_) free_near(p, bytes);
  }

  bool shared_with_host() const override { return false; }
  std::string describe() const override {
    const int node = numa_node_of(cores_.front());
    return node < 0 ? std::string("a separate memory space (explicit copies)")
                    : fmt::format("a separate memory space on NUMA node {} (explicit copies)", node);
  }
  void* allocate(std::size_t bytes) override {
    void* p = allocate_near(cores_, bytes);
    std::lock_guard lock(mutex_);
    sizes_[p] = bytes;
    return p;
  }
  void release(void* p) override {
    std::size_t bytes = 0;
    {
      std::lock_guard lock(mutex_);
      auto it = sizes_.find(p);
      if (it == sizes_.end()) return;
      bytes = it->second;
      sizes_.erase(it);
    }
    free_near(p, bytes);
  }
  void copy_in(void* device, const void* host, std::size_t bytes) override { std::memcpy(device, host, bytes); }
  void copy_out(void* host, const void* device, std::size_t bytes) override { std::memcpy(host, device, bytes); }
  void poison(void* image, std::size_t bytes, std::size_t elem_size) override { fill_poison(image, bytes, elem_size); }
  PoisonScan find_poison(const void* image, std::size_t bytes, std::size_t elem_size) override {
    return scan_poison(image, bytes, elem_size);
  }

 private:
  std::vector<int> cores_;
  std::mutex mutex_;  // allocate runs on the host thread, release on the queue thread
  std::unordered_map<void*, std::size_t> sizes_;
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
