#include "host_pinning.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <mutex>

namespace ctrl::detail {

namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::uintptr_t, std::uintptr_t> ranges;  // begin -> end, page-aligned, disjoint
  std::size_t bytes = 0;
};
// Never destroyed: storages freed during static destruction still find it.
Registry& registry() {
  static Registry* r = new Registry();
  return *r;
}

std::uintptr_t page_size() {
  static const std::uintptr_t p = [] {
    const long s = sysconf(_SC_PAGESIZE);
    return s > 0 ? static_cast<std::uintptr_t>(s) : std::uintptr_t{4096};
  }();
  return p;
}

void unpin(void* begin, std::size_t bytes) {
  Registry& r = registry();
  {
    std::lock_guard lock(r.mutex);
    r.ranges.erase(reinterpret_cast<std::uintptr_t>(begin));
    r.bytes -= bytes;
  }
  (void)cudaHostUnregister(begin);  // fails harmlessly once the runtime is unloading
  (void)cudaGetLastError();
}

// Wrapped const memory may lie in pages the process cannot write (a read-only mapping): those
// register only as read-only to the device, which is all an In-only tile needs.
bool register_pages(void* p, std::size_t n, bool read_only) {
  if (cudaHostRegister(p, n, cudaHostRegisterPortable) == cudaSuccess) return true;
  (void)cudaGetLastError();  // not registrable (or registered by someone else)
  if (read_only && cudaHostRegister(p, n, cudaHostRegisterPortable | cudaHostRegisterReadOnly) == cudaSuccess) {
    return true;
  }
  (void)cudaGetLastError();
  return false;
}

}  // namespace

std::size_t pin_tile_range(TileState& t) {
  if (!t.storage || t.bytes() < min_pinned) return 0;
  const std::uintptr_t page = page_size();
  const auto s_begin = reinterpret_cast<std::uintptr_t>(t.storage->data);
  const std::uintptr_t s_end = s_begin + t.storage->bytes;
  const auto t_begin = reinterpret_cast<std::uintptr_t>(t.host());
  const std::uintptr_t t_end = t_begin + t.bytes();
  // Pages that meet the tile and lie wholly inside the storage (no other allocation shares them).
  const std::uintptr_t lo = std::max((s_begin + page - 1) / page * page, t_begin / page * page);
  const std::uintptr_t hi = std::min(s_end / page * page, (t_end + page - 1) / page * page);
  if (hi <= lo || hi - lo < min_pinned) return 0;

  std::lock_guard storage_lock(t.storage->mutex);
  Registry& r = registry();
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> gaps;
  {
    std::lock_guard lock(r.mutex);
    std::uintptr_t at = lo;
    auto it = r.ranges.upper_bound(lo);
    if (it != r.ranges.begin()) {
      auto prev = std::prev(it);
      if (prev->second > at) at = prev->second;
    }
    for (; at < hi; ++it) {
      const std::uintptr_t next = (it == r.ranges.end() || it->first > hi) ? hi : it->first;
      if (next > at && next - at >= min_pinned) gaps.emplace_back(at, next);
      if (it == r.ranges.end() || it->first >= hi) break;
      at = std::max(at, it->second);
    }
  }
  std::size_t pinned = 0;
  for (const auto& [b, e] : gaps) {
    void* p = reinterpret_cast<void*>(b);
    const std::size_t n = e - b;
    if (!register_pages(p, n, t.storage->read_only)) continue;  // pageable copies
    {
      std::lock_guard lock(r.mutex);
      r.ranges.emplace(b, e);
      r.bytes += n;
    }
    t.storage->prepared.push_back({p, n, &unpin});
    pinned += n;
  }
  return pinned;
}

std::vector<HostPiece> host_pieces(void* host, std::size_t bytes) {
  std::vector<HostPiece> out;
  const auto begin = reinterpret_cast<std::uintptr_t>(host);
  const std::uintptr_t end = begin + bytes;
  auto piece = [&](std::uintptr_t b, std::uintptr_t e, bool pinned) {
    if (e <= b) return;
    if (!out.empty() && out.back().pinned == pinned && !pinned) {
      out.back().bytes += e - b;
      return;
    }
    out.push_back({reinterpret_cast<char*>(b), b - begin, e - b, pinned});
  };
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::uintptr_t at = begin;
  auto it = r.ranges.upper_bound(begin);
  if (it != r.ranges.begin()) --it;
  for (; it != r.ranges.end() && it->first < end && at < end; ++it) {
    if (it->second <= at) continue;
    piece(at, std::max(at, it->first), false);
    const std::uintptr_t b = std::max(at, it->first), e = std::min(end, it->second);
    piece(b, e, true);
    at = e;
  }
  piece(at, end, false);
  return out;
}

std::size_t pinned_host_bytes() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.bytes;
}

}  // namespace ctrl::detail
