// matmul's reference for --check and the tests: sequential, in double. It also returns |a|·|b|,
// from which the float error bound of any summation order follows: |c - ref| <= k·u·(|a|·|b|).
#pragma once
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

namespace apps::reference {

struct MatMulResult {
  std::vector<double> c;        // m x n
  std::vector<double> abs_dot;  // (|a|·|b|), m x n
};

inline MatMulResult matmul(std::span<const float> a, std::span<const float> b, std::size_t m, std::size_t k,
                           std::size_t n) {
  MatMulResult r{std::vector<double>(m * n, 0.0), std::vector<double>(m * n, 0.0)};
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t l = 0; l < k; ++l) {
      const double ail = a[i * k + l];
      for (std::size_t j = 0; j < n; ++j) {
        const double p = ail * static_cast<double>(b[l * n + j]);
        r.c[i * n + j] += p;
        r.abs_dot[i * n + j] += std::abs(p);
      }
    }
  return r;
}

// The per-element tolerance for a float result: (k + 2)·2^-24·(|a|·|b|), the worst case of float
// dot products of length k in any order (with or without fused multiply-adds).
inline std::vector<double> matmul_bound(const MatMulResult& r, std::size_t k) {
  std::vector<double> bound(r.abs_dot.size());
  for (std::size_t i = 0; i < bound.size(); ++i) bound[i] = static_cast<double>(k + 2) * 0x1p-24 * r.abs_dot[i];
  return bound;
}

}  // namespace apps::reference
