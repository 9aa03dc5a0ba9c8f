// The poison of checking mode for Out parameters (docs/model.md, "Out: the kernel writes every
// element"). Before a launch every Out tile's image is filled with a pattern no kernel is likely
// to write; after it, the elements that still hold the pattern are the ones the kernel left
// unwritten. The pattern depends only on the element size (the core knows no element types): each
// element is a run of units, the largest of 8, 4, 2 or 1 bytes that divides its size, and each
// unit holds
//   8 bytes: 0x7ff4a5a5a5a5a5a5, a signalling NaN as a double,
//   4 bytes: 0x7fa5a5a5, a signalling NaN as a float,
//   2 bytes: 0x7da5, a signalling NaN as a half,
//   1 byte:  0xa5,
// in the machine's byte order. Arithmetic never yields a signalling NaN (it quiets them), and as
// integers the patterns are large, odd values nobody writes as a sentinel. One-byte elements can
// only hold 256 values: a kernel that writes 0xa5 into one is reported as having left it unwritten.
#pragma once
#include <cstddef>

namespace ctrl::detail {

// What a scan found: how many elements still hold the pattern, and the first one's index.
struct PoisonScan {
  std::size_t unwritten = 0;
  std::size_t first = 0;
};

// The unit of the pattern for elements of this size (8, 4, 2 or 1 bytes).
std::size_t poison_unit(std::size_t elem_size);
// poison_block_bytes of pattern for elements of this size, in static storage: a kind whose images
// the host cannot address copies it to the device and repeats it there.
inline constexpr std::size_t poison_block_bytes = 256;
const void* poison_block(std::size_t elem_size);

// The same operations on memory the host addresses (the cpu and offload kinds' images).
void fill_poison(void* image, std::size_t bytes, std::size_t elem_size);
PoisonScan scan_poison(const void* image, std::size_t bytes, std::size_t elem_size);

}  // namespace ctrl::detail
