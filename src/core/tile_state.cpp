#include <ctrl/detail/tile_state.hpp>
#include <ctrl/errors.hpp>
#include <ctrl/sizes.hpp>

#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <new>

namespace ctrl::detail {

TileStorage::TileStorage(std::size_t n) : bytes(n) {
  const std::size_t rounded = (n + storage_alignment - 1) / storage_alignment * storage_alignment;
  data = std::aligned_alloc(storage_alignment, rounded == 0 ? storage_alignment : rounded);
  if (!data) throw std::bad_alloc();
}

TileStorage::TileStorage(void* user, std::size_t n, bool ro, Located (*loc)(const void*), const void* c)
    : data(user), bytes(n), owned(false), read_only(ro), locate(loc), container(c) {}

TileStorage::~TileStorage() {
  unprepare();
  if (owned) std::free(data);  // the user's memory stays the user's
}

void TileStorage::unprepare() {
  std::vector<Prepared> undo;
  {
    std::lock_guard lock(mutex);
    undo.swap(prepared);
  }
  for (const Prepared& p : undo) p.undo(p.begin, p.bytes);
}

std::string TileStorage::moved() const {
  if (!locate) return {};
  const Located now = locate(container);
  if (now.data == data && now.bytes == bytes) return {};
  if (now.data != data) {
    return fmt::format(
        "its elements moved from {} to {} (the container reallocated: grown, shrunk to fit, "
        "assigned or destroyed)",
        data, now.data);
  }
  return fmt::format("it now holds {} bytes, not the {} wrapped (the container was resized)", now.bytes, bytes);
}

std::size_t TileState::host_alignment() const {
  const auto at = reinterpret_cast<std::uintptr_t>(host());
  std::size_t a = storage_alignment;
  while (a > 1 && at % a != 0) a /= 2;
  return a;
}

void check_not_moved(const TileState& t, const std::string& what) {
  if (!t.storage) return;
  const std::string why = t.storage->moved();
  if (why.empty()) return;
  t.storage->unprepare();  // the memory it left may be freed or reused: it must not stay registered
  throw UsageError(
      fmt::format("{}: the tile wraps a container and {}; a wrapped container must keep its "
                  "elements in place while the tile is in use (wrap it again after resizing)",
                  what, why));
}

std::uint64_t next_tile_id() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1);
}

std::string element_type_name(std::size_t elem_size) { return fmt::format("{}-byte", elem_size); }

std::string TileState::shape_str() const {
  std::string s;
  for (std::size_t d = 0; d < rank; ++d) s += (d ? "x" : "") + std::to_string(ext[d]);
  return s;
}

std::string TileState::label() const {
  return fmt::format("'{}' ({}, {}-byte elements)", name, shape_str(), elem_size);
}

namespace {

// A state of this shape with no storage yet, and its byte count (checked: a count that wraps
// would give a small buffer for a big shape).
std::shared_ptr<TileState> shaped_state(std::size_t elem_size, std::size_t rank, const index_t* ext, std::string name,
                                        std::size_t& bytes) {
  auto s = std::make_shared<TileState>();
  s->elem_size = elem_size;
  s->rank = rank;
  s->id = next_tile_id();
  s->name = name.empty() ? fmt::format("tile#{}", s->id) : std::move(name);
  for (std::size_t d = 0; d < rank; ++d) {
    if (ext[d] < 0) throw UsageError(fmt::format("tile '{}': negative extent {} in dimension {}", s->name, ext[d], d));
    s->ext[d] = ext[d];
  }
  try {
    bytes = checked_bytes(std::span<const index_t>(s->ext, rank), elem_size);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("tile '{}' ({}): {}", s->name, s->shape_str(), e.what()));
  }
  return s;
}

}  // namespace

std::shared_ptr<TileState> make_wrapped_state(const WrapRequest& w, std::size_t rank, const index_t* ext,
                                              std::string name) {
  std::size_t bytes = 0;
  auto s = shaped_state(w.elem_size, rank, ext, std::move(name), bytes);
  const std::size_t needed = s->elements();
  if (w.available != SIZE_MAX && w.available != needed) {
    throw UsageError(fmt::format("wrap of {} as tile {}: it holds {} elements, the shape {} has {}", w.source,
                                 s->label(), w.available, s->shape_str(), needed));
  }
  if (!w.data && needed > 0) {
    throw UsageError(fmt::format("wrap of {} as tile {}: the memory is null", w.source, s->label()));
  }
  if (reinterpret_cast<std::uintptr_t>(w.data) % w.elem_align != 0) {
    throw UsageError(fmt::format("wrap of {} as tile {}: address {} is not aligned to its elements' {} bytes", w.source,
                                 s->label(), w.data, w.elem_align));
  }
  s->storage = std::make_shared<TileStorage>(w.data, bytes, w.read_only, w.locate, w.container);
  s->host_valid = true;
  return s;
}

std::shared_ptr<TileState> make_tile_state(std::size_t elem_size, std::size_t rank, const index_t* ext,
                                           std::string name, bool allocate) {
  std::size_t bytes = 0;
  auto s = shaped_state(elem_size, rank, ext, std::move(name), bytes);
  if (allocate) {
    try {
      s->storage = std::make_shared<TileStorage>(bytes);
    } catch (const std::bad_alloc&) {
      throw_cannot_allocate(bytes, fmt::format("tile {}", s->label()));
    }
  }
  s->host_valid = allocate;
  return s;
}

std::shared_ptr<TileState> make_row_block(const std::shared_ptr<TileState>& parent, index_t begin, index_t end) {
  if (!parent->storage) {
    throw UsageError(fmt::format("rows({}, {}) of tile {}: a tile declared by shape only has no rows to share", begin,
                                 end, parent->label()));
  }
  if (begin < 0 || end < begin || end > parent->ext[0]) {
    throw UsageError(fmt::format("rows({}, {}) of tile {}: the range must lie within [0, {}]", begin, end,
                                 parent->label(), parent->ext[0]));
  }
  auto s = std::make_shared<TileState>();
  s->storage = parent->storage;
  s->elem_size = parent->elem_size;
  s->rank = parent->rank;
  std::copy(std::begin(parent->ext), std::end(parent->ext), std::begin(s->ext));
  s->ext[0] = end - begin;
  s->offset = parent->offset + static_cast<std::size_t>(begin) * parent->row_bytes();
  s->id = next_tile_id();
  s->name = fmt::format("{}[{}:{}]", parent->name, begin, end);
  return s;
}

}  // namespace ctrl::detail
