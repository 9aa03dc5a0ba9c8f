// The cuFFT variant of fft2d's row phase: one batched plan (cached by the controller per shape)
// executed on the controller's stream. Host code only; compiled as CUDA with the CUDA backend.
#include "fft2d/fft2d_workload.hpp"

#include <ctrl/cuda/context.hpp>

namespace apps::fft2d {

using namespace ctrl;
using namespace ctrl::loop;

void FftRows::cuda_library(CudaContext& ctx, Out<cfloat, 2> y, In<cfloat, 2> x) const {
  const int rows = static_cast<int>(x.extent(0));
  const int n = static_cast<int>(x.extent(1));
  if (rows == 0) return;
  cufftHandle plan = ctx.fft_plan(1, &n, CUFFT_C2C, rows);
  // An out-of-place complex transform leaves its input as it was; cuFFT's API is not const.
  auto* in = reinterpret_cast<cufftComplex*>(const_cast<cfloat*>(x.data()));
  cufft_check(cufftExecC2C(plan, in, reinterpret_cast<cufftComplex*>(y.data()), CUFFT_FORWARD), "cufftExecC2C");
}

}  // namespace apps::fft2d

namespace apps::fft2d {
namespace {

// t = y transposed through shared memory, 32 x 32 elements per block of 32 x 8 threads: reads and
// writes both coalesced (the CUDA samples' transposeCoalesced, with a padded row against bank
// conflicts).
constexpr int tile_dim = 32, block_rows = 8;

__global__ void transpose(cuComplex* t, const cuComplex* y, int rows, int cols) {
  __shared__ cuComplex tile[tile_dim][tile_dim + 1];
  const int bx = static_cast<int>(blockIdx.x) * tile_dim, by = static_cast<int>(blockIdx.y) * tile_dim;
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  for (int k = ty; k < tile_dim; k += block_rows) {
    const int i = by + k, j = bx + tx;
    if (i < rows && j < cols) tile[k][tx] = y[static_cast<long long>(i) * cols + j];
  }
  __syncthreads();
  for (int k = ty; k < tile_dim; k += block_rows) {
    const int j = bx + k, i = by + tx;
    if (j < cols && i < rows) t[static_cast<long long>(j) * rows + i] = tile[tx][k];
  }
}

}  // namespace

void Transpose::cuda_library(CudaContext& ctx, Out<cfloat, 2> t, In<cfloat, 2> y) const {
  const int rows = static_cast<int>(y.extent(0)), cols = static_cast<int>(y.extent(1));
  if (rows == 0 || cols == 0) return;
  const dim3 grid((cols + tile_dim - 1) / tile_dim, (rows + tile_dim - 1) / tile_dim), block(tile_dim, block_rows);
  transpose<<<grid, block, 0, ctx.stream()>>>(reinterpret_cast<cuComplex*>(t.data()),
                                              reinterpret_cast<const cuComplex*>(y.data()), rows, cols);
  cuda_check(cudaGetLastError(), "fft2d-transpose");
}

void Place::cuda_library(CudaContext& ctx, InOut<cfloat, 2> s, In<cfloat, 2> piece, index_t row0, index_t col0) const {
  const index_t rows = s.extent(0), width = piece.extent(1);
  if (rows == 0 || width == 0) return;
  const std::size_t elem = sizeof(cfloat);
  cuda_check(
      cudaMemcpy2DAsync(s.data() + col0, static_cast<std::size_t>(s.extent(1)) * elem, piece.data() + row0 * width,
                        static_cast<std::size_t>(width) * elem, static_cast<std::size_t>(width) * elem,
                        static_cast<std::size_t>(rows), cudaMemcpyDeviceToDevice, ctx.stream()),
      "cudaMemcpy2DAsync");
}

}  // namespace apps::fft2d
