// mandelbrot's picture (--png): escape times as colours. Points of the set are black; the others
// run through a blue-white-orange gradient by the logarithm of their escape time, so that the
// bands far from the set, where times are small and close, stay apart, and those near it, where
// times run into the hundreds, do not blur into one colour.
#pragma once
#include "common/png.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace apps::mandel {

inline std::array<std::uint8_t, 3> colour(float iterations, int limit) {
  if (iterations >= static_cast<float>(limit)) return {0, 0, 0};
  struct Stop {
    double at, r, g, b;
  };
  static constexpr Stop stops[] = {{0.0, 0, 7, 100},      {0.16, 32, 107, 203}, {0.42, 237, 255, 255},
                                   {0.6425, 255, 170, 0}, {0.8575, 0, 2, 0},    {1.0, 0, 7, 100}};
  const double t = std::fmod(std::log1p(static_cast<double>(iterations)) / 3.0, 1.0);
  std::size_t k = 1;
  while (k + 1 < std::size(stops) && stops[k].at < t) ++k;
  const Stop &a = stops[k - 1], &b = stops[k];
  const double u = (t - a.at) / (b.at - a.at);
  const auto mix = [u](double x, double y) { return static_cast<std::uint8_t>(std::lround(x + u * (y - x))); };
  return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

// The picture of a rows × cols array of escape times as a PNG file's bytes.
inline std::string png(std::span<const float> iterations, std::size_t rows, std::size_t cols, int limit) {
  std::vector<std::uint8_t> rgb(iterations.size() * 3);
  for (std::size_t k = 0; k < iterations.size(); ++k) {
    const auto c = colour(iterations[k], limit);
    std::copy(c.begin(), c.end(), rgb.begin() + static_cast<std::ptrdiff_t>(3 * k));
  }
  return encode_png_rgb(rgb, rows, cols);
}

}  // namespace apps::mandel
