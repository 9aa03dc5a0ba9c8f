// mandelbrot: the escape time of each pixel of a picture of the Mandelbrot set, in double. The
// first case study whose cost per element varies widely: a pixel inside the set runs the whole
// iteration limit, one far outside escapes after a step or two, so rows through the set cost
// hundreds of times more than rows beside it.
#pragma once
#include <ctrl/ctrl.hpp>

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

// Where the picture lies in the complex plane: pixel (row i, column j) is the point
// (re0 + j·step, im0 - i·step), row 0 at the top.
struct View {
  double re0 = 0, im0 = 0, step = 0;
  CTRL_HOST_DEVICE double re(long long j) const { return re0 + static_cast<double>(j) * step; }
  CTRL_HOST_DEVICE double im(long long i) const { return im0 - static_cast<double>(i) * step; }
};

// The view of a rows × cols picture centred on (center_re, center_im), `width` wide in the
// plane, with square pixels; each pixel stands for the point at its centre.
inline View view(double center_re, double center_im, double width, long long rows, long long cols) {
  const double step = width / static_cast<double>(cols);
  return {center_re - 0.5 * width + 0.5 * step, center_im + 0.5 * step * static_cast<double>(rows) - 0.5 * step,
          step};
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

}  // namespace apps
