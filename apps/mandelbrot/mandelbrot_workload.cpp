// mandelbrot for the loop: the escape times of a picture of a fixed region of the plane (the case
// study's default view: 3 × 3 around -0.75), M rows × N columns, in double. The cost of a row
// depends on where it is (rows through the set run the whole iteration limit), so the rows are
// dealt, not cut (Divisible::deal): each processor's rows are spread over the whole picture, its
// time depends on its number of rows alone, and a profile of x rows predicts its share of any M.
#include "catalog/catalog.hpp"
#include "mandelbrot/mandelbrot_kernels.hpp"
#include "mandelbrot/mandelbrot_reference.hpp"

#include <ctrl/loop/divisible.hpp>
#include <ctrl/loop/host_parallel.hpp>

#include <cmath>
#include <limits>
#include <vector>

namespace apps {

namespace {

// One row of the picture against the reference (the case study's judgement, a row at a time).
reference::MandelbrotJudgement judge_row(std::span<const float> got, const mandel::Region& r, long long place,
                                         int limit) {
  const mandel::View row{r.re0, r.im(place), r.re_step};  // the row as a one-row view
  const auto cols = static_cast<long long>(got.size());
  return reference::judge_mandelbrot(got, reference::mandelbrot(row, 1, cols, limit), row, cols, limit);
}

}  // namespace

std::vector<ctrl::loop::Parameter> mandelbrot_parameters() {
  return {
      {.name = "iterations",
       .help = "the iteration limit: a point that has not escaped by then is in the set",
       .value = 1000,
       .integer = true,
       .min = 1,
       .max = 1 << 24},  // escape times are float32, exact up to 2^24
      {.name = "center-re", .help = "the real part of the region's centre", .value = -0.75},
      {.name = "center-im", .help = "the imaginary part of the region's centre", .value = 0.0},
      {.name = "width", .help = "the region's width in the plane (> 0)", .value = 3.0, .min = 0, .min_exclusive = true},
      {.name = "height",
       .help = "the region's height in the plane (> 0)",
       .value = 3.0,
       .min = 0,
       .min_exclusive = true}};
}

std::unique_ptr<ctrl::loop::Workload> mandelbrot_workload(const ctrl::loop::Settings& settings) {
  using namespace ctrl::loop;
  const int limit = settings.integer("iterations");
  const double re = settings["center-re"], im = settings["center-im"];
  const double width = settings["width"], height = settings["height"];
  auto w = std::make_unique<Divisible>("mandelbrot",
                                       words("escape times (at most ", limit, " steps) of a ", width, " x ", height,
                                             " region around (", re, ", ", im, "), M rows dealt over it x N columns"),
                                       2048);
  const auto iterations = w->output<float>("iterations", {Rows, N});
  const auto place = w->deal("place");
  w->compute([=](BlockRun& r) {
    const mandel::Region region = mandel::region(re, im, width, height, r.instance_rows(), r.cols());
    r.launch<MandelbrotDealt>(ctrl::Threads(r.rows(), r.cols()), r[iterations], r[place], region, limit);
  });
  w->verify(
      "every pixel against the escape time in double; one may differ only where the reference's own "
      "count changes when c moves by a millionth of a pixel (the set's boundary), at most 1 % of them",
      [=](const Results& res, CheckNotes& notes) {
        const auto It = res[iterations];
        const auto P = res[place];
        const auto n = static_cast<std::size_t>(res.cols());
        for (const Block& blk : res.blocks()) {
          const mandel::Region region = mandel::region(re, im, width, height, res.instance_rows(blk), res.cols());
          const auto first = static_cast<std::size_t>(blk.begin - res.first_row());
          std::vector<reference::MandelbrotJudgement> rows(static_cast<std::size_t>(blk.rows()));
          host_parallel_for(blk.rows(), [&](ctrl::index_t b, ctrl::index_t e) {
            for (ctrl::index_t i = b; i < e; ++i) {
              const std::size_t k = first + static_cast<std::size_t>(i);
              rows[static_cast<std::size_t>(i)] = judge_row(It.subspan(k * n, n), region, P[k], limit);
            }
          });
          std::size_t differ = 0;
          for (std::size_t i = 0; i < rows.size(); ++i) {
            const reference::MandelbrotJudgement& m = rows[i];
            differ += m.differ;
            const auto where = [&] {
              return words("iterations(", blk.begin + static_cast<ctrl::index_t>(i), ", ", m.first_col, ") (row ",
                           P[first + i], " of the picture) = ", m.got, " against ", m.want);
            };
            if (m.unexplained > 0) notes.note(std::numeric_limits<double>::infinity(), 1, where);
          }
          const double pixels = static_cast<double>(rows.size() * n);
          notes.note(static_cast<double>(differ), reference::MandelbrotJudgement::max_share * pixels, [&] {
            return words(differ, " of the block's ", pixels,
                         " escape times differ, where the reference is sensitive (at most 1 % may)");
          });
          notes.rows_checked(rows.size());
        }
      });
  return w;
}

}  // namespace apps
