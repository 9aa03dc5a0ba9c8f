// Tile: an n-D (1–4) row-major array of trivially copyable elements. A tile is host-allocated,
// wraps memory the user already has (ctrl::wrap, <ctrl/wrap.hpp>: a Tile<const T, N> when that
// memory is const, which kernels may take only as In), or is declared by shape only (for
// internal tiles that live in one controller's memory). Host code
// and kernels read elements with the same expression: A(i, j). Copies of a Tile are handles to the
// same array; rows(b, e) is a row-block sub-tile that shares its storage.
#pragma once
#include <ctrl/detail/tile_state.hpp>
#include <ctrl/view.hpp>

#include <cstring>
#include <initializer_list>
#include <span>
#include <type_traits>

namespace ctrl {

// Tag for tiles that get no host memory (internal tiles).
struct shape_only_t {
  explicit shape_only_t() = default;
};
inline constexpr shape_only_t shape_only{};

template <class T, std::size_t N>
class Tile {
  static_assert(N >= 1 && N <= max_tile_rank, "ctrl tiles have 1 to 4 dimensions");
  static_assert(std::is_trivially_copyable_v<std::remove_const_t<T>> && !std::is_volatile_v<T>,
                "ctrl tiles hold trivially copyable elements");

 public:
  using element_type = T;
  static constexpr std::size_t rank = N;

  // A host-allocated tile (contents uninitialised).
  explicit Tile(const index_t (&ext)[N], std::string name = {})
      : Tile(detail::make_tile_state(sizeof(T), N, ext, std::move(name), true)) {
    static_assert(!std::is_const_v<T>, "a tile of const elements wraps const memory the user has (ctrl::wrap)");
  }
  // A tile declared by shape only: no host memory; a controller can create it as internal.
  Tile(const index_t (&ext)[N], shape_only_t, std::string name = {})
      : Tile(detail::make_tile_state(sizeof(T), N, ext, std::move(name), false)) {}

  // Host element access; the host must not touch a tile between attach and detach.
  template <class... I>
  T& operator()(I... i) const {
    return view_(i...);
  }
  T& operator[](index_t linear) const { return view_[linear]; }

  View<T, N> view() const { return view_; }
  T* data() const { return view_.data(); }
  std::span<T> elements() const { return {view_.data(), allocated() ? size() : 0}; }
  // Whether the tile has host memory: ctrl's, or the user's it wraps.
  bool allocated() const { return state_->storage != nullptr; }
  // Whether the host memory is the user's (ctrl::wrap): ctrl never frees it.
  bool wrapped() const { return allocated() && !state_->storage->owned; }
  // What vector-wide code may assume of the host memory (and of the image on shared-memory
  // kinds, which is the same memory): the largest power of two up to 64 that divides its
  // address, and whether the bytes after it up to the next multiple of 64 may be read. Memory
  // ctrl allocates is 64-byte aligned and padded (a row block starts where its rows do);
  // wrapped memory is aligned as its element type requires and ends where the user's does.
  // (A GPU's image is the kind's own allocation; its vector runs check each pointer at launch.)
  std::size_t alignment() const { return state_->host_alignment(); }
  bool padded() const { return state_->host_padded(); }

  index_t extent(std::size_t d) const { return state_->ext[d]; }
  std::size_t size() const { return state_->elements(); }
  std::size_t bytes() const { return state_->bytes(); }
  const std::string& name() const { return state_->name; }
  std::string label() const { return state_->label(); }

  // Rows [begin, end) as a tile that shares this one's storage (x is the first dimension).
  Tile rows(index_t begin, index_t end) const { return Tile(detail::make_row_block(state_, begin, end)); }

  void fill(const T& v) const {
    for (T& e : elements()) e = v;
  }

  // Internal: a handle on a state made by detail::make_*_state (ctrl::wrap).
  static Tile from_state(std::shared_ptr<detail::TileState> s) { return Tile(std::move(s)); }
  // Internal: the shared state, for controllers.
  detail::TileState& state() const { return *state_; }
  const std::shared_ptr<detail::TileState>& state_ptr() const { return state_; }

 private:
  explicit Tile(std::shared_ptr<detail::TileState> s) : state_(std::move(s)) {
    index_t ext[N];
    for (std::size_t d = 0; d < N; ++d) ext[d] = state_->ext[d];
    view_ = View<T, N>(static_cast<T*>(state_->host()), ext);
  }

  std::shared_ptr<detail::TileState> state_;
  View<T, N> view_;
};

template <class T>
inline constexpr bool is_tile_v = false;
template <class T, std::size_t N>
inline constexpr bool is_tile_v<Tile<T, N>> = true;

}  // namespace ctrl
