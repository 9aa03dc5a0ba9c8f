// recurrence's reference for --check and the tests: the same recurrence, sequential, in double.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

namespace apps::reference {

inline std::vector<double> recurrence(std::span<const float> x, int iterations) {
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double u = x[i];
    double v = u;
    for (int k = 0; k < iterations; ++k) {
      const double v2 = v * v;
      v = 0.5 * v + 0.25 * (1.0 - v2) / (1.0 + v2) + 0.25 * u;
    }
    y[i] = v;
  }
  return y;
}

}  // namespace apps::reference
