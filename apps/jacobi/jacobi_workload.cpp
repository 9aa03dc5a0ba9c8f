// jacobi for the loop: --iterations Jacobi sweeps (100 by default) of an x x N block of rows per processor, the
// boundary of the whole matrix fixed. A sweep of a block reads one row above and below it (its halo), which the
// neighbouring blocks own: after every sweep each block's first and last rows go to its neighbours
// (BlockRun::exchange). The result is the one-controller result for any distribution.
#include "catalog/catalog.hpp"
#include "jacobi/jacobi_kernels.hpp"
#include "jacobi/jacobi_reference.hpp"

#include <ctrl/loop/divisible.hpp>

#include <algorithm>
#include <cmath>

namespace apps {

std::vector<ctrl::loop::Parameter> jacobi_parameters() {
  return {{.name = "iterations", .help = "the number of Jacobi sweeps", .value = 100, .integer = true, .min = 0}};
}

std::unique_ptr<ctrl::loop::Workload> jacobi_workload(const ctrl::loop::Settings& settings) {
  using namespace ctrl::loop;
  const int iterations = settings.integer("iterations");
  auto w = std::make_unique<Divisible>(
      "jacobi",
      words(iterations,
            " Jacobi sweeps of the heat equation on x rows of N floats per processor, halos "
            "exchanged after every sweep"),
      2048);
  const auto m = w->input<float>("m", {Rows, N}, random_values<float>(0.0, 1.0));
  const auto out = w->output<float>("out", {Rows, N});
  const auto copy = w->scratch<float>("copy", {Rows, N});
  w->halo(m, 1);
  w->halo(out, 1);
  w->halo(copy, 1);
  w->compute([=](BlockRun& r) {
    // The tiles hold the block and its halo rows: row 0 of the tile is the row above the block
    // (or the matrix's fixed first row), so the interior update of the tile updates exactly the
    // block's rows, never a halo row or the matrix's boundary.
    const ctrl::index_t rows = r[out].extent(0), n = r.cols();
    const bool interior = rows >= 3 && n >= 3;
    r.launch<JacobiCopy>(ctrl::Threads(rows, n), r[out], r[m]);
    for (int it = 0; it < iterations; ++it) {
      if (interior) {
        r.launch<JacobiCopy>(ctrl::Threads(rows, n), r[copy], r[out]);
        r.launch<JacobiUpdate>(ctrl::Threads(rows - 2, n - 2), r[out], r[copy]);
      }
      if (it + 1 < iterations) r.exchange(out);  // every block exchanges as often, interior or not
    }
  });
  w->verify(
      "every element against the sweeps in double (of the whole matrix; of the block and its fixed halo "
      "when it ran alone)",
      [=](const Results& res, CheckNotes& notes) {
        const auto M = res[m], O = res[out];
        const auto n = static_cast<std::size_t>(res.cols());
        double scale = 0;
        for (const float v : M) scale = std::max(scale, static_cast<double>(std::abs(v)));
        const double tol = 4.0 * 0x1p-24 * (iterations + 1) * scale + 0x1p-149;
        auto compare = [&](const std::vector<double>& ref, ctrl::index_t ref_first, const Block& blk) {
          for (ctrl::index_t i = blk.begin; i < blk.end; ++i)
            for (std::size_t j = 0; j < n; ++j) {
              const double e = ref[static_cast<std::size_t>(i - ref_first) * n + j];
              const float o = O[static_cast<std::size_t>(i - res.first_row()) * n + j];
              notes.note(std::abs(o - e), tol, [&] { return words("out(", i, ", ", j, ") = ", o, " against ", e); });
            }
          notes.rows_checked(static_cast<std::size_t>(blk.rows()));
        };
        if (!res.standalone()) {
          const auto ref = reference::jacobi(M, static_cast<std::size_t>(res.rows()), n, iterations);
          for (const Block& blk : res.blocks()) compare(ref, res.first_row(), blk);
          return;
        }
        for (const Block& blk : res.blocks()) {
          const ctrl::index_t lo = std::max(blk.begin - 1, res.first_row());
          const ctrl::index_t hi = std::min(blk.end + 1, res.first_row() + res.rows());
          const auto sub =
              M.subspan(static_cast<std::size_t>(lo - res.first_row()) * n, static_cast<std::size_t>(hi - lo) * n);
          compare(reference::jacobi(sub, static_cast<std::size_t>(hi - lo), n, iterations), lo, blk);
        }
      });
  w->flops([=](ctrl::index_t rows, ctrl::index_t cols) {
    return 4.0 * iterations * static_cast<double>(rows) * static_cast<double>(cols);
  });
  return w;
}

}  // namespace apps
