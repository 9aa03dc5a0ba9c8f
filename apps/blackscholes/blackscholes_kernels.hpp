// blackscholes: European call and put prices (Black–Scholes), with the formula and the polynomial
// approximation of the cumulative normal distribution of the CUDA samples' BlackScholes, in float.
#pragma once
#include <ctrl/ctrl.hpp>

#include <math.h>

namespace apps {

namespace bs {

// The cumulative normal distribution, polynomial approximation (Abramowitz & Stegun 26.2.17,
// as in the CUDA samples): absolute error below 7.5e-8 in exact arithmetic.
CTRL_HOST_DEVICE inline float cnd(float d) {
  const float a1 = 0.31938153F, a2 = -0.356563782F, a3 = 1.781477937F, a4 = -1.821255978F, a5 = 1.330274429F;
  const float rsqrt2pi = 0.39894228040143267793994605993438F;
  const float k = 1.0F / (1.0F + 0.2316419F * fabsf(d));
  float c = rsqrt2pi * expf(-0.5F * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  if (d > 0) c = 1.0F - c;
  return c;
}

// One option: spot price s, strike x, years to expiry t, riskless rate r, volatility v.
CTRL_HOST_DEVICE inline void price(float& call, float& put, float s, float x, float t, float r, float v) {
  const float sqrt_t = sqrtf(t);
  const float d1 = (logf(s / x) + (r + 0.5F * v * v) * t) / (v * sqrt_t);
  const float d2 = d1 - v * sqrt_t;
  const float cnd_d1 = cnd(d1), cnd_d2 = cnd(d2);
  const float exp_rt = expf(-r * t);
  call = s * cnd_d1 - x * exp_rt * cnd_d2;
  put = x * exp_rt * (1.0F - cnd_d2) - s * (1.0F - cnd_d1);
}

}  // namespace bs

// Generic: one logical thread per option (1-D).
struct BlackScholes {
  static constexpr const char* name = "blackscholes";
  static constexpr ctrl::Traits traits{ctrl::coalescing::full, ctrl::arith::medium, ctrl::sharing::low};
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<float> call, ctrl::Out<float> put, ctrl::In<float> price,
                                   ctrl::In<float> strike, ctrl::In<float> years, float riskfree,
                                   float volatility) const {
    float c, p;
    bs::price(c, p, price(t.x), strike(t.x), years(t.x), riskfree, volatility);
    call(t.x) = c;
    put(t.x) = p;
  }
};

}  // namespace apps
