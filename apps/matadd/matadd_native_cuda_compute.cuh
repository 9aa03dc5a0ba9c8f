// matadd's native CUDA compute: what the CUDA twin program and the benchmarks run. Copies in,
// one flat kernel, copies out; host arrays page-locked by the caller.
#pragma once
#include "common/native_cuda.cuh"

namespace apps::native_cuda {

template <class T>
__global__ void matadd_kernel(T* c, const T* a, const T* b, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

inline void matadd(float* c, const float* a, const float* b, std::int64_t rows, std::int64_t cols, cudaStream_t s) {
  const std::int64_t n = rows * cols;
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  float* da = device_alloc<float>(static_cast<std::size_t>(n), s);
  float* db = device_alloc<float>(static_cast<std::size_t>(n), s);
  float* dc = device_alloc<float>(static_cast<std::size_t>(n), s);
  to_device(da, a, bytes, s);
  to_device(db, b, bytes, s);
  if (n > 0) matadd_kernel<float><<<blocks(n, 256), 256, 0, s>>>(dc, da, db, n);
  to_host(c, dc, bytes, s);
  device_free(da, s);
  device_free(db, s);
  device_free(dc, s);
  finish(s);
}

}  // namespace apps::native_cuda
