// mandelbrot's native compute, plain OpenMP: what the twin program and the benchmark run. Rows
// cost wildly different amounts, so an OpenMP programmer hands them out dynamically; the
// schedule is the run-time one (OMP_SCHEDULE, or omp_set_schedule as the benchmark does), and
// dynamic rows one at a time where nothing set it. The escape loop is written out again, as a
// native programmer would, with the same operations in the same order as the ctrl kernel's
// (apps::mandel::escape), so that the two pictures are equal bit for bit.
#pragma once
#include <omp.h>

#include <cstdint>
#include <cstdlib>

namespace apps::native {

// The escape times of a rows x cols picture whose pixel (i, j) is the point
// (re0 + j*step, im0 - i*step), at most `limit` steps each.
inline void mandelbrot(float* iterations, std::int64_t rows, std::int64_t cols, double re0, double im0, double step,
                       int limit) {
#pragma omp parallel for schedule(runtime)
  for (std::int64_t i = 0; i < rows; ++i) {
    const double ci = im0 - static_cast<double>(i) * step;
    for (std::int64_t j = 0; j < cols; ++j) {
      const double cr = re0 + static_cast<double>(j) * step;
      double x = 0, y = 0, x2 = 0, y2 = 0;
      int n = 0;
      while (n < limit && x2 + y2 <= 4.0) {
        y = 2.0 * x * y + ci;
        x = x2 - y2 + cr;
        x2 = x * x;
        y2 = y * y;
        ++n;
      }
      iterations[i * cols + j] = static_cast<float>(n);
    }
  }
}

// The twin's schedule where the user set none: dynamic, one row at a time.
inline void default_mandelbrot_schedule() {
  if (std::getenv("OMP_SCHEDULE") == nullptr) omp_set_schedule(omp_sched_dynamic, 1);
}

}  // namespace apps::native
