// recurrence's native compute, plain OpenMP: what the twin program and the benchmark run.
#pragma once
#include <cstdint>

namespace apps::native {

inline void recurrence(float* y, const float* x, std::int64_t rows, std::int64_t cols, int iterations) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      const float u = x[i * cols + j];
      float v = u;
      for (int k = 0; k < iterations; ++k) {
        const float v2 = v * v;
        v = 0.5F * v + 0.25F * (1.0F - v2) / (1.0F + v2) + 0.25F * u;
      }
      y[i * cols + j] = v;
    }
}

}  // namespace apps::native
