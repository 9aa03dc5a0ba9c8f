// What a native CUDA variant of a kernel sees (compiled by nvcc only):
//   __device__ void cuda(const ctrl::CudaThread& t, params...) const;
// t.x, t.y, t.z are the logical indexes with the same row-major meaning as a generic body's
// (x slowest; the hardware's threadIdx.x runs along the LAST index of the space), computed from
// the hardware indexes that t also carries. Native bodies are NOT clipped to the index space:
// every thread of every block runs, so that bodies can __syncthreads(); test t.inside() (or the
// extents) before touching elements. The block shape is the kernel's fixed Traits shape
// (ctrl::Traits::fixed_block(rows, cols)), or the table's.
#pragma once
#include <ctrl/config.hpp>
#include <ctrl/threads.hpp>

#if !defined(__CUDACC__)
#error "<ctrl/cuda/thread.cuh> is CUDA code: include it only from files compiled by nvcc"
#endif

namespace ctrl {

struct CudaThread : Thread {
  uint3 thread_idx;  // threadIdx
  uint3 block_idx;   // blockIdx
  dim3 block_dim;    // blockDim
  dim3 grid_dim;     // gridDim
  index_t ext[3];    // the launch's index space, logical order (x, y, z); 1 past its dimensions
  int dims;          // 1, 2 or 3

  __device__ bool inside() const { return x < ext[0] && y < ext[1] && z < ext[2]; }
  __device__ index_t extent(int d) const { return ext[d]; }
};

}  // namespace ctrl
