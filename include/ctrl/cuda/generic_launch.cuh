// How a kernel body runs as a CUDA grid (compiled by nvcc only; bound_kernel.hpp includes this
// when the launching file is compiled as CUDA and ctrl has its CUDA backend).
//
// Generic bodies: one CUDA thread per logical thread, clipped to the index space. The hardware's
// fastest dimension (threadIdx.x) runs along the LAST index of the space, so that consecutive
// threads of a warp touch consecutive elements of a row-major tile: in 2-D, hardware (x, y) is
// logical (y, x); in 3-D, hardware (x, y, z) is logical (z, y, x). Where the space needs more
// blocks than a grid's y or z dimension holds, each block loops over the rest.
//
// Native bodies (K::cuda) get a ctrl::CudaThread and are not clipped (they may __syncthreads).
#pragma once
#include <ctrl/config.hpp>
#include <ctrl/cuda/context.hpp>
#include <ctrl/cuda/thread.cuh>
#include <ctrl/detail/launch_body.hpp>
#include <ctrl/kernel.hpp>
#include <ctrl/threads.hpp>

namespace ctrl::cuda_detail {

// The index space as a kernel parameter: logical extents and, per hardware dimension, how many
// blocks cover it (larger than gridDim where the grid was clamped).
struct LaunchSpace {
  index_t ext[3];
  index_t blocks_y, blocks_z;
};

inline LaunchSpace make_space(const Threads& space, const detail::CudaGeometry& g) {
  LaunchSpace s{{space.x(), space.y(), space.z()}, 1, 1};
  if (space.dims() == 2) {
    s.blocks_y = (space.x() + g.block[1] - 1) / g.block[1];
  } else if (space.dims() == 3) {
    s.blocks_y = (space.y() + g.block[1] - 1) / g.block[1];
    s.blocks_z = (space.x() + g.block[2] - 1) / g.block[2];
  }
  return s;
}

template <class K, class... P>
__global__ void generic_1d(const K k, const index_t n, const P... p) {
  const index_t x = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (x < n) k(Thread{x, 0, 0}, p...);
}

template <class K, class... P>
__global__ void generic_2d(const K k, const LaunchSpace s, const P... p) {
  const index_t y = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (y >= s.ext[1]) return;
  for (index_t by = blockIdx.y; by < s.blocks_y; by += gridDim.y) {
    const index_t x = by * blockDim.y + threadIdx.y;
    if (x < s.ext[0]) k(Thread{x, y, 0}, p...);
  }
}

template <class K, class... P>
__global__ void generic_3d(const K k, const LaunchSpace s, const P... p) {
  const index_t z = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (z >= s.ext[2]) return;
  for (index_t by = blockIdx.y; by < s.blocks_y; by += gridDim.y) {
    const index_t y = by * blockDim.y + threadIdx.y;
    if (y >= s.ext[1]) continue;
    for (index_t bz = blockIdx.z; bz < s.blocks_z; bz += gridDim.z) {
      const index_t x = bz * blockDim.z + threadIdx.z;
      if (x < s.ext[0]) k(Thread{x, y, z}, p...);
    }
  }
}

template <class K, class... P>
__global__ void native_grid(const K k, const LaunchSpace s, const int dims, const P... p) {
  CudaThread t;
  t.thread_idx = threadIdx;
  t.block_idx = blockIdx;
  t.block_dim = blockDim;
  t.grid_dim = gridDim;
  t.ext[0] = s.ext[0];
  t.ext[1] = s.ext[1];
  t.ext[2] = s.ext[2];
  t.dims = dims;
  const index_t hx = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const index_t hy = static_cast<index_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  const index_t hz = static_cast<index_t>(blockIdx.z) * blockDim.z + threadIdx.z;
  if (dims == 1) {
    t.x = hx, t.y = 0, t.z = 0;
  } else if (dims == 2) {
    t.x = hy, t.y = hx, t.z = 0;
  } else {
    t.x = hz, t.y = hy, t.z = hx;
  }
  k.cuda(static_cast<const CudaThread&>(t), p...);
}

// Enqueues the body on ctx.stream() (the caller checks the launch's status). v is generic or
// native; the geometry comes from the kernel's characterization (include/ctrl/cuda/geometry.hpp).
template <class K, class... P>
void launch(Variant v, CudaContext& ctx, const detail::CudaGeometry& g, const Threads& space, const K& kernel,
            const P&... p) {
  const dim3 grid(g.grid[0], g.grid[1], g.grid[2]), block(g.block[0], g.block[1], g.block[2]);
  cudaStream_t stream = ctx.stream();
  const LaunchSpace s = make_space(space, g);
  if constexpr (detail::has_cuda_native<K>) {
    if (v == Variant::native) {
      native_grid<K, P...><<<grid, block, 0, stream>>>(kernel, s, space.dims(), p...);
      return;
    }
  }
  if constexpr (detail::has_generic<K>) {
    switch (space.dims()) {
      case 1: generic_1d<K, P...><<<grid, block, 0, stream>>>(kernel, space.x(), p...); break;
      case 2: generic_2d<K, P...><<<grid, block, 0, stream>>>(kernel, s, p...); break;
      default: generic_3d<K, P...><<<grid, block, 0, stream>>>(kernel, s, p...);
    }
  }
}

}  // namespace ctrl::cuda_detail
