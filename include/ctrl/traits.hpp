// A kernel's qualitative characterization (the Controllers paper §3.1.2, §4.4). It is the programmer's
// hint from which the CUDA backend picks a launch geometry; CPU controllers block the index space
// regularly and ignore it. A kernel states it as a static member:
//   static constexpr ctrl::Traits traits{ctrl::coalescing::full, ctrl::arith::low, ctrl::sharing::low};
#pragma once
#include <cstdint>
#include <string>

namespace ctrl {

// How well a warp's global-memory accesses coalesce.
enum class coalescing : unsigned char { deflt, full, medium, scattered };
// Arithmetic or logic operations per global-memory access.
enum class arith : unsigned char { deflt, high, medium, low };
// Accesses to data shared by the threads of one block, per global-memory access.
enum class sharing : unsigned char { deflt, high, medium, low };

// A fixed block shape, for kernels whose code relies on it (e.g. shared-memory tiling).
struct BlockShape {
  std::uint32_t x = 0, y = 0, z = 0;  // x is the slowest index (rows), as in Threads
  constexpr bool fixed() const { return x != 0; }
};

struct Traits {
  coalescing coal = coalescing::deflt;
  ctrl::arith ops = arith::deflt;
  ctrl::sharing share = sharing::deflt;
  BlockShape block{};

  constexpr Traits() = default;
  constexpr Traits(coalescing c, ctrl::arith a, ctrl::sharing s) : coal(c), ops(a), share(s) {}
  constexpr explicit Traits(BlockShape b) : block(b) {}

  // Traits::fixed_block(32, 32): the paper's "fixed-square-32".
  static constexpr Traits fixed_block(std::uint32_t rows, std::uint32_t cols, std::uint32_t depth = 1) {
    return Traits(BlockShape{rows, cols, depth});
  }
  std::string str() const;  // "full/low/low" or "fixed 32x32x1"
};

}  // namespace ctrl
