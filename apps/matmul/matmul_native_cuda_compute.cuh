// matmul's native CUDA compute: a and b in, c out, with one of three hand-written products:
//  - generic: one thread per element of c, the plain dot product (the ctrl generic kernel's work);
//  - tiled: the CUDA samples' shared-memory matrixMul (32x32 tiles, with bounds);
//  - cublas: cublasSgemm.
#pragma once
#include "common/native_cuda.cuh"

#include <cublas_v2.h>

#include <string>

namespace apps::native_cuda {

template <class T>
__global__ void matmul_naive_kernel(T* c, const T* a, const T* b, std::int64_t m, std::int64_t k, std::int64_t n) {
  const std::int64_t col = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (row < m && col < n) {
    T sum = 0;
    for (std::int64_t l = 0; l < k; ++l) sum += a[row * k + l] * b[l * n + col];
    c[row * n + col] = sum;
  }
}

template <int Tile>
__global__ void matmul_tiled_kernel(float* c, const float* a, const float* b, std::int64_t m, std::int64_t k,
                                    std::int64_t n) {
  __shared__ float as[Tile][Tile];
  __shared__ float bs[Tile][Tile];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.y) * Tile + ty;
  const std::int64_t col = static_cast<std::int64_t>(blockIdx.x) * Tile + tx;
  float sum = 0.0F;
  for (std::int64_t k0 = 0; k0 < k; k0 += Tile) {
    as[ty][tx] = (row < m && k0 + tx < k) ? a[row * k + k0 + tx] : 0.0F;
    bs[ty][tx] = (k0 + ty < k && col < n) ? b[(k0 + ty) * n + col] : 0.0F;
    __syncthreads();
#pragma unroll
    for (int l = 0; l < Tile; ++l) sum += as[ty][l] * bs[l][tx];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = sum;
}

enum class MatMulKind { generic, tiled, cublas };

// A cuBLAS handle bound to the stream, for the cublas kind (created outside the timing).
class Cublas {
 public:
  explicit Cublas(cudaStream_t s) {
    if (cublasCreate(&h_) != CUBLAS_STATUS_SUCCESS) throw ctrl::DeviceError("cublasCreate failed");
    cublasSetStream(h_, s);
  }
  ~Cublas() { cublasDestroy(h_); }
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  cublasHandle_t get() const { return h_; }

 private:
  cublasHandle_t h_ = nullptr;
};

// The product on device buffers (no transfers): what the benchmarks time on resident data.
inline void matmul_on_device(MatMulKind kind, float* dc, const float* da, const float* db, std::int64_t m,
                             std::int64_t k, std::int64_t n, cudaStream_t s, cublasHandle_t h) {
  if (m == 0 || n == 0) return;
  switch (kind) {
    case MatMulKind::generic: {
      const dim3 block(32, 8);
      matmul_naive_kernel<float><<<dim3(blocks(n, block.x), blocks(m, block.y)), block, 0, s>>>(dc, da, db, m, k, n);
      break;
    }
    case MatMulKind::tiled:
      matmul_tiled_kernel<32><<<dim3(blocks(n, 32), blocks(m, 32)), dim3(32, 32), 0, s>>>(dc, da, db, m, k, n);
      break;
    case MatMulKind::cublas: {
      const float one = 1.0F, zero = 0.0F;
      const cublasStatus_t st =
          cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), &one,
                      db, static_cast<int>(n), da, static_cast<int>(k > 0 ? k : 1), &zero, dc, static_cast<int>(n));
      if (st != CUBLAS_STATUS_SUCCESS)
        throw ctrl::DeviceError(std::string("cublasSgemm failed: ") + cublasGetStatusName(st));
      break;
    }
  }
}

inline void matmul(MatMulKind kind, float* c, const float* a, const float* b, std::int64_t m, std::int64_t k,
                   std::int64_t n, cudaStream_t s, cublasHandle_t h) {
  float* da = device_alloc<float>(static_cast<std::size_t>(m * k), s);
  float* db = device_alloc<float>(static_cast<std::size_t>(k * n), s);
  float* dc = device_alloc<float>(static_cast<std::size_t>(m * n), s);
  to_device(da, a, static_cast<std::size_t>(m * k) * sizeof(float), s);
  to_device(db, b, static_cast<std::size_t>(k * n) * sizeof(float), s);
  matmul_on_device(kind, dc, da, db, m, k, n, s, h);
  to_host(c, dc, static_cast<std::size_t>(m * n) * sizeof(float), s);
  device_free(da, s);
  device_free(db, s);
  device_free(dc, s);
  finish(s);
}

}  // namespace apps::native_cuda
