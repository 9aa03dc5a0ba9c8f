// The shared state behind Tile handles: host storage, shape, and the coherence record that the
// owning controller keeps (which copy is valid, where the device image is). Copies of a Tile
// handle share one state; a sub-tile has its own state over the same storage.
#pragma once
#include <ctrl/threads.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ctrl::detail {

class ControllerCore;
struct TileState;

// Where a wrapped container's elements are now (Wrapped::locate).
struct Located {
  const void* data;
  std::size_t bytes;
};

// Host memory of a host-allocated tile, shared by the tile and its sub-tiles. It records which
// byte ranges are attached to a controller, so that overlapping parts never go to two places.
// Either ctrl allocated it (owned: aligned to storage_alignment and padded to a multiple of it)
// or it is memory the user had and ctrl wraps (docs/model.md, "Wrapped memory"): never freed by
// ctrl, aligned only as its element type requires, read-only when it was const.
struct TileStorage {
  explicit TileStorage(std::size_t bytes);
  // Wraps user memory. locate (may be null) reports where the container that holds it (at
  // `container`) keeps its elements now, so that an attach can see that they moved.
  TileStorage(void* user, std::size_t bytes, bool read_only, Located (*locate)(const void*), const void* container);
  ~TileStorage();
  TileStorage(const TileStorage&) = delete;
  TileStorage& operator=(const TileStorage&) = delete;

  void* data = nullptr;
  std::size_t bytes = 0;
  bool owned = true;       // ctrl allocated data (and frees it)
  bool read_only = false;  // wrapped const memory: no kernel may write it (In only)
  Located (*locate)(const void* container) = nullptr;
  const void* container = nullptr;

  // Why a wrapped container's elements are no longer the wrapped ones ("its elements moved
  // from 0x.. to 0x.. (reallocated)"), or empty while they are (and for other storage).
  std::string moved() const;
  // Undoes every prepared range now (memory that is about to be, or has been, given back).
  void unprepare();

  struct Attached {
    std::size_t begin, end;  // bytes
    const TileState* tile;
  };
  std::mutex mutex;
  std::vector<Attached> attached;

  // Host ranges a backend prepared for transfers and keeps prepared for the storage's life (the
  // CUDA backend page-locks them), so that a tile attached again pays once. Each undo runs when
  // the storage is freed, before its memory goes; it must not throw. Guarded by mutex.
  struct Prepared {
    void* begin;
    std::size_t bytes;
    void (*undo)(void* begin, std::size_t bytes);
  };
  std::vector<Prepared> prepared;
};

struct TileState {
  std::shared_ptr<TileStorage> storage;  // null for tiles declared by shape only
  std::size_t offset = 0;                // bytes from the start of storage (sub-tiles)
  std::size_t elem_size = 0;
  std::size_t rank = 0;
  index_t ext[4] = {1, 1, 1, 1};
  std::string name;
  std::uint64_t id = 0;

  // Coherence record, written by the owning controller from the host thread that uses it.
  ControllerCore* owner = nullptr;
  bool internal = false;
  void* image = nullptr;      // the copy the device uses (the host memory on shared-memory devices)
  bool host_valid = true;     // the host memory holds the current data
  bool device_valid = false;  // the device image holds the current data

  std::size_t elements() const {
    std::size_t n = 1;
    for (std::size_t d = 0; d < rank; ++d) n *= static_cast<std::size_t>(ext[d]);
    return n;
  }
  std::size_t bytes() const { return elements() * elem_size; }
  // The bytes of one row (one index of the first dimension): what sub-tiles, row updates and
  // copies between controllers step by.
  std::size_t row_bytes() const { return bytes() / static_cast<std::size_t>(ext[0] > 1 ? ext[0] : 1); }
  void* host() const { return storage ? static_cast<char*>(storage->data) + offset : nullptr; }
  // The largest power of two, up to storage_alignment, that divides the host address, and
  // whether the bytes after the tile up to the next multiple of it may be read (owned storage
  // is padded; wrapped memory ends where the user's does). Vector-wide kernels on shared-memory
  // kinds read these; device images of separate memory spaces are the kind's own allocations.
  std::size_t host_alignment() const;
  bool host_padded() const { return storage && storage->owned; }
  std::string shape_str() const;  // "100x200"
  std::string label() const;      // "'A' (100x200 float)" for messages
};

// What owned storage is aligned to and padded to a multiple of: a cache line, and what vector
// loads like.
inline constexpr std::size_t storage_alignment = 64;

std::uint64_t next_tile_id();
std::shared_ptr<TileState> make_tile_state(std::size_t elem_size, std::size_t rank, const index_t* ext,
                                           std::string name, bool allocate);
std::shared_ptr<TileState> make_row_block(const std::shared_ptr<TileState>& parent, index_t begin, index_t end);
std::string element_type_name(std::size_t elem_size);

// A tile over memory the user has (docs/model.md, "Wrapped memory"): `available` elements of
// `elem_size` bytes at `data`, which must be exactly the shape's count and aligned to
// `elem_align`; a UsageError naming the tile says what is wrong.
struct WrapRequest {
  void* data;
  std::size_t available;  // elements at data; SIZE_MAX: unknown (a bare pointer)
  std::size_t elem_size, elem_align;
  bool read_only;
  Located (*locate)(const void*);  // null unless a container holds the memory
  const void* container;
  const char* source;  // "a std::vector", "a span", "a pointer": for messages
};
std::shared_ptr<TileState> make_wrapped_state(const WrapRequest& w, std::size_t rank, const index_t* ext,
                                              std::string name);
// Throws the UsageError for `what` ("attach of tile ... to controller X") when the tile wraps a
// container whose elements moved; first undoes the registrations of the memory they left.
void check_not_moved(const TileState& t, const std::string& what);

}  // namespace ctrl::detail
