// blackscholes' native compute, plain OpenMP: what the twin program and the benchmark run. The
// formula is the CUDA samples' (the same as the ctrl kernel's), in float, written out again as a
// native programmer would.
#pragma once
#include <math.h>

#include <cstdint>

namespace apps::native {

inline float bs_cnd(float d) {
  const float a1 = 0.31938153F, a2 = -0.356563782F, a3 = 1.781477937F, a4 = -1.821255978F, a5 = 1.330274429F;
  const float rsqrt2pi = 0.39894228040143267793994605993438F;
  const float k = 1.0F / (1.0F + 0.2316419F * fabsf(d));
  float c = rsqrt2pi * expf(-0.5F * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  if (d > 0) c = 1.0F - c;
  return c;
}

inline void blackscholes(float* call, float* put, const float* price, const float* strike, const float* years,
                         std::int64_t n, float r, float v) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const float s = price[i], x = strike[i], t = years[i];
    const float sqrt_t = sqrtf(t);
    const float d1 = (logf(s / x) + (r + 0.5F * v * v) * t) / (v * sqrt_t);
    const float d2 = d1 - v * sqrt_t;
    const float cnd_d1 = bs_cnd(d1), cnd_d2 = bs_cnd(d2);
    const float exp_rt = expf(-r * t);
    call[i] = s * cnd_d1 - x * exp_rt * cnd_d2;
    put[i] = x * exp_rt * (1.0F - cnd_d2) - s * (1.0F - cnd_d1);
  }
}

}  // namespace apps::native
