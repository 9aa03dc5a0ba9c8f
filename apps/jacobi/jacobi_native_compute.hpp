// jacobi's native compute, plain OpenMP: what the twin program and the benchmark run. The same
// two loops per iteration as the ctrl program's two launches: copy, then interior update.
#pragma once
#include <cstdint>

namespace apps::native {

// m (rows x cols) is updated in place; copy is scratch of the same size.
inline void jacobi(float* m, float* copy, std::int64_t rows, std::int64_t cols, int iterations) {
  if (rows < 3 || cols < 3) return;  // no interior: nothing changes
  for (int it = 0; it < iterations; ++it) {
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) copy[i * cols + j] = m[i * cols + j];
#pragma omp parallel for schedule(static)
    for (std::int64_t x = 0; x < rows - 2; ++x)
      for (std::int64_t y = 0; y < cols - 2; ++y) {
        const std::int64_t i = x + 1, j = y + 1;
        m[i * cols + j] =
            (copy[(i + 1) * cols + j] + copy[(i - 1) * cols + j] + copy[i * cols + j + 1] + copy[i * cols + j - 1]) *
            0.25F;
      }
  }
}

}  // namespace apps::native
