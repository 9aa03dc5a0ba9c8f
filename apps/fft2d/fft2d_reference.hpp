// The reference transform of fft2d's checks, in double precision: an N-point DFT by radix-2 FFT,
// or, for other lengths, Bluestein's convolution of power-of-two length. Host-only and free of
// fmt, for the workloads and the case study's programs alike.
#pragma once
#include <complex>
#include <cstddef>
#include <numbers>
#include <utility>
#include <vector>

namespace apps::fft2d {

namespace detail {

inline void fft_pow2(std::vector<std::complex<double>>& a) {
  const std::size_t n = a.size();
  for (std::size_t i = 1, j = 0; i < n; ++i) {
    std::size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (std::size_t len = 2; len <= n; len <<= 1) {
    const double ang = -2 * std::numbers::pi / static_cast<double>(len);
    for (std::size_t i = 0; i < n; i += len)
      for (std::size_t k = 0; k < len / 2; ++k) {
        const std::complex<double> w = std::polar(1.0, ang * static_cast<double>(k));
        const std::complex<double> u = a[i + k], v = a[i + k + len / 2] * w;
        a[i + k] = u + v;
        a[i + k + len / 2] = u - v;
      }
  }
}

}  // namespace detail

// The forward DFT of x, unnormalised.
inline std::vector<std::complex<double>> reference_dft(const std::vector<std::complex<double>>& x) {
  const std::size_t n = x.size();
  if (n == 0) return {};
  if ((n & (n - 1)) == 0) {
    std::vector<std::complex<double>> a = x;
    detail::fft_pow2(a);
    return a;
  }
  // Bluestein: a DFT of any length as a convolution of power-of-two length.
  std::size_t m = 1;
  while (m < 2 * n - 1) m <<= 1;
  std::vector<std::complex<double>> w(n), a(m), b(m);
  for (std::size_t k = 0; k < n; ++k) {
    const auto k2 = static_cast<double>((static_cast<unsigned long long>(k) * k) % (2 * n));
    w[k] = std::polar(1.0, -std::numbers::pi * k2 / static_cast<double>(n));
    a[k] = x[k] * w[k];
    b[k] = std::conj(w[k]);
    if (k != 0) b[m - k] = std::conj(w[k]);
  }
  detail::fft_pow2(a);
  detail::fft_pow2(b);
  for (std::size_t k = 0; k < m; ++k) a[k] = std::conj(a[k] * b[k]);  // inverse through conjugates
  detail::fft_pow2(a);
  std::vector<std::complex<double>> out(n);
  for (std::size_t k = 0; k < n; ++k) out[k] = std::conj(a[k]) / static_cast<double>(m) * w[k];
  return out;
}

// exp(-2 pi i j / n) for j < n: the twiddles of an n-point DFT.
inline std::vector<std::complex<double>> twiddles(std::size_t n) {
  std::vector<std::complex<double>> w(n);
  for (std::size_t j = 0; j < n; ++j)
    w[j] = std::polar(1.0, -2 * std::numbers::pi * static_cast<double>(j) / static_cast<double>(n));
  return w;
}

// Element k of the DFT of one row of n elements, by the definition (w = twiddles(n)): what the
// checks of a 2-D transform use to get one column of its first phase without transforming every
// row.
inline std::complex<double> dft_at(const std::complex<float>* row, std::size_t n, std::size_t k,
                                   const std::vector<std::complex<double>>& w) {
  std::complex<double> sum = 0;
  for (std::size_t j = 0; j < n; ++j) sum += std::complex<double>(row[j]) * w[(j * k) % n];
  return sum;
}

}  // namespace apps::fft2d
