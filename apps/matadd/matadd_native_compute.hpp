// matadd's native compute, plain OpenMP: what the twin program and the benchmark run.
#pragma once
#include <cstdint>

namespace apps::native {

// c = a + b over rows x cols, row-major; rows split statically over the OpenMP team.
inline void matadd(float* c, const float* a, const float* b, std::int64_t rows, std::int64_t cols) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) c[i * cols + j] = a[i * cols + j] + b[i * cols + j];
}

}  // namespace apps::native
