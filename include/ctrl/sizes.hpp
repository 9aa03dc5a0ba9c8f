// Checked sizes: the one place where an array's element count, its bytes and the sum of a
// distribution's parts are computed before anything is allocated. A product or sum that wraps
// would allocate a small buffer and then write far past it (or run on nothing and report a
// checksum of 0), so every program, workload and tool path asks here first and stops with a
// UsageError naming the limit (exit 2) instead. Host-only.
#pragma once
#include <ctrl/threads.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

namespace ctrl {

// The most bytes one array may take: what a pointer difference can span (and so what an index_t
// offset into the array can reach).
inline constexpr std::size_t max_array_bytes = static_cast<std::size_t>(PTRDIFF_MAX);

// The element count of an array with these extents of `elem_size`-byte elements. UsageError when
// an extent is negative, or when count x elem_size exceeds max_array_bytes; the message reads
// "3.7e+19 elements exceed the limit of 2305843009213693951 (...)", and callers put the option or
// file at fault in front of it.
std::size_t checked_elements(std::span<const index_t> extents, std::size_t elem_size);
inline std::size_t checked_elements(std::initializer_list<index_t> extents, std::size_t elem_size) {
  return checked_elements(std::span<const index_t>(extents.begin(), extents.size()), elem_size);
}
// checked_elements(...) x elem_size.
std::size_t checked_bytes(std::span<const index_t> extents, std::size_t elem_size);

// The sum of a distribution's parts (rows per processor). UsageError when a part is negative or
// the sum exceeds index_t.
index_t checked_sum(std::span<const index_t> parts);

// For std::bad_alloc: a DeviceError "cannot allocate N bytes (H) for WHAT" (exit 1 in the tools:
// the size is valid, this machine just lacks the memory).
[[noreturn]] void throw_cannot_allocate(std::size_t bytes, const std::string& what);

}  // namespace ctrl
