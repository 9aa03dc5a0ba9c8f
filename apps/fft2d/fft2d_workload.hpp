// fft2d: the row phase of a 2-D FFT. A block of x rows of an m x N single-precision complex matrix
// X is transformed row by row into Y: Y(i, :) = DFT_N(X(i, :)), forward, unnormalised, out of
// place (so that repeated runs see the same input).
//
// Library variants only: FFTW on CPU controllers (each worker transforms its rows with one
// fftwf_plan_many_dft, plans cached per shape and alignment, planning serialised because FFTW's
// planner is not thread-safe), cuFFT on GPUs (one cufftPlanMany per shape on the controller's
// stream, in fft2d_cuda.cu).
//
// Why the row phase: a 2-D FFT of an m x N matrix is N-point FFTs of the m rows, a transpose, and
// m-point FFTs of the N rows of the transpose. Each phase is a batch of independent row FFTs that
// splits over processors by rows with no communication; the transpose between them is an
// all-to-all exchange that ctrl leaves to the host. The distributed workload of a processor is
// its block of rows in one phase (as in the row-decomposition model the paper's 2D-FFT use case
// follows); docs/loop.md says more.
#pragma once
#include <ctrl/loop/workload.hpp>

#include <ctrl/ctrl.hpp>

#include <complex>

namespace apps::fft2d {

using namespace ctrl;
using namespace ctrl::loop;

using cfloat = std::complex<float>;

struct FftRows {
  static constexpr const char* name = "fft2d-rows";
  static constexpr std::uint32_t indexed = ctrl::params(0);  // the space (x, N) indexes Y

  void cpu_library(CpuContext& ctx, Out<cfloat, 2> y, In<cfloat, 2> x) const;
#if APPS_CUDA_LIBRARIES  // the GPU-capable catalog (apps/catalog/CMakeLists.txt)
  void cuda_library(CudaContext& ctx, Out<cfloat, 2> y, In<cfloat, 2> x) const;
#endif
};

class Fft2dWorkload final : public Workload {
 public:
  std::string name() const override { return "fft2d"; }
  std::string summary(index_t cols) const override;
  index_t default_cols() const override { return 4096; }
  // 5 N log2 N per N-point complex FFT, the usual convention (the paper's 2.5 m n log2(m n) for
  // a whole 2-D FFT counts both phases).
  double flops(index_t rows, index_t cols) const override;

 protected:
  std::unique_ptr<Problem> make_window(index_t rows, index_t cols, std::size_t slots, std::uint64_t seed,
                                       index_t first_row) const override;
  std::vector<ArrayShape> arrays(index_t rows, index_t cols, std::size_t /*slots*/) const override {
    return {{"X", 1, rows, cols, sizeof(cfloat)}, {"Y", 1, rows, cols, sizeof(cfloat)}};
  }
};

// Reference transform in double precision (radix-2, or Bluestein for other lengths): used to
// check sampled rows; exposed for tests.
std::vector<std::complex<double>> reference_dft(const std::vector<std::complex<double>>& x);

}  // namespace apps::fft2d
