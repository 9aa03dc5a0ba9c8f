// dgemm: C[x x N] = A[x x N] . B[N x N] in double precision, for a block of x rows.
//
// The kernel has library variants only: OpenBLAS on CPU controllers (the rows are split over the
// controller's pinned workers with ctx.parallel_for, and each worker calls single-threaded
// cblas_dgemm on its rows), cuBLAS on GPUs (one cublasDgemm on the controller's stream and
// handle, in dgemm_cuda.cu). Row-major on every device.
#pragma once
#include <ctrl/loop/workload.hpp>

#include <ctrl/ctrl.hpp>

namespace apps::dgemm {

using namespace ctrl;
using namespace ctrl::loop;

struct DgemmRows {
  static constexpr const char* name = "dgemm";
  static constexpr std::uint32_t indexed = ctrl::params(0);  // the space (x, N) indexes C

  void cpu_library(CpuContext& ctx, Out<double, 2> c, In<double, 2> a, In<double, 2> b) const;
#if APPS_CUDA_LIBRARIES  // the GPU-capable catalog (apps/catalog/CMakeLists.txt)
  void cuda_library(CudaContext& ctx, Out<double, 2> c, In<double, 2> a, In<double, 2> b) const;
#endif
};

class DgemmWorkload final : public Workload {
 public:
  std::string name() const override { return "dgemm"; }
  std::string summary(index_t cols) const override;
  index_t default_cols() const override { return 512; }
  double flops(index_t rows, index_t cols) const override {
    return 2.0 * static_cast<double>(rows) * static_cast<double>(cols) * static_cast<double>(cols);
  }

 protected:
  std::unique_ptr<Problem> make_window(index_t rows, index_t cols, std::size_t slots, std::uint64_t seed,
                                       index_t first_row) const override;
  std::vector<ArrayShape> arrays(index_t rows, index_t cols, std::size_t slots) const override {
    const auto b = static_cast<index_t>(slots);
    return {{"A", 1, rows, cols, sizeof(double)},
            {"C", 1, rows, cols, sizeof(double)},
            {"B", b, cols, cols, sizeof(double)}};
  }
};

}  // namespace apps::dgemm
