// mandelbrot's picture in the complex plane: which point each pixel stands for. Shared by the ctrl
// kernel, both twins and the reference (host and device code; no ctrl runtime).
#pragma once
#include <ctrl/config.hpp>  // CTRL_HOST_DEVICE

namespace apps::mandel {

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
  return {center_re - 0.5 * width + 0.5 * step, center_im + 0.5 * step * static_cast<double>(rows) - 0.5 * step, step};
}

// A fixed region of the plane, `width` × `height` around (center_re, center_im), sampled by
// rows × cols pixels (not square unless rows / cols = height / width): the loop's picture, the same
// region at every number of rows, so that x rows of it cost what x rows of any other instance of
// it cost on average. Pixel (row i, column j) is the point at the centre of its cell.
struct Region {
  double re0 = 0, re_step = 0, im0 = 0, im_step = 0;
  CTRL_HOST_DEVICE double re(long long j) const { return re0 + static_cast<double>(j) * re_step; }
  CTRL_HOST_DEVICE double im(long long i) const { return im0 - static_cast<double>(i) * im_step; }
};

inline Region region(double center_re, double center_im, double width, double height, long long rows, long long cols) {
  const double re_step = width / static_cast<double>(cols), im_step = height / static_cast<double>(rows);
  return {center_re - 0.5 * width + 0.5 * re_step, re_step, center_im + 0.5 * height - 0.5 * im_step, im_step};
}

}  // namespace apps::mandel
