// ctrl::wrap: a tile over memory the user already has (docs/model.md, "Wrapped memory"). Nothing
// is copied to make it: the tile's host memory is the user's, with the attach/detach rules of
// any tile. Kinds that share the host's memory run kernels on it in place (no transfer at all);
// kinds with a memory space of their own copy it in and out as for an owned tile, and the CUDA
// kind page-locks it first (so copies run at the pinned rate) until the tile's last handle goes.
//
//   std::vector<float> v = read_input();          // the user's
//   auto a = ctrl::wrap(v, {rows, cols}, "a");    // Tile<float, 2> over v's elements
//   const std::vector<float>& in = ...;
//   auto b = ctrl::wrap(in, {rows, cols}, "b");   // Tile<const float, 2>: kernels take it as In only
//
// The user's side of the contract: the memory stays valid and in place while any handle of the
// tile (or of its row blocks) exists, and the host does not touch it between attach and detach;
// ctrl never frees it. What ctrl checks: the element count against the shape (UsageError at wrap),
// alignment to the element type, a null pointer; a std::vector that reallocated or changed size
// since it was wrapped (UsageError at the next attach or detach, which then copies nothing into
// its old memory); const memory taken as Out or InOut (a compile error). A bare pointer carries
// no size: its shape is trusted. Wrap memory once and split it with rows(): two wraps of the
// same memory are two storages, whose overlapping attachments ctrl cannot see.
#pragma once
#include <ctrl/tile.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ctrl {

namespace detail {

template <class V>
Located locate_vector(const void* container) {
  const V& v = *static_cast<const V*>(container);
  return {v.data(), v.size() * sizeof(typename V::value_type)};
}

template <class E, std::size_t N>
Tile<E, N> wrap_memory(E* data, std::size_t available, const index_t (&ext)[N], std::string name,
                       Located (*locate)(const void*), const void* container, const char* source) {
  using T = std::remove_const_t<E>;
  const WrapRequest w{const_cast<T*>(data), available, sizeof(T), alignof(T),
                      std::is_const_v<E>,   locate,    container, source};
  return Tile<E, N>::from_state(make_wrapped_state(w, N, ext, std::move(name)));
}

}  // namespace detail

// The elements of a span, as a tile of this shape: the span must hold exactly its count.
template <class E, std::size_t Extent, std::size_t N>
Tile<E, N> wrap(std::span<E, Extent> data, const index_t (&ext)[N], std::string name = {}) {
  return detail::wrap_memory<E, N>(data.data(), data.size(), ext, std::move(name), nullptr, nullptr, "a span");
}

// Elements at a bare pointer, as a tile of this shape (the shape is trusted: nothing says how
// many there are).
template <class E, std::size_t N>
Tile<E, N> wrap(E* data, const index_t (&ext)[N], std::string name = {}) {
  return detail::wrap_memory<E, N>(data, SIZE_MAX, ext, std::move(name), nullptr, nullptr, "a pointer");
}

// A std::vector's elements, as a tile of this shape (or 1-D over all of them). The tile
// remembers the vector: an attach or detach after it reallocated or changed size is refused.
// The vector object itself must outlive the tile's use, as its elements must.
template <class T, class A, std::size_t N>
Tile<T, N> wrap(std::vector<T, A>& v, const index_t (&ext)[N], std::string name = {}) {
  return detail::wrap_memory<T, N>(v.data(), v.size(), ext, std::move(name), &detail::locate_vector<std::vector<T, A>>,
                                   &v, "a std::vector");
}
template <class T, class A, std::size_t N>
Tile<const T, N> wrap(const std::vector<T, A>& v, const index_t (&ext)[N], std::string name = {}) {
  return detail::wrap_memory<const T, N>(v.data(), v.size(), ext, std::move(name),
                                         &detail::locate_vector<std::vector<T, A>>, &v, "a const std::vector");
}
template <class T, class A>
Tile<T, 1> wrap(std::vector<T, A>& v, std::string name = {}) {
  return wrap(v, {static_cast<index_t>(v.size())}, std::move(name));
}
template <class T, class A>
Tile<const T, 1> wrap(const std::vector<T, A>& v, std::string name = {}) {
  return wrap(v, {static_cast<index_t>(v.size())}, std::move(name));
}
// A temporary vector dies at the end of the statement: its elements cannot be wrapped.
template <class T, class A, std::size_t N>
void wrap(std::vector<T, A>&& v, const index_t (&ext)[N], std::string name = {}) = delete;
template <class T, class A>
void wrap(std::vector<T, A>&& v, std::string name = {}) = delete;

}  // namespace ctrl
