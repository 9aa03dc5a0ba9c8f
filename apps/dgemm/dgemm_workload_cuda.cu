// The cuBLAS variant of dgemm: one cublasDgemm on the controller's stream and handle. Host code
// only (the library does the device work); compiled as CUDA with the CUDA backend.
#include "dgemm/dgemm_workload.hpp"

#include <ctrl/cuda/context.hpp>

namespace apps::dgemm {

using namespace ctrl;
using namespace ctrl::loop;

void DgemmRows::cuda_library(CudaContext& ctx, Out<double, 2> c, In<double, 2> a, In<double, 2> b) const {
  const int m = static_cast<int>(c.extent(0)), n = static_cast<int>(c.extent(1)), k = static_cast<int>(a.extent(1));
  if (m == 0) return;
  const double one = 1.0, zero = 0.0;
  cublasHandle_t h = ctx.cublas();
  cublas_check(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
  // Row-major C = A B is column-major C^T = B^T A^T: the same memory, operands swapped.
  cublas_check(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b.data(), n, a.data(), k, &zero, c.data(), n),
               "cublasDgemm");
}

}  // namespace apps::dgemm
