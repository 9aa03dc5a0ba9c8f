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
#include "fft2d/fft2d_reference.hpp"

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

// The whole 2-D FFT's redistribution (fft2d-whole), in the device's memory: t = y transposed,
// for the x x N block y of phase 1 (t is N x x, so that the columns another processor transforms
// in phase 2 are consecutive rows of t); a tiled transpose on CPU workers, a shared-memory one on
// GPUs (fft2d_workload_cuda.cu).
struct Transpose {
  static constexpr const char* name = "fft2d-transpose";
  void cpu_library(CpuContext& ctx, Out<cfloat, 2> t, In<cfloat, 2> y) const;
#if APPS_CUDA_LIBRARIES
  void cuda_library(CudaContext& ctx, Out<cfloat, 2> t, In<cfloat, 2> y) const;
#endif
};

// Rows [row0, row0 + s.extent(0)) of `piece` written into s's columns [col0, col0 + piece
// width): one processor's part of the c x M slab a processor transforms in phase 2 (a row copy per
// row on CPU workers, one cudaMemcpy2DAsync on GPUs). s is InOut: each piece writes a part of it.
struct Place {
  static constexpr const char* name = "fft2d-place";
  void cpu_library(CpuContext& ctx, InOut<cfloat, 2> s, In<cfloat, 2> piece, index_t row0, index_t col0) const;
#if APPS_CUDA_LIBRARIES
  void cuda_library(CudaContext& ctx, InOut<cfloat, 2> s, In<cfloat, 2> piece, index_t row0, index_t col0) const;
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
  std::unique_ptr<ctrl::loop::Problem> make_window(index_t rows, index_t cols, std::size_t slots, std::uint64_t seed,
                                                   index_t first_row) const override;
  std::vector<ArrayShape> arrays(index_t rows, index_t cols, std::size_t /*slots*/) const override {
    return {{"X", 1, rows, cols, sizeof(cfloat)}, {"Y", 1, rows, cols, sizeof(cfloat)}};
  }
};

// X's rows of a problem whose first row is the instance's `first_row`: element k of the instance
// (row-major) is (uniform(seed, 3, k), uniform(seed, 4, k)), so that any window of rows holds what
// the whole instance holds. fft2d and fft2d-whole alike.
void fill_input(Tile<cfloat, 2>& x, std::uint64_t seed, index_t first_row);

}  // namespace apps::fft2d
