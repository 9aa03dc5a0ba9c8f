// mandelbrot as a case study: no inputs; the escape times of a ROWS × COLS picture of the set
// (a 2-D float32 array `iterations`), with the region (--center-re, --center-im, --width) and the
// iteration limit (--iterations) as options, and the picture itself with --png.
#pragma once
#include "common/app.hpp"
#include "mandelbrot/mandelbrot_picture.hpp"
#include "mandelbrot/mandelbrot_reference.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace apps {

struct MandelbrotParams {
  double center_re = -0.75;
  double center_im = 0.0;
  double width = 3.0;
  int iterations = 1000;
};

namespace mandel {

// Escape times are stored as float32, exact up to 2^24.
inline constexpr int max_iterations = 1 << 24;

// A picture of a --size: its extents, as a shape and as indexes, and where it lies in the plane.
struct Picture {
  Shape shape;  // {rows, cols}
  std::int64_t rows = 0, cols = 0;
  View view;
};

// The picture of a --size (ROWS [COLS]), refusing one whose pixels double precision cannot tell
// apart. Checked by the problem before any work; each program's body asks for it again.
inline Picture picture(const MandelbrotParams& p, const std::vector<std::int64_t>& size) {
  Picture pic;
  pic.shape = rows_cols(size);
  pic.rows = static_cast<std::int64_t>(pic.shape[0]);
  pic.cols = static_cast<std::int64_t>(pic.shape[1]);
  const View v = view(p.center_re, p.center_im, p.width, pic.rows, pic.cols);
  const double far =
      std::max({std::abs(v.re(0)), std::abs(v.re(pic.cols - 1)), std::abs(v.im(0)), std::abs(v.im(pic.rows - 1)), 1.0});
  if (!(v.step > 0x1p-44 * far)) {  // neighbours 2^8 ulps apart at the least
    throw BadInput("--width " + number(p.width) + " over " + std::to_string(pic.cols) + " columns is a pixel of " +
                   number(v.step) + ", too small for double precision around (" + number(p.center_re) + ", " +
                   number(p.center_im) + "): neighbouring pixels would be the same point");
  }
  pic.view = v;
  return pic;
}

}  // namespace mandel

inline Problem mandelbrot_problem(MandelbrotParams& params) {
  Problem p;
  p.name = "mandelbrot";
  p.summary = "mandelbrot: the escape time of every pixel of a picture of the Mandelbrot set, in double";
  p.outputs = {"iterations"};
  p.size_help = "ROWS [COLS] (the picture's pixels; COLS defaults to ROWS)";
  p.min_size_args = 1;
  p.max_size_args = 2;
  p.default_size = {2048, 2048};
  p.add_options = [&params](OptionSink& o) {
    o.add("--center-re", params.center_re, "the real part of the picture's centre");
    o.add("--center-im", params.center_im, "the imaginary part of the picture's centre");
    o.add("--width", params.width, "the picture's width in the complex plane (> 0); pixels are square");
    o.add("--iterations", params.iterations, "the iteration limit: a point that has not escaped by then is in the set",
          1);
  };
  p.check_options = [&params] {
    if (!std::isfinite(params.center_re)) throw BadInput("--center-re must be a finite number");
    if (!std::isfinite(params.center_im)) throw BadInput("--center-im must be a finite number");
    if (!(std::isfinite(params.width) && params.width > 0)) throw BadInput("--width must be a finite number above 0");
    if (params.iterations > mandel::max_iterations) {
      throw BadInput("--iterations " + std::to_string(params.iterations) +
                     ": at most 16777216 (2^24), as escape times are written as float32");
    }
  };
  p.check_inputs = [](const Inputs&) {};
  p.size_shapes = [](const std::vector<std::int64_t>& size) { return std::vector<Shape>{rows_cols(size)}; };
  p.check_size = [&params](const std::vector<std::int64_t>& size) { mandel::picture(params, size); };
  p.generate = [](const std::vector<std::int64_t>&, std::uint64_t) { return std::vector<Array>{}; };
  p.verify = [&params](const Inputs&, const std::vector<Array>& out) {
    const Array& it = out[0];
    const auto rows = static_cast<long long>(it.shape[0]), cols = static_cast<long long>(it.shape[1]);
    const mandel::View v = mandel::view(params.center_re, params.center_im, params.width, rows, cols);
    const auto ref = reference::mandelbrot(v, rows, cols, params.iterations);
    const auto j = reference::judge_mandelbrot(it.data, ref, v, cols, params.iterations);
    Verdict verdict;
    verdict.ok = j.ok(it.data.size());
    verdict.max_error = j.max_diff;
    const std::string first = "row " + std::to_string(j.first_row) + ", column " + std::to_string(j.first_col) + ": " +
                              number(j.got) + " against " + number(j.want);
    if (j.differ == 0)
      verdict.detail = "every escape time equals the reference's";
    else if (j.unexplained > 0)
      verdict.detail = std::to_string(j.unexplained) + " of " + std::to_string(j.differ) +
                       " differing escape times lie where the reference is not sensitive (first: " + first + ")";
    else
      verdict.detail = std::to_string(j.differ) + " escape times differ, all on the set's boundary, where a " +
                       "rounding difference changes them" + (verdict.ok ? "" : ", but more than 1 % of the pixels") +
                       " (first: " + first + ")";
    return verdict;
  };
  p.parameters = [&params] {
    return "center_re=" + number(params.center_re) + " center_im=" + number(params.center_im) +
           " width=" + number(params.width) + " iterations=" + std::to_string(params.iterations);
  };
  p.renders.push_back({"--png", "write the picture as an 8-bit RGB PNG file (black: the set)",
                       [&params](ctrl::io::AtomicFile& f, const std::vector<Array>& out) {
                         f.write(mandel::png(out[0].data, out[0].shape[0], out[0].shape[1], params.iterations));
                       },
                       png_unavailable()});
  return p;
}

}  // namespace apps
