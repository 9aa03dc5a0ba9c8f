// What the CUDA controller's tests share: skipping where no GPU answers, random data, and small
// kernels.
#pragma once
#include <ctrl/ctrl.hpp>
#include <ctrl/cuda/driver.hpp>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

namespace cudatest {

// Empty when a CUDA device answers; otherwise why not, in the words ctrl uses (no driver, ...).
inline const std::string& no_device_reason() {
  static const std::string reason = [] {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    return e != cudaSuccess || n == 0 ? ctrl::detail::no_cuda_device_reason(e) : std::string();
  }();
  return reason;
}
inline bool have_gpu() { return no_device_reason().empty(); }

// Fresh random values in [lo, hi) for every check (seeded per test for reproducibility).
template <class T, std::size_t N>
void fill_random(const ctrl::Tile<T, N>& t, std::uint32_t seed, float lo = -1.0F, float hi = 1.0F) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  for (T& e : t.elements()) e = static_cast<T>(d(gen));
}

}  // namespace cudatest

// Skips the test, counted as skipped, where no GPU answers.
#define CTRL_REQUIRE_GPU()                                                                             \
  do {                                                                                                 \
    if (!::cudatest::have_gpu()) GTEST_SKIP() << "no CUDA device: " << ::cudatest::no_device_reason(); \
  } while (0)
