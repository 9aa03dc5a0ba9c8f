// What users' .cu files call besides the CUDA libraries: errors of CUDA, cuBLAS and cuFFT calls as
// ctrl::DeviceErrors (include/ctrl/cuda/context.hpp). In ctrl::cuda, which such files link; the
// backend (loaded when a CUDA controller is made) uses them too.
#include "cuda_device.hpp"

#include <fmt/format.h>

namespace ctrl {

const char* cublas_status_name(cublasStatus_t status) { return cublasGetStatusName(status); }

const char* cufft_result_name(cufftResult status) {
  switch (status) {
    case CUFFT_SUCCESS:
      return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN:
      return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED:
      return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE:
      return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE:
      return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR:
      return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED:
      return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED:
      return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE:
      return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA:
      return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE:
      return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE:
      return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED:
      return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED:
      return "CUFFT_NOT_SUPPORTED";
    case CUFFT_MISSING_DEPENDENCY:
      return "CUFFT_MISSING_DEPENDENCY";
    default:
      return "an unknown cuFFT result";
  }
}

void cuda_check(cudaError_t status, const char* call) {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();
  throw DeviceError(fmt::format("{} failed: {}", call, detail::cuda_error_text(status)));
}

void cublas_check(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw DeviceError(fmt::format("{} failed: {}", call, cublas_status_name(status)));
}

void cufft_check(cufftResult status, const char* call) {
  if (status == CUFFT_SUCCESS) return;
  throw DeviceError(fmt::format("{} failed: {}", call, cufft_result_name(status)));
}

namespace detail {

std::string cuda_error_text(cudaError_t e) { return fmt::format("{}: {}", cudaGetErrorName(e), cudaGetErrorString(e)); }

}  // namespace detail

}  // namespace ctrl
