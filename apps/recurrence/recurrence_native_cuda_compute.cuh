// recurrence's native CUDA compute: x in, one thread per element iterating the same step
// (apps::rec::step), y out.
#pragma once
#include "common/native_cuda.cuh"
#include "recurrence/recurrence_kernels.hpp"

namespace apps::native_cuda {

template <class T>
__global__ void recurrence_kernel(T* y, const T* x, std::int64_t n, int iterations) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    const T u = x[i];
    T v = u;
    for (int k = 0; k < iterations; ++k) v = rec::step(v, u);
    y[i] = v;
  }
}

inline void recurrence(float* y, const float* x, std::int64_t rows, std::int64_t cols, int iterations, cudaStream_t s) {
  const std::int64_t n = rows * cols;
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  float* dx = device_alloc<float>(static_cast<std::size_t>(n), s);
  float* dy = device_alloc<float>(static_cast<std::size_t>(n), s);
  to_device(dx, x, bytes, s);
  if (n > 0) recurrence_kernel<float><<<blocks(n, 256), 256, 0, s>>>(dy, dx, n, iterations);
  to_host(y, dy, bytes, s);
  device_free(dx, s);
  device_free(dy, s);
  finish(s);
}

}  // namespace apps::native_cuda
