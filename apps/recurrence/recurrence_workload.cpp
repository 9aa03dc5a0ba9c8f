// recurrence for the loop: y = x_K of the recurrence of every element (K = --iterations, 100 by default), a block of
// rows per processor. Every element depends only on its own input, so a row split needs no halo: each step reads the
// previous step's value of the same element, never a neighbour's.
#include "catalog/catalog.hpp"
#include "recurrence/recurrence_kernels.hpp"
#include "recurrence/recurrence_reference.hpp"

#include <ctrl/loop/divisible.hpp>
#include <ctrl/loop/host_parallel.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace apps {

std::vector<ctrl::loop::Parameter> recurrence_parameters() {
  return {{.name = "iterations",
           .help = "how many times the recurrence is applied (K)",
           .value = 100,
           .integer = true,
           .min = 0}};
}

std::unique_ptr<ctrl::loop::Workload> recurrence_workload(const ctrl::loop::Settings& settings) {
  using namespace ctrl::loop;
  const int iterations = settings.integer("iterations");
  auto w = std::make_unique<Divisible>(
      "recurrence", words("y[x x N] = the recurrence applied ", iterations, " times to every element of x"), 1024);
  const auto x = w->input<float>("x", {Rows, N});
  const auto y = w->output<float>("y", {Rows, N});
  w->compute([=](BlockRun& r) { r.launch<Recurrence>(ctrl::Threads(r.rows(), r.cols()), r[y], r[x], iterations); });
  w->verify("every element against the recurrence in double (1e-5 absolute and relative)",
            [=](const Results& res, CheckNotes& notes) {
              const auto X = res[x], Y = res[y];
              const auto n = static_cast<std::size_t>(res.cols());
              for (const Block& blk : res.blocks()) {
                const std::size_t k0 = static_cast<std::size_t>(blk.begin - res.first_row()) * n;
                const std::size_t count = static_cast<std::size_t>(blk.rows()) * n;
                // Every element's recurrence is its own: the reference in parallel (a GPU's
                // block of a calibrated profile holds millions of elements).
                std::vector<double> ref(count);
                host_parallel_for(static_cast<ctrl::index_t>(count), [&](ctrl::index_t b, ctrl::index_t e) {
                  const auto part = reference::recurrence(
                      X.subspan(k0 + static_cast<std::size_t>(b), static_cast<std::size_t>(e - b)), iterations);
                  std::copy(part.begin(), part.end(), ref.begin() + b);
                });
                for (std::size_t k = 0; k < count; ++k)
                  notes.note(std::abs(Y[k0 + k] - ref[k]), 1e-5 + 1e-5 * std::abs(ref[k]), [&] {
                    return words("y(", blk.begin + static_cast<ctrl::index_t>(k / n), ", ", k % n, ") = ", Y[k0 + k],
                                 " against ", ref[k]);
                  });
                notes.rows_checked(static_cast<std::size_t>(blk.rows()));
              }
            });
  w->flops([=](ctrl::index_t rows, ctrl::index_t cols) {
    return 9.0 * iterations * static_cast<double>(rows) * static_cast<double>(cols);  // 9 per step
  });
  return w;
}

}  // namespace apps
