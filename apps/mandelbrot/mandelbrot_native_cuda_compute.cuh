// mandelbrot's native CUDA compute: one thread per pixel in 2-D blocks of 32 columns x 8 rows
// (a warp along a row, so its stores coalesce), the same escape loop (apps::mandel::escape), and
// the picture copied back. Nothing to copy in.
#pragma once
#include "common/native_cuda.cuh"
#include "mandelbrot/mandelbrot_kernels.hpp"

namespace apps::native_cuda {

__global__ void mandelbrot_kernel(float* iterations, std::int64_t rows, std::int64_t cols, mandel::View v, int limit) {
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (i < rows && j < cols) iterations[i * cols + j] = static_cast<float>(mandel::escape(v.re(j), v.im(i), limit));
}

inline void mandelbrot(float* iterations, std::int64_t rows, std::int64_t cols, const mandel::View& v, int limit,
                       cudaStream_t s) {
  const std::int64_t n = rows * cols;
  float* d = device_alloc<float>(static_cast<std::size_t>(n), s);
  if (n > 0) {
    const dim3 block(32, 8);
    const dim3 grid(blocks(cols, block.x), blocks(rows, block.y));
    mandelbrot_kernel<<<grid, block, 0, s>>>(d, rows, cols, v, limit);
  }
  to_host(iterations, d, static_cast<std::size_t>(n) * sizeof(float), s);
  device_free(d, s);
  finish(s);
}

}  // namespace apps::native_cuda
