// matmul's GPU variants (compiled by nvcc only): apps::MatMulCuda is apps::MatMul (the generic
// body and the OpenBLAS variant) plus
//  - cuda: the shared-memory tiled product of the CUDA samples (matrixMul, BLOCK_SIZE 32), one
//    32x32 block per 32x32 tile of c, with bounds so that any m, k, n work; it relies on its block
//    shape, hence the fixed characterization;
//  - cuda_library: cuBLAS sgemm on the controller's stream and handle (row-major c = a·b is the
//    column-major c' = b'·a').
// The plain MatMul keeps its table geometry for the generic body; launch MatMulCuda for
// --variant native (Variant::native) or blas (Variant::library: cuBLAS on GPUs, OpenBLAS on CPUs).
#pragma once
#include "matmul/matmul_kernels.hpp"

#include <ctrl/cuda.hpp>

namespace apps {

struct MatMulCuda : MatMul {
  static constexpr const char* name = "matmul";
  static constexpr int tile = 32;
  static constexpr ctrl::Traits traits = ctrl::Traits::fixed_block(tile, tile);

  __device__ void cuda(const ctrl::CudaThread& t, ctrl::Out<float, 2> c, ctrl::In<float, 2> a,
                       ctrl::In<float, 2> b) const {
    __shared__ float as[tile][tile];
    __shared__ float bs[tile][tile];
    const ctrl::index_t m = c.extent(0), n = c.extent(1), k = a.extent(1);
    const int tx = static_cast<int>(t.thread_idx.x), ty = static_cast<int>(t.thread_idx.y);
    const ctrl::index_t row = t.x, col = t.y;
    const float* pa = a.data();
    const float* pb = b.data();
    float sum = 0.0F;
    for (ctrl::index_t k0 = 0; k0 < k; k0 += tile) {
      as[ty][tx] = (row < m && k0 + tx < k) ? pa[row * k + k0 + tx] : 0.0F;
      bs[ty][tx] = (k0 + ty < k && col < n) ? pb[(k0 + ty) * n + col] : 0.0F;
      __syncthreads();
#pragma unroll
      for (int l = 0; l < tile; ++l) sum += as[ty][l] * bs[l][tx];
      __syncthreads();
    }
    if (row < m && col < n) c(row, col) = sum;
  }

  void cuda_library(ctrl::CudaContext& ctx, ctrl::Out<float, 2> c, ctrl::In<float, 2> a, ctrl::In<float, 2> b) const {
    const auto m = static_cast<int>(c.extent(0)), n = static_cast<int>(c.extent(1)), k = static_cast<int>(a.extent(1));
    if (m == 0 || n == 0) return;
    const float one = 1.0F, zero = 0.0F;
    const int ldb = n, lda = k > 0 ? k : 1;  // k == 0: c = 0 (beta)
    ctrl::cublas_check(cublasSgemm(ctx.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b.data(), ldb, a.data(), lda,
                                   &zero, c.data(), n),
                       "cublasSgemm");
  }
};

}  // namespace apps
