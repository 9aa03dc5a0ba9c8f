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

// Host memory of a host-allocated tile, shared by the tile and its sub-tiles. It records which
// byte ranges are attached to a controller, so that overlapping parts never go to two places.
struct TileStorage {
  explicit TileStorage(std::size_t bytes);
  ~TileStorage();
  TileStorage(const TileStorage&) = delete;
  TileStorage& operator=(const TileStorage&) = delete;

  void* data = nullptr;
  std::size_t bytes = 0;

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
  void* host() const { return storage ? static_cast<char*>(storage->data) + offset : nullptr; }
  std::string shape_str() const;  // "100x200"
  std::string label() const;      // "'A' (100x200 float)" for messages
};

std::uint64_t next_tile_id();
std::shared_ptr<TileState> make_tile_state(std::size_t elem_size, std::size_t rank, const index_t* ext,
                                           std::string name, bool allocate);
std::shared_ptr<TileState> make_row_block(const std::shared_ptr<TileState>& parent, index_t begin,
                                          index_t end);
std::string element_type_name(std::size_t elem_size);

}  // namespace ctrl::detail
