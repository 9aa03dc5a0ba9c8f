// blackscholes' reference for --check and the tests: the same formula and polynomial CND as the
// kernel (the CUDA samples' CPU "gold" version), sequential, in double.
#pragma once
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

namespace apps::reference {

inline double bs_cnd(double d) {
  const double a1 = 0.31938153, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978, a5 = 1.330274429;
  const double rsqrt2pi = 0.39894228040143267793994605993438;
  const double k = 1.0 / (1.0 + 0.2316419 * std::fabs(d));
  double c = rsqrt2pi * std::exp(-0.5 * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  if (d > 0) c = 1.0 - c;
  return c;
}

struct BlackScholesPrices {
  std::vector<double> call, put;
};

inline BlackScholesPrices blackscholes(std::span<const float> price, std::span<const float> strike,
                                       std::span<const float> years, double r, double v) {
  BlackScholesPrices out{std::vector<double>(price.size()), std::vector<double>(price.size())};
  for (std::size_t i = 0; i < price.size(); ++i) {
    const double s = price[i], x = strike[i], t = years[i];
    const double sqrt_t = std::sqrt(t);
    const double d1 = (std::log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrt_t);
    const double d2 = d1 - v * sqrt_t;
    const double cnd_d1 = bs_cnd(d1), cnd_d2 = bs_cnd(d2);
    const double exp_rt = std::exp(-r * t);
    out.call[i] = s * cnd_d1 - x * exp_rt * cnd_d2;
    out.put[i] = x * exp_rt * (1.0 - cnd_d2) - s * (1.0 - cnd_d1);
  }
  return out;
}

}  // namespace apps::reference
