#include <ctrl/detail/tile_state.hpp>
#include <ctrl/errors.hpp>
#include <ctrl/sizes.hpp>

#include <fmt/format.h>

#include <cstdlib>
#include <new>

namespace ctrl::detail {

namespace {
constexpr std::size_t tile_alignment = 64;  // a cache line; also what vector loads like
}

TileStorage::TileStorage(std::size_t n) : bytes(n) {
  const std::size_t rounded = (n + tile_alignment - 1) / tile_alignment * tile_alignment;
  data = std::aligned_alloc(tile_alignment, rounded == 0 ? tile_alignment : rounded);
  if (!data) throw std::bad_alloc();
}

TileStorage::~TileStorage() {
  for (const Prepared& p : prepared) p.undo(p.begin, p.bytes);
  std::free(data);
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

std::shared_ptr<TileState> make_tile_state(std::size_t elem_size, std::size_t rank, const index_t* ext,
                                           std::string name, bool allocate) {
  auto s = std::make_shared<TileState>();
  s->elem_size = elem_size;
  s->rank = rank;
  s->id = next_tile_id();
  s->name = name.empty() ? fmt::format("tile#{}", s->id) : std::move(name);
  for (std::size_t d = 0; d < rank; ++d) {
    if (ext[d] < 0) throw UsageError(fmt::format("tile '{}': negative extent {} in dimension {}", s->name, ext[d], d));
    s->ext[d] = ext[d];
  }
  // Checked before allocating: a count that wraps would give a small buffer for a big shape.
  std::size_t bytes = 0;
  try {
    bytes = checked_bytes(std::span<const index_t>(s->ext, rank), elem_size);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("tile '{}' ({}): {}", s->name, s->shape_str(), e.what()));
  }
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
    throw UsageError(fmt::format("rows({}, {}) of tile {}: a tile declared by shape only has no rows to share",
                                 begin, end, parent->label()));
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
  const std::size_t row_bytes = parent->bytes() / static_cast<std::size_t>(parent->ext[0] ? parent->ext[0] : 1);
  s->offset = parent->offset + static_cast<std::size_t>(begin) * row_bytes;
  s->id = next_tile_id();
  s->name = fmt::format("{}[{}:{}]", parent->name, begin, end);
  return s;
}

}  // namespace ctrl::detail
