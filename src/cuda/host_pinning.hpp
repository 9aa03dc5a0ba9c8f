// Page-locking of host tiles for transfers (the user pins nothing).
//
// When a tile is attached to a CUDA controller, the pages of its range that lie wholly inside its
// storage are registered with cudaHostRegister (portable: every device may use them), except
// those already registered. The registration is kept for the storage's life, not only until
// detach: a tile attached again (a program's repeated runs, a distribution's iterations) pays for
// it once. It is undone when the storage is freed (TileStorage::prepared), or, for memory the
// user had (ctrl::wrap), also when its container is found to have moved. Ranges of fewer than
// min_pinned bytes are not registered: their copies go through the driver's own staging.
//
// Copies are split at registration boundaries: the registered pieces go by DMA at the pinned
// bandwidth; the rest (at most the partial pages at the storage's ends, or small tiles) through
// the driver's pageable path.
#pragma once
#include <ctrl/detail/tile_state.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ctrl::detail {

inline constexpr std::size_t min_pinned = std::size_t{64} << 10;

// Registers what the tile's range needs (see above). Never throws: where registration fails the
// copies take the pageable path. Returns the bytes newly registered.
std::size_t pin_tile_range(TileState& t);

struct HostPiece {
  char* host;
  std::size_t offset;  // from the start of the copy
  std::size_t bytes;
  bool pinned;
};
// The pieces of [host, host + bytes), in order.
std::vector<HostPiece> host_pieces(void* host, std::size_t bytes);

// For tests and benchmarks: the bytes of host memory ctrl keeps registered now.
std::size_t pinned_host_bytes();

}  // namespace ctrl::detail
