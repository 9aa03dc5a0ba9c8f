// What CUDA-specific kernel variants see of the controller they run on. A kernel may define
//   void cuda_library(ctrl::CudaContext&, params...) const;     // e.g. cuBLAS, cuFFT
// and it runs in launch order on the controller's stream, after the transfers its parameters
// need; the tile parameters hold device pointers. Library calls must go to ctx.stream() (the
// handles and plans handed out here are already bound to it) and must not synchronize the device.
//
// Host-only: usable from g++ given the CUDA include path (the ctrl::cuda target provides it).
#pragma once
#include <ctrl/errors.hpp>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cufft.h>

#include <string>

namespace ctrl {

class CudaContext {
 public:
  virtual ~CudaContext() = default;

  // The device's number (cuda:N) and properties.
  virtual int device() const = 0;
  virtual const cudaDeviceProp& properties() const = 0;
  // The controller's compute stream: kernels and library calls, in launch order.
  virtual cudaStream_t stream() const = 0;
  // The controller's cuBLAS handle, bound to stream(); created on first use.
  virtual cublasHandle_t cublas() = 0;
  // A cuFFT plan for `batch` transforms of rank 1–3 (dims[0] slowest, row-major as tiles are),
  // bound to stream(); cached per controller by its shape, type and batch.
  virtual cufftHandle fft_plan(int rank, const int* dims, cufftType type, int batch = 1) = 0;
  cufftHandle fft_plan_2d(int rows, int cols, cufftType type) {
    const int dims[2] = {rows, cols};
    return fft_plan(2, dims, type, 1);
  }
  // "cuda:0 (NVIDIA H200)" for messages.
  virtual std::string name() const = 0;
};

// Turn a failed CUDA, cuBLAS or cuFFT call into a ctrl::DeviceError naming the call, e.g.
//   ctrl::cuda_check(cudaMemsetAsync(p, 0, n, ctx.stream()), "cudaMemsetAsync");
void cuda_check(cudaError_t status, const char* call);
void cublas_check(cublasStatus_t status, const char* call);
void cufft_check(cufftResult status, const char* call);
const char* cublas_status_name(cublasStatus_t status);
const char* cufft_result_name(cufftResult status);

}  // namespace ctrl
