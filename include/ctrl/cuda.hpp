// ctrl for files compiled as CUDA: include it (after or instead of <ctrl/ctrl.hpp>) in .cu files
// that define native CUDA variants of kernels (`__device__ void cuda(const ctrl::CudaThread&,
// params...) const`) or use ctrl::CudaContext, and link the ctrl::cuda target. Generic kernels
// launched from a file compiled by nvcc run on CUDA controllers without it.
//
// Like stdexec's CUDA headers, it refuses other compilers: <ctrl/ctrl.hpp> is the host-only face.
#pragma once

#if !defined(__CUDACC__)
#error "<ctrl/cuda.hpp> needs nvcc: compile this file as CUDA (and link ctrl::cuda), or include <ctrl/ctrl.hpp>"
#endif

#include <ctrl/ctrl.hpp>

#if !CTRL_HAVE_CUDA_BACKEND
#error "<ctrl/cuda.hpp>: this build of ctrl has no CUDA backend (configure it with -DCTRL_CUDA=ON)"
#endif

#include <ctrl/cuda/context.hpp>
#include <ctrl/cuda/generic_launch.cuh>
#include <ctrl/cuda/geometry.hpp>
#include <ctrl/cuda/thread.cuh>
