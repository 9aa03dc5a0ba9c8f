// mandelbrot: the escape time of each pixel of a picture of the Mandelbrot set, in double. The
// first case study whose cost per element varies widely: a pixel inside the set runs the whole
// iteration limit, one far outside escapes after a step or two, so rows through the set cost
// hundreds of times more than rows beside it.
#pragma once
#include "mandelbrot/mandelbrot_view.hpp"

#include <ctrl/ctrl.hpp>

#include <cstdint>

namespace apps {

namespace mandel {

// The number of steps z -> z² + c, from z = 0, until |z| > 2; `limit` when it never escapes
// within `limit` steps (the point is taken to be in the set).
CTRL_HOST_DEVICE inline int escape(double cr, double ci, int limit) {
  double x = 0, y = 0, x2 = 0, y2 = 0;
  int n = 0;
  while (n < limit && x2 + y2 <= 4.0) {
    y = 2.0 * x * y + ci;
    x = x2 - y2 + cr;
    x2 = x * x;
    y2 = y * y;
    ++n;
  }
  return n;
}

}  // namespace mandel

// Generic: one logical thread per pixel; x is the row, y the column. Its cost is irregular, so
// CPU controllers hand out small chunks of rows to whichever worker is free.
struct Mandelbrot {
  static constexpr const char* name = "mandelbrot";
  static constexpr ctrl::Traits traits{ctrl::coalescing::full, ctrl::arith::high, ctrl::sharing::low,
                                       ctrl::cost::irregular};
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<float, 2> iterations, mandel::View v, int limit) const {
    iterations(t.x, t.y) = static_cast<float>(mandel::escape(v.re(t.y), v.im(t.x), limit));
  }
};

// For the loop (mandelbrot_workload.cpp): rows dealt over a fixed region of the plane, so that
// each processor's rows sample the whole picture. Row x of the tile is row place(x) of the
// region's picture.
struct MandelbrotDealt {
  static constexpr const char* name = "mandelbrot_dealt";
  static constexpr ctrl::Traits traits = Mandelbrot::traits;
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<float, 2> iterations, ctrl::In<std::int64_t, 1> place,
                                   mandel::Region r, int limit) const {
    iterations(t.x, t.y) = static_cast<float>(mandel::escape(r.re(t.y), r.im(place(t.x)), limit));
  }
};

}  // namespace apps
