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
