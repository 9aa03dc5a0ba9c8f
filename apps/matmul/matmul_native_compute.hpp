// matmul's native compute, plain OpenMP: what the twin program and the benchmark run. The same
// two variants as the ctrl kernel: the plain dot product per element of c, and OpenBLAS on row
// blocks of c, one single-threaded cblas_sgemm per OpenMP thread.
#pragma once
#include <cblas.h>
#include <omp.h>

#include <cstdint>

namespace apps::native {

inline void matmul_generic(float* c, const float* a, const float* b, std::int64_t m, std::int64_t k, std::int64_t n) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      float sum = 0.0F;
      for (std::int64_t l = 0; l < k; ++l) sum += a[i * k + l] * b[l * n + j];
      c[i * n + j] = sum;
    }
}

// Call openblas_set_num_threads(1) once before (the twin does it at start-up).
inline void matmul_blas(float* c, const float* a, const float* b, std::int64_t m, std::int64_t k, std::int64_t n) {
#pragma omp parallel
  {
    // The same contiguous split as schedule(static) and ctrl::split_range.
    const std::int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
    const std::int64_t base = m / threads, extra = m % threads;
    const std::int64_t begin = t * base + (t < extra ? t : extra);
    const std::int64_t end = begin + base + (t < extra ? 1 : 0);
    if (begin < end) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(end - begin), static_cast<int>(n),
                  static_cast<int>(k), 1.0F, a + begin * k, static_cast<int>(k), b, static_cast<int>(n), 0.0F,
                  c + begin * n, static_cast<int>(n));
    }
  }
}

}  // namespace apps::native
