// jacobi: the 2-D stencil of the Controllers paper Fig. 3, an iterative Jacobi solver of the heat
// (Poisson) equation. Each iteration is two launches: a copy of the whole matrix into an internal
// tile, then an update of the interior, every interior cell becoming the mean of its four
// neighbours in the copy. Boundary cells never change.
#pragma once
#include <ctrl/ctrl.hpp>

namespace apps {

// copy = m, over the whole matrix.
struct JacobiCopy {
  static constexpr const char* name = "jacobi_copy";
  static constexpr ctrl::Traits traits{ctrl::coalescing::full, ctrl::arith::low, ctrl::sharing::low};
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<float, 2> dst, ctrl::In<float, 2> src) const {
    dst(t.x, t.y) = src(t.x, t.y);
  }
};

// The interior update, launched over (rows-2, cols-2) threads: thread (x, y) updates cell
// (x+1, y+1). dst is InOut, where the paper has OUT: the kernel writes the interior only and the
// boundary cells keep their values, and an Out parameter promises every element (docs/model.md;
// CTRL_CHECK_OUT=1 checks it). It costs no copy: the copy launch before it read the same tile,
// so the device copy is valid, and an InOut tile is copied in only when it is not. interior(1):
// the cell a thread updates is its index + 1, which lines the CUDA backend's vector-wide runs up
// with the cells (docs/cuda.md).
struct JacobiUpdate {
  static constexpr const char* name = "jacobi_update";
  static constexpr ctrl::Traits traits =
      ctrl::Traits{ctrl::coalescing::medium, ctrl::arith::medium, ctrl::sharing::medium}.interior(1);
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<float, 2> dst, ctrl::In<float, 2> src) const {
    const ctrl::index_t row = t.x + 1, col = t.y + 1;
    dst(row, col) = (src(row + 1, col) + src(row - 1, col) + src(row, col + 1) + src(row, col - 1)) * 0.25F;
  }
};

}  // namespace apps
