// The one header that owns ctrl's portability and feature macros.
#pragma once

#if !defined(__cplusplus) || __cplusplus < 202002L
#error "ctrl needs C++20: compile with -std=c++20 (nvcc too: -std=c++20); with CMake, link ctrl::ctrl, which carries it"
#endif

#include <ctrl/build_config.hpp>  // generated: CTRL_HAVE_CUDA_BACKEND, CTRL_VERSION_STRING

// Functions callable both from host code and from CUDA device code (kernel bodies, tile access).
#if defined(__CUDACC__)
#define CTRL_HOST_DEVICE __host__ __device__
#define CTRL_DEVICE_CODE 1  // this translation unit is compiled by nvcc
#else
#define CTRL_HOST_DEVICE
#define CTRL_DEVICE_CODE 0
#endif

// Inside a CUDA device pass (the body being compiled for the GPU, not the host).
#if defined(__CUDA_ARCH__)
#define CTRL_ON_DEVICE 1
#else
#define CTRL_ON_DEVICE 0
#endif

#if defined(__GNUC__)
#define CTRL_FORCEINLINE inline __attribute__((always_inline))
#define CTRL_RESTRICT __restrict__
#else
#define CTRL_FORCEINLINE inline
#define CTRL_RESTRICT
#endif
