// A kernel's qualitative characterization (the Controllers paper §3.1.2, §4.4). It is the programmer's
// hint from which the CUDA backend picks a launch geometry, and from which CPU controllers choose
// between static blocks and dynamic balance (`work`). A kernel states it as a static member:
//   static constexpr ctrl::Traits traits{ctrl::coalescing::full, ctrl::arith::low, ctrl::sharing::low};
//   static constexpr ctrl::Traits traits{ctrl::cost::irregular};                  // e.g. Mandelbrot
// A stencil launched over the interior of its tiles says where its own element lies:
//   static constexpr ctrl::Traits traits =
//       ctrl::Traits{ctrl::coalescing::medium, ctrl::arith::medium, ctrl::sharing::medium}.interior(1);
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

// How the cost of one logical thread varies over the index space. regular: every thread costs
// about the same, so equal static blocks finish together. irregular: costs differ widely and
// unpredictably (Mandelbrot's escape loop, sparse rows), so CPU controllers hand out small chunks
// to whichever worker is free instead of making every worker wait for the slowest block. The
// CUDA geometry does not depend on it: a GPU's block scheduler already balances that way.
enum class cost : unsigned char { regular, irregular };

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
  ctrl::cost work = cost::regular;
  // Where a logical thread's own element lies in the tiles: at its index + inset in every dimension
  // (a stencil launched over the interior of its tiles, as Jacobi's update: thread (x, y) updates
  // element (x+1, y+1), inset 1). The CUDA backend lines its vector-wide runs up with it
  // (docs/cuda.md). -1: not stated.
  std::int8_t inset = -1;

  constexpr Traits() = default;
  constexpr Traits(coalescing c, ctrl::arith a, ctrl::sharing s, ctrl::cost w = cost::regular)
      : coal(c), ops(a), share(s), work(w) {}
  constexpr explicit Traits(BlockShape b, ctrl::cost w = cost::regular) : block(b), work(w) {}
  constexpr explicit Traits(ctrl::cost w) : work(w) {}

  // The same characterization with another cost: Traits::fixed_block(16, 16).with(cost::irregular).
  constexpr Traits with(ctrl::cost w) const {
    Traits t = *this;
    t.work = w;
    return t;
  }

  // The same characterization for a body launched over the interior of its tiles, `inset`
  // elements in from each edge (0 to 127): Traits{...}.interior(1).
  constexpr Traits interior(int r) const {
    Traits t = *this;
    t.inset = static_cast<std::int8_t>(r < 0 ? -1 : (r > 127 ? 127 : r));
    return t;
  }

  // Traits::fixed_block(32, 32): the paper's "fixed-square-32".
  static constexpr Traits fixed_block(std::uint32_t rows, std::uint32_t cols, std::uint32_t depth = 1) {
    return Traits(BlockShape{rows, cols, depth});
  }
  std::string str() const;  // "full/low/low" or "fixed 32x32x1", then ", interior 1", ", irregular" if so
};

}  // namespace ctrl
