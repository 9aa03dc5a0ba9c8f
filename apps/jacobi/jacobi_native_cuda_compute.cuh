// jacobi's native CUDA compute: the matrix copied in once, the same two kernels per iteration as
// the ctrl program's two launches (copy, then interior update), copied out once. The scratch
// copy is the caller's device buffer (allocated once, like the ctrl program's internal tile).
#pragma once
#include "common/native_cuda.cuh"

namespace apps::native_cuda {

template <class T>
__global__ void jacobi_copy_kernel(T* dst, const T* src, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i];
}

template <class T>
__global__ void jacobi_update_kernel(T* m, const T* copy, std::int64_t rows, std::int64_t cols) {
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x + 1;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y + 1;
  if (i < rows - 1 && j < cols - 1) {
    m[i * cols + j] =
        (copy[(i + 1) * cols + j] + copy[(i - 1) * cols + j] + copy[i * cols + j + 1] + copy[i * cols + j - 1]) * 0.25F;
  }
}

// m (rows x cols, host) updated in place; d_copy: rows*cols floats on the device.
inline void jacobi(float* m, float* d_copy, std::int64_t rows, std::int64_t cols, int iterations, cudaStream_t s) {
  const std::int64_t n = rows * cols;
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  float* dm = device_alloc<float>(static_cast<std::size_t>(n), s);
  to_device(dm, m, bytes, s);
  if (rows >= 3 && cols >= 3) {
    const dim3 block(64, 4);
    const dim3 grid(blocks(cols - 2, block.x), blocks(rows - 2, block.y));
    for (int it = 0; it < iterations; ++it) {
      jacobi_copy_kernel<float><<<blocks(n, 256), 256, 0, s>>>(d_copy, dm, n);
      jacobi_update_kernel<float><<<grid, block, 0, s>>>(dm, d_copy, rows, cols);
    }
  }
  to_host(m, dm, bytes, s);
  device_free(dm, s);
  finish(s);
}

}  // namespace apps::native_cuda
