#include <ctrl/errors.hpp>
#include <ctrl/sizes.hpp>

#include <fmt/format.h>

#include <limits>

namespace ctrl {

namespace {
// The exact product as a double, for the message only (it may be far beyond any integer type).
double product(std::span<const index_t> extents) {
  double p = 1;
  for (const index_t e : extents) p *= static_cast<double>(e);
  return p;
}
}  // namespace

std::size_t checked_elements(std::span<const index_t> extents, std::size_t elem_size) {
  if (elem_size == 0) elem_size = 1;
  const std::size_t limit = max_array_bytes / elem_size;
  for (const index_t e : extents)
    if (e < 0) throw UsageError(fmt::format("extent {} is negative", e));
  std::size_t count = 1;
  bool over = false;
  for (const index_t e : extents) {
    // Once over, keep looking for a zero extent (an empty array fits whatever the others are).
    if (e == 0) return 0;
    if (over || count > limit / static_cast<std::size_t>(e))
      over = true;
    else
      count *= static_cast<std::size_t>(e);
  }
  if (over) {
    throw UsageError(
        fmt::format("{:.2g} elements exceed the limit of {} (an array of {}-byte elements must fit in "
                    "{} bytes)",
                    product(extents), limit, elem_size, max_array_bytes));
  }
  return count;
}

std::size_t checked_bytes(std::span<const index_t> extents, std::size_t elem_size) {
  return checked_elements(extents, elem_size) * elem_size;
}

index_t checked_sum(std::span<const index_t> parts) {
  index_t sum = 0;
  for (const index_t x : parts) {
    if (x < 0) throw UsageError(fmt::format("a part of {}: parts must not be negative", x));
    if (x > std::numeric_limits<index_t>::max() - sum) {
      double total = 0;
      for (const index_t y : parts) total += static_cast<double>(y);
      throw UsageError(
          fmt::format("the parts sum to {:.2g}, beyond the limit of {}", total, std::numeric_limits<index_t>::max()));
    }
    sum += x;
  }
  return sum;
}

void throw_cannot_allocate(std::size_t bytes, const std::string& what) {
  throw DeviceError(fmt::format("cannot allocate {} bytes ({:.3g} GiB) for {}: not enough memory", bytes,
                                static_cast<double>(bytes) / (1024.0 * 1024 * 1024), what));
}

}  // namespace ctrl
