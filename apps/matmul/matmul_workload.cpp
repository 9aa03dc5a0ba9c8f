// matmul for the loop: c[x x N] = a[x x N] . b[N x N] in float, every processor with a replica of
// b; the best variant the controller has (OpenBLAS on CPUs, cuBLAS on GPUs).
#include "catalog/catalog.hpp"
#include "matmul/matmul_kernels.hpp"

#include <ctrl/loop/divisible.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#if CTRL_DEVICE_CODE
#include "matmul/matmul_cuda_variants.cuh"
#endif

namespace apps {

namespace {
#if CTRL_DEVICE_CODE
using Kernel = MatMulCuda;
#else
using Kernel = MatMul;
#endif
}  // namespace

std::unique_ptr<ctrl::loop::Workload> matmul_workload() {
  using namespace ctrl::loop;
  auto w = std::make_unique<Divisible>("matmul", "c[x x N] = a[x x N] . b[N x N] in float, x rows per processor", 1024);
  const auto a = w->input<float>("a", {Rows, N});
  const auto b = w->input<float>("b", {N, N});
  const auto c = w->output<float>("c", {Rows, N});
  w->compute([=](BlockRun& r) { r.launch<Kernel>(ctrl::Threads(r.rows(), r.cols()), r[c], r[a], r[b]); });
  w->verify("the first, middle and last rows of every block against a double product, within (N + 2) 2^-24 |a| |b|",
            [=](const Results& res, CheckNotes& notes) {
              const auto A = res[a], B = res[b], C = res[c];
              const auto n = static_cast<std::size_t>(res.cols());
              std::vector<double> ref(n), bound(n);
              for (const Block& blk : res.blocks()) {
                std::vector<ctrl::index_t> sample{blk.begin, blk.begin + blk.rows() / 2, blk.end - 1};
                sample.erase(std::unique(sample.begin(), sample.end()), sample.end());
                for (const ctrl::index_t i : sample) {
                  const std::size_t row = static_cast<std::size_t>(i - res.first_row()) * n;
                  std::fill(ref.begin(), ref.end(), 0.0);
                  std::fill(bound.begin(), bound.end(), 0.0);
                  for (std::size_t l = 0; l < n; ++l)
                    for (std::size_t j = 0; j < n; ++j) {
                      const double p = static_cast<double>(A[row + l]) * static_cast<double>(B[l * n + j]);
                      ref[j] += p;
                      bound[j] += std::abs(p);
                    }
                  for (std::size_t j = 0; j < n; ++j)
                    notes.note(std::abs(C[row + j] - ref[j]),
                               static_cast<double>(n + 2) * 0x1p-24 * bound[j] + 0x1p-149,
                               [&] { return words("c(", i, ", ", j, ") = ", C[row + j], " against ", ref[j]); });
                }
                notes.rows_checked(sample.size());
              }
            });
  w->flops([](ctrl::index_t rows, ctrl::index_t cols) {
    return 2.0 * static_cast<double>(rows) * static_cast<double>(cols) * static_cast<double>(cols);
  });
  return w;
}

}  // namespace apps
