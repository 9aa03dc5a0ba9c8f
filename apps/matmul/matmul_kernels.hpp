// matmul: c (m x n) = a (m x k) · b (k x n), in float. Two variants of one kernel:
//  - generic: one logical thread per element of c, a plain dot product (every device);
//  - cpu_library: OpenBLAS. The rows of c are split over the controller's pinned workers
//    (ctx.parallel_for) and each worker calls single-threaded cblas_sgemm on its block.
// (A native CUDA variant with a fixed 32x32 block, and cuBLAS, come with the CUDA backend.)
#pragma once
#include <ctrl/ctrl.hpp>

#include <cblas.h>

#include <mutex>

namespace apps {

// OpenBLAS must not start threads of its own inside a worker: the controller's pinned workers are
// the parallelism. Called once per process before the first sgemm.
inline void blas_single_threaded() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

struct MatMul {
  static constexpr const char* name = "matmul";
  // Consecutive threads (along y) read consecutive elements of b and write consecutive elements of
  // c; one multiply-add per element read; rows of a and columns of b are shared by the threads of
  // a block.
  static constexpr ctrl::Traits traits{ctrl::coalescing::full, ctrl::arith::low, ctrl::sharing::high};
  // The index space (m, n) indexes c only: a is m x k and b is k x n.
  static constexpr std::uint32_t indexed = ctrl::params(0);

  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<float, 2> c, ctrl::In<float, 2> a,
                                   ctrl::In<float, 2> b) const {
    const ctrl::index_t k = a.extent(1);
    float sum = 0.0F;
    for (ctrl::index_t l = 0; l < k; ++l) sum += a(t.x, l) * b(l, t.y);
    c(t.x, t.y) = sum;
  }

  void cpu_library(ctrl::CpuContext& ctx, ctrl::Out<float, 2> c, ctrl::In<float, 2> a, ctrl::In<float, 2> b) const {
    blas_single_threaded();
    const ctrl::index_t m = c.extent(0), n = c.extent(1), k = a.extent(1);
    ctx.parallel_for(m, [&](ctrl::index_t begin, ctrl::index_t end, int) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(end - begin), static_cast<int>(n),
                  static_cast<int>(k), 1.0F, a.data() + begin * k, static_cast<int>(k), b.data(), static_cast<int>(n),
                  0.0F, c.data() + begin * n, static_cast<int>(n));
    });
  }
};

}  // namespace apps
