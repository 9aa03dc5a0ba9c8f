// fft2d as a case study: the 2-D DFT of an M x N complex matrix (forward, unnormalised), the
// HEPOPTA paper's second use case, in single precision. The input x and the output f are float32
// arrays of shape M x N x 2 (each element's real and imaginary parts: numpy's complex64 viewed as
// float32 pairs). The ctrl program computes it on one controller in the phases of a distributed
// 2-D FFT (row FFTs, a transpose, row FFTs, a transpose back) with FFTW on CPU kinds and cuFFT on
// GPUs; the twins call FFTW's and cuFFT's own 2-D transforms. On the loop it is fft2d-whole.
#pragma once
#include "common/app.hpp"
#include "fft2d/fft2d_reference.hpp"

#include <cmath>
#include <complex>
#include <string>
#include <vector>

namespace apps {

namespace fft2d {

// --check: every column of F that a sample names (its first, middle and last, and a few between)
// against a double-precision transform (the first phase by the definition, the second by
// reference_dft), within the float error of both phases, 10 u (log2 M + log2 N + 2) (sqrt(M) |X|
// + |y|), |X| the input's norm and y the column after the first phase.
inline Verdict check(const Array& x, const Array& f) {
  const std::size_t m = x.shape[0], n = x.shape[1];
  const auto* in = reinterpret_cast<const std::complex<float>*>(x.data.data());
  const auto* out = reinterpret_cast<const std::complex<float>*>(f.data.data());
  double energy = 0;
  for (std::size_t i = 0; i < m * n; ++i) energy += std::norm(std::complex<double>(in[i]));
  const double c = 10 * 0x1.0p-24 * (std::log2(static_cast<double>(m)) + std::log2(static_cast<double>(n)) + 2);
  const std::vector<std::complex<double>> w = twiddles(n);
  std::vector<Verdict> verdicts;
  for (const std::size_t k2 : {std::size_t{0}, n / 7, n / 3, n / 2, n - 1}) {
    std::vector<std::complex<double>> y(m);
    double ey = 0;
    for (std::size_t r = 0; r < m; ++r) {
      y[r] = dft_at(in + r * n, n, k2, w);
      ey += std::norm(y[r]);
    }
    const std::vector<std::complex<double>> ref = reference_dft(y);
    const double tol = c * (std::sqrt(static_cast<double>(m) * energy) + std::sqrt(ey)) + 1e-30;
    std::vector<float> got(2 * m);
    std::vector<double> want(2 * m), bound(2 * m, tol);
    for (std::size_t k1 = 0; k1 < m; ++k1) {
      got[2 * k1] = out[k1 * n + k2].real();
      got[2 * k1 + 1] = out[k1 * n + k2].imag();
      want[2 * k1] = ref[k1].real();
      want[2 * k1 + 1] = ref[k1].imag();
    }
    Verdict v = compare_bounded("f", got, want, bound);
    if (!v.detail.empty()) v.detail = "column " + std::to_string(k2) + " of f: " + v.detail;
    verdicts.push_back(std::move(v));
  }
  return combine(verdicts);
}

}  // namespace fft2d

inline Problem fft2d_problem() {
  Problem p;
  p.name = "fft2d";
  p.summary = "fft2d: the 2-D FFT of an M x N complex float matrix (forward, unnormalised), x and f as M x N x 2";
  p.inputs = {"x"};
  p.outputs = {"f"};
  p.size_help = "ROWS [COLS] (the matrix; COLS defaults to ROWS)";
  p.min_size_args = 1;
  p.max_size_args = 2;
  p.default_size = {1024, 1024};
  p.check_inputs = [](const Inputs& in) {
    require_rank(in, "x", 3);
    const Shape& s = in.shape("x");
    if (s[2] != 2)
      throw BadInput(in.origin("x") + ": input 'x' is " + shape_str(s) +
                     "; fft2d takes M x N x 2 (each element's real and imaginary parts)");
    require_int_extents(in, "x", "FFTW and cuFFT take");
  };
  // FFTW and cuFFT count in int: an extent beyond it is refused before the inputs are made.
  p.check_size = [](const std::vector<std::int64_t>& size) { require_int_size(size, "FFTW and cuFFT take"); };
  p.size_shapes = [](const std::vector<std::int64_t>& size) {
    const Shape s = rows_cols(size);
    return std::vector<Shape>{{s[0], s[1], 2}, {s[0], s[1], 2}};
  };
  p.generate = [](const std::vector<std::int64_t>& size, std::uint64_t seed) {
    const Shape s = rows_cols(size);
    return std::vector<Array>{uniform_array({s[0], s[1], 2}, seed, 0, -1.0F, 1.0F)};
  };
  p.verify = [](const Inputs& in, const std::vector<Array>& out) { return fft2d::check(in["x"], out[0]); };
  return p;
}

}  // namespace apps
