#include "poison.hpp"

#include <array>
#include <cstdint>
#include <cstring>

namespace ctrl::detail {

namespace {

template <class U>
constexpr U pattern() {
  if constexpr (sizeof(U) == 8)
    return 0x7ff4a5a5a5a5a5a5ULL;
  else if constexpr (sizeof(U) == 4)
    return 0x7fa5a5a5U;
  else if constexpr (sizeof(U) == 2)
    return 0x7da5U;
  else
    return 0xa5U;
}

template <class U>
const void* block_of() {
  static const auto block = [] {
    std::array<unsigned char, poison_block_bytes> b{};
    const U p = pattern<U>();
    for (std::size_t i = 0; i < b.size(); i += sizeof(U)) std::memcpy(b.data() + i, &p, sizeof(U));
    return b;
  }();
  return block.data();
}

template <class U>
void fill(unsigned char* image, std::size_t bytes) {
  const U p = pattern<U>();
  for (std::size_t i = 0; i < bytes; i += sizeof(U)) std::memcpy(image + i, &p, sizeof(U));
}

// Element by element, unit by unit (memcpy: images need not be aligned to a unit).
template <class U>
PoisonScan scan(const unsigned char* image, std::size_t bytes, std::size_t elem_size) {
  const U p = pattern<U>();
  PoisonScan s;
  const std::size_t n = bytes / elem_size;
  for (std::size_t e = 0; e < n; ++e) {
    const unsigned char* elem = image + e * elem_size;
    bool poisoned = true;
    for (std::size_t k = 0; k < elem_size && poisoned; k += sizeof(U)) {
      U u;
      std::memcpy(&u, elem + k, sizeof(U));
      poisoned = u == p;
    }
    if (poisoned && s.unwritten++ == 0) s.first = e;
  }
  return s;
}

}  // namespace

std::size_t poison_unit(std::size_t elem_size) {
  if (elem_size % 8 == 0) return 8;
  if (elem_size % 4 == 0) return 4;
  return elem_size % 2 == 0 ? 2 : 1;
}

const void* poison_block(std::size_t elem_size) {
  switch (poison_unit(elem_size)) {
    case 8:
      return block_of<std::uint64_t>();
    case 4:
      return block_of<std::uint32_t>();
    case 2:
      return block_of<std::uint16_t>();
    default:
      return block_of<std::uint8_t>();
  }
}

void fill_poison(void* image, std::size_t bytes, std::size_t elem_size) {
  auto* p = static_cast<unsigned char*>(image);
  switch (poison_unit(elem_size)) {
    case 8:
      return fill<std::uint64_t>(p, bytes);
    case 4:
      return fill<std::uint32_t>(p, bytes);
    case 2:
      return fill<std::uint16_t>(p, bytes);
    default:
      return fill<std::uint8_t>(p, bytes);
  }
}

PoisonScan scan_poison(const void* image, std::size_t bytes, std::size_t elem_size) {
  if (elem_size == 0) return {};
  const auto* p = static_cast<const unsigned char*>(image);
  switch (poison_unit(elem_size)) {
    case 8:
      return scan<std::uint64_t>(p, bytes, elem_size);
    case 4:
      return scan<std::uint32_t>(p, bytes, elem_size);
    case 2:
      return scan<std::uint16_t>(p, bytes, elem_size);
    default:
      return scan<std::uint8_t>(p, bytes, elem_size);
  }
}

}  // namespace ctrl::detail
