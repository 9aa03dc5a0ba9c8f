// blackscholes' native CUDA compute: three inputs in, one thread per option with the same
// formula (apps::bs::price), two outputs out.
#pragma once
#include "blackscholes/blackscholes_kernels.hpp"
#include "common/native_cuda.cuh"

namespace apps::native_cuda {

template <class T>
__global__ void blackscholes_kernel(T* call, T* put, const T* price, const T* strike, const T* years, T r, T v,
                                    std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    T c, p;
    bs::price(c, p, price[i], strike[i], years[i], r, v);
    call[i] = c;
    put[i] = p;
  }
}

inline void blackscholes(float* call, float* put, const float* price, const float* strike, const float* years, float r,
                         float v, std::int64_t n, cudaStream_t s) {
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  float* dp = device_alloc<float>(static_cast<std::size_t>(n), s);
  float* ds = device_alloc<float>(static_cast<std::size_t>(n), s);
  float* dy = device_alloc<float>(static_cast<std::size_t>(n), s);
  float* dc = device_alloc<float>(static_cast<std::size_t>(n), s);
  float* du = device_alloc<float>(static_cast<std::size_t>(n), s);
  to_device(dp, price, bytes, s);
  to_device(ds, strike, bytes, s);
  to_device(dy, years, bytes, s);
  if (n > 0) blackscholes_kernel<float><<<blocks(n, 256), 256, 0, s>>>(dc, du, dp, ds, dy, r, v, n);
  to_host(call, dc, bytes, s);
  to_host(put, du, bytes, s);
  for (float* p : {dp, ds, dy, dc, du}) device_free(p, s);
  finish(s);
}

}  // namespace apps::native_cuda
