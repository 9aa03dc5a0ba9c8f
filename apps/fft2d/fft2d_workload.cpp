#include "fft2d/fft2d_workload.hpp"

#include "catalog/catalog.hpp"

#include <ctrl/loop/host_parallel.hpp>

#include <fftw3.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <numbers>
#include <tuple>

namespace apps::fft2d {

using namespace ctrl;
using namespace ctrl::loop;

namespace {

using cdouble = std::complex<double>;

// FFTW plans for `rows` transforms of length n between arrays of these alignments. FFTW's
// planner is not thread-safe (its executor is): planning is serialised here, and plans live for
// the whole process (a few per shape).
fftwf_plan plan_rows(index_t rows, index_t n, const cfloat* in, cfloat* out) {
  // Destroyed at exit: plans hold FFTW memory that a leak checker would otherwise report.
  struct Plans {
    std::map<std::tuple<index_t, index_t, int, int>, fftwf_plan> map;
    ~Plans() {
      for (auto& [key, plan] : map) fftwf_destroy_plan(plan);
    }
  };
  static std::mutex mutex;
  static Plans cache;
  auto& plans = cache.map;
  auto* fin = reinterpret_cast<fftwf_complex*>(const_cast<cfloat*>(in));  // NOLINT: FFTW's API is not const
  auto* fout = reinterpret_cast<fftwf_complex*>(out);
  const auto key = std::make_tuple(rows, n, fftwf_alignment_of(reinterpret_cast<float*>(fin)),
                                   fftwf_alignment_of(reinterpret_cast<float*>(fout)));
  std::lock_guard lock(mutex);
  auto it = plans.find(key);
  if (it != plans.end()) return it->second;
  const int len = static_cast<int>(n);
  // FFTW_ESTIMATE does not touch the arrays; an out-of-place complex transform preserves its input.
  fftwf_plan p = fftwf_plan_many_dft(1, &len, static_cast<int>(rows), fin, nullptr, 1, len, fout, nullptr, 1, len,
                                     FFTW_FORWARD, FFTW_ESTIMATE);
  if (p == nullptr) throw DeviceError(fmt::format("fft2d: FFTW could not plan {} transforms of length {}", rows, n));
  plans.emplace(key, p);
  return p;
}

class Fft2dProblem final : public Problem {
 public:
  Fft2dProblem(index_t rows, index_t cols, std::uint64_t seed, index_t first_row)
      : m_(rows), n_(cols), first_(first_row), x_({rows, cols}, "X"), y_({rows, cols}, "Y") {
    fill_input(x_, seed, first_row);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::fill(y_.data(), y_.data() + y_.size(), cfloat(nan, nan));
  }

  index_t rows() const override { return m_; }
  index_t cols() const override { return n_; }
  index_t first_row() const override { return first_; }

  void run_block(Controller& c, Block block, std::size_t /*slot*/) override {
    if (block.empty()) return;
    const Block blk = local_block(block, "fft2d");
    auto x = x_.rows(blk.begin, blk.end);
    auto y = y_.rows(blk.begin, blk.end);
    c.attach(x, y);
    try {
      c.launch<FftRows>(Threads(blk.rows(), n_), y, x);
    } catch (...) {
      try {
        c.detach(x, y);
      } catch (...) {
      }
      throw;
    }
    c.detach(x, y);
  }

  Check verify(const std::vector<Block>& blocks) const override {
    Check check;
    check.method = "every row's energy (Parseval) and sum (Y(i,0)), and sampled rows against a double-precision FFT";
    CheckNotes notes(check);
    const auto n = static_cast<std::size_t>(n_);
    const double u = 0x1.0p-24;  // float unit roundoff
    const double c = 10 * u * (std::log2(static_cast<double>(n)) + 1);
    for (const Block& block : blocks) {
      if (block.empty()) continue;
      const Block blk = local_block(block, "fft2d");
      for (index_t i = blk.begin; i < blk.end; ++i) {
        const cfloat* xi = x_.data() + static_cast<std::size_t>(i) * n;
        const cfloat* yi = y_.data() + static_cast<std::size_t>(i) * n;
        double ex = 0, ey = 0;
        cdouble sum = 0;
        for (std::size_t j = 0; j < n; ++j) {
          ex += std::norm(cdouble(xi[j]));
          ey += std::norm(cdouble(yi[j]));
          sum += cdouble(xi[j]);
        }
        const double norm_x = std::sqrt(ex);
        const double tol_e = 2 * c * static_cast<double>(n) * ex + std::numeric_limits<double>::min();
        notes.note(std::fabs(ey - static_cast<double>(n) * ex), tol_e, [&] {
          return fmt::format("row {}: energy {} against N x {} = {} (tolerance {:.3g})", first_ + i, ey, ex,
                             static_cast<double>(n) * ex, tol_e);
        });
        const double tol = c * norm_x + std::numeric_limits<double>::min();
        notes.note(std::abs(cdouble(yi[0]) - sum), tol, [&] {
          return fmt::format("Y({}, 0) = {} against the row's sum {} (tolerance {:.3g})", first_ + i, fmt_c(yi[0]),
                             fmt_c(sum), tol);
        });
        ++check.rows_checked;
      }
      std::vector<index_t> sample{blk.begin, blk.begin + blk.rows() / 2, blk.end - 1};
      sample.erase(std::unique(sample.begin(), sample.end()), sample.end());
      for (const index_t i : sample) {
        const cfloat* xi = x_.data() + static_cast<std::size_t>(i) * n;
        const cfloat* yi = y_.data() + static_cast<std::size_t>(i) * n;
        std::vector<cdouble> row(xi, xi + n);
        double ex = 0;
        for (const auto& v : row) ex += std::norm(v);
        const std::vector<cdouble> ref = reference_dft(row);
        const double tol = c * std::sqrt(ex) + std::numeric_limits<double>::min();
        for (std::size_t k = 0; k < n; ++k)
          notes.note(std::abs(cdouble(yi[k]) - ref[k]), tol, [&] {
            return fmt::format("Y({}, {}) = {} against {} (tolerance {:.3g})", first_ + i, k, fmt_c(yi[k]),
                               fmt_c(ref[k]), tol);
          });
      }
    }
    return check;
  }

  void perturb_output(index_t row, index_t col, double delta) override {
    y_(local_block({row, row + 1}, "fft2d").begin, col) += cfloat(static_cast<float>(delta), 0.0F);
  }

  std::span<const std::byte> output_bytes(Block block) const override {
    const Block b = local_block(block, "fft2d");
    const auto row = static_cast<std::size_t>(n_) * sizeof(cfloat);
    return {reinterpret_cast<const std::byte*>(y_.data()) + static_cast<std::size_t>(b.begin) * row,
            static_cast<std::size_t>(b.rows()) * row};
  }
  std::string output_dtype() const override { return "<c8"; }

 private:
  template <class T>
  static std::string fmt_c(std::complex<T> v) {
    return fmt::format("({:.7g}, {:.7g})", static_cast<double>(v.real()), static_cast<double>(v.imag()));
  }

  index_t m_, n_, first_;
  Tile<cfloat, 2> x_, y_;
};

}  // namespace

void fill_input(Tile<cfloat, 2>& x, std::uint64_t seed, index_t first_row) {
  const index_t cols = x.extent(1);
  cfloat* data = x.data();
  host_parallel_for(x.extent(0), [&](index_t b, index_t e) {
    for (index_t i = b; i < e; ++i)
      for (index_t j = 0; j < cols; ++j) {
        const auto k = static_cast<std::uint64_t>((first_row + i) * cols + j);  // the instance's element
        data[static_cast<std::size_t>(i * cols + j)] =
            cfloat(static_cast<float>(uniform(seed, 3, k)), static_cast<float>(uniform(seed, 4, k)));
      }
  });
}

void FftRows::cpu_library(CpuContext& ctx, Out<cfloat, 2> y, In<cfloat, 2> x) const {
  const index_t n = x.extent(1);
  ctx.parallel_for(x.extent(0), [&](index_t begin, index_t end, int) {
    const cfloat* in = x.data() + begin * n;
    cfloat* out = y.data() + begin * n;
    fftwf_plan p = plan_rows(end - begin, n, in, out);
    fftwf_execute_dft(p, reinterpret_cast<fftwf_complex*>(const_cast<cfloat*>(in)),  // NOLINT
                      reinterpret_cast<fftwf_complex*>(out));
  });
}

std::string Fft2dWorkload::summary(index_t cols) const {
  return fmt::format(
      "fft2d: row phase of a 2-D FFT, Y[x x {0}] = FFT_{0}(X) row by row, complex float, x rows per "
      "processor",
      cols);
}

double Fft2dWorkload::flops(index_t rows, index_t cols) const {
  const auto n = static_cast<double>(cols);
  return 5.0 * static_cast<double>(rows) * n * std::log2(n);
}

std::unique_ptr<Problem> Fft2dWorkload::make_window(index_t rows, index_t cols, std::size_t slots, std::uint64_t seed,
                                                    index_t first_row) const {
  (void)slots;  // rows, cols and slots: Workload::check_size (make_problem)
  if (first_row < 0) throw UsageError(fmt::format("fft2d: a window cannot start at row {}", first_row));
  return std::make_unique<Fft2dProblem>(rows, cols, seed, first_row);
}

}  // namespace apps::fft2d

namespace apps {
std::unique_ptr<ctrl::loop::Workload> fft2d_workload() { return std::make_unique<fft2d::Fft2dWorkload>(); }
}  // namespace apps
