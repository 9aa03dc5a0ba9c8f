// jacobi's reference for --check and the tests: sequential, in double, with the same iteration
// (boundary fixed, every interior cell becomes the mean of its four neighbours of the previous
// iteration).
#pragma once
#include <cstddef>
#include <span>
#include <vector>

namespace apps::reference {

inline std::vector<double> jacobi(std::span<const float> m, std::size_t rows, std::size_t cols, int iterations) {
  std::vector<double> cur(m.begin(), m.end()), prev(cur.size());
  if (rows < 3 || cols < 3) return cur;
  for (int it = 0; it < iterations; ++it) {
    prev = cur;
    for (std::size_t i = 1; i + 1 < rows; ++i)
      for (std::size_t j = 1; j + 1 < cols; ++j)
        cur[i * cols + j] =
            (prev[(i + 1) * cols + j] + prev[(i - 1) * cols + j] + prev[i * cols + j + 1] + prev[i * cols + j - 1]) / 4;
  }
  return cur;
}

}  // namespace apps::reference
