// mandelbrot's reference for --check and the tests: the escape time of every pixel, sequential,
// and the judgement of a program's picture against it.
//
// An escape time is not a smooth function of the arithmetic. Near the set's boundary an orbit
// passes close to |z| = 2, or wanders chaotically for hundreds of steps, and a difference in the
// last bit of one step (a fused multiply-add on a GPU, another compiler's contraction) changes
// the count there: a GPU's picture of the whole set at 8192² and 1000 iterations differs from this
// reference in a few thousand pixels, among them points that never escape here and escape after
// hundreds of steps there (bench/results/mandelbrot.md). Two correct programs agree everywhere
// else. So a pixel that differs from the reference is accepted only where the reference itself is
// that sensitive: where moving c by a millionth of a pixel changes the count, or, for an orbit
// that never escapes, sends it somewhere else (a chaotic orbit: a bounded attracting one ends where
// its neighbours do). A wrong row, a shifted column or a lost chunk differs in smooth regions too,
// and fails.
#pragma once
#include "mandelbrot/mandelbrot_view.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <vector>

namespace apps::reference {

// z -> z² + c from z = 0 until |z| > 2 or `limit` steps: the steps taken and where z ended.
struct Orbit {
  int steps = 0;
  double x = 0, y = 0;
};
inline Orbit orbit(double cr, double ci, int limit) {
  Orbit o;
  double x2 = 0, y2 = 0;
  while (o.steps < limit && x2 + y2 <= 4.0) {
    o.y = 2.0 * o.x * o.y + ci;
    o.x = x2 - y2 + cr;
    x2 = o.x * o.x;
    y2 = o.y * o.y;
    ++o.steps;
  }
  return o;
}

inline std::vector<double> mandelbrot(const mandel::View& v, long long rows, long long cols, int limit) {
  std::vector<double> out(static_cast<std::size_t>(rows * cols));
  for (long long i = 0; i < rows; ++i)
    for (long long j = 0; j < cols; ++j)
      out[static_cast<std::size_t>(i * cols + j)] = orbit(v.re(j), v.im(i), limit).steps;
  return out;
}

// Whether the escape time at pixel (i, j) depends on the arithmetic's last bits: moving c by a
// millionth of a pixel in any of four directions changes the count, or moves the end of an orbit
// that never escapes by more than 1e-3.
inline bool mandelbrot_sensitive(const mandel::View& v, long long i, long long j, int limit) {
  const double cr = v.re(j), ci = v.im(i), d = 1e-6 * v.step;
  const Orbit o = orbit(cr, ci, limit);
  const double moves[4][2] = {{d, 0}, {-d, 0}, {0, d}, {0, -d}};
  for (const auto& m : moves) {
    const Orbit p = orbit(cr + m[0], ci + m[1], limit);
    if (p.steps != o.steps) return true;
    if (o.steps == limit && std::hypot(p.x - o.x, p.y - o.y) > 1e-3) return true;
  }
  return false;
}

// What a picture's comparison with the reference found.
struct MandelbrotJudgement {
  std::size_t differ = 0;                    // pixels whose count differs from the reference's
  std::size_t unexplained = 0;               // of which where the reference is not sensitive: wrong
  long long first_row = -1, first_col = -1;  // the first unexplained pixel (or the first differing one)
  float got = 0;
  double want = 0;
  double max_diff = 0;  // the largest |count - reference count|
  // At most this share of pixels may differ even where sensitive: a picture that is mostly
  // boundary is still mostly the same.
  static constexpr double max_share = 0.01;
  bool ok(std::size_t pixels) const {
    return unexplained == 0 && static_cast<double>(differ) <= max_share * static_cast<double>(pixels);
  }
};

inline MandelbrotJudgement judge_mandelbrot(std::span<const float> got, std::span<const double> ref,
                                            const mandel::View& v, long long cols, int limit) {
  MandelbrotJudgement j;
  for (std::size_t k = 0; k < got.size() && k < ref.size(); ++k) {
    if (static_cast<double>(got[k]) == ref[k]) continue;
    j.max_diff = std::max(j.max_diff, std::abs(static_cast<double>(got[k]) - ref[k]));
    if (std::isnan(got[k])) j.max_diff = std::numeric_limits<double>::quiet_NaN();
    const long long row = static_cast<long long>(k) / cols, col = static_cast<long long>(k) % cols;
    // A count is a whole number from 0 to the limit wherever it is.
    const bool count = got[k] >= 0 && got[k] <= static_cast<float>(limit) && got[k] == std::floor(got[k]);
    const bool explained = count && mandelbrot_sensitive(v, row, col, limit);
    if (!explained) ++j.unexplained;
    if ((j.differ == 0 && j.unexplained == 0) || (!explained && j.unexplained == 1)) {
      j.first_row = row, j.first_col = col, j.got = got[k], j.want = ref[k];
    }
    ++j.differ;
  }
  return j;
}

}  // namespace apps::reference
