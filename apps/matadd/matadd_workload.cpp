// matadd for the loop: c = a + b over rows of N floats, a block of rows per processor.
#include "catalog/catalog.hpp"
#include "matadd/matadd_kernels.hpp"

#include <ctrl/loop/divisible.hpp>

#include <cmath>

namespace apps {

std::unique_ptr<ctrl::loop::Workload> matadd_workload() {
  using namespace ctrl::loop;
  auto w = std::make_unique<Divisible>("matadd", "c[x x N] = a + b in float, x rows per processor", 4096);
  const auto a = w->input<float>("a", {Rows, N});
  const auto b = w->input<float>("b", {Rows, N});
  const auto c = w->output<float>("c", {Rows, N});
  w->compute([=](BlockRun& r) { r.launch<MatAdd>(ctrl::Threads(r.rows(), r.cols()), r[c], r[a], r[b]); });
  w->verify("every element against a + b in double (one rounding)", [=](const Results& res, CheckNotes& notes) {
    const auto A = res[a], B = res[b], C = res[c];
    const auto n = static_cast<std::size_t>(res.cols());
    for (const Block& blk : res.blocks()) {
      for (ctrl::index_t i = blk.begin; i < blk.end; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          const std::size_t k = static_cast<std::size_t>(i - res.first_row()) * n + j;
          const double ref = static_cast<double>(A[k]) + static_cast<double>(B[k]);
          notes.note(std::abs(C[k] - ref), 0x1p-24 * std::abs(ref) + 0x1p-149,
                     [&] { return words("c(", i, ", ", j, ") = ", C[k], " against ", ref); });
        }
      notes.rows_checked(static_cast<std::size_t>(blk.rows()));
    }
  });
  w->flops(
      [](ctrl::index_t rows, ctrl::index_t cols) { return static_cast<double>(rows) * static_cast<double>(cols); });
  return w;
}

}  // namespace apps
