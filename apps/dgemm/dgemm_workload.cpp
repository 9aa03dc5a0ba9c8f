#include "dgemm/dgemm_workload.hpp"

#include "catalog/catalog.hpp"

#include <ctrl/loop/host_parallel.hpp>

#include <cblas.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

namespace apps::dgemm {

using namespace ctrl;
using namespace ctrl::loop;

namespace {

// OpenBLAS must not start threads of its own inside a worker: the controller's pinned workers are
// the parallelism (docs/model.md, CPU execution).
void blas_single_threaded() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

constexpr double unit_roundoff = 0x1.0p-53;

// gamma_k = k u / (1 - k u): the classic bound on the relative error of a k-term dot product.
double gamma(index_t k) {
  const double ku = static_cast<double>(k) * unit_roundoff;
  return ku / (1.0 - ku);
}

class DgemmProblem final : public Problem {
 public:
  DgemmProblem(index_t rows, index_t cols, std::size_t slots, std::uint64_t seed, index_t first_row)
      : m_(rows), n_(cols), first_(first_row), a_({rows, cols}, "A"), c_({rows, cols}, "C") {
    // rows, cols and slots: Workload::check_size, before the tiles above were allocated.
    if (first_row < 0) throw UsageError(fmt::format("dgemm: a window cannot start at row {}", first_row));
    const auto nn = static_cast<std::size_t>(cols);
    double* a = a_.data();
    host_parallel_for(rows, [&](index_t b, index_t e) {
      for (index_t i = b; i < e; ++i)
        for (index_t j = 0; j < cols; ++j) {
          const auto k = static_cast<std::uint64_t>((first_row + i) * cols + j);  // the instance's element
          a[static_cast<std::size_t>(i * cols + j)] = uniform(seed, 1, k);
        }
    });
    std::fill(c_.data(), c_.data() + c_.size(), std::numeric_limits<double>::quiet_NaN());
    b_.reserve(slots);
    for (std::size_t s = 0; s < slots; ++s) b_.emplace_back(Tile<double, 2>({cols, cols}, fmt::format("B{}", s)));
    host_parallel_for(cols, [&](index_t b, index_t e) {
      for (index_t l = b; l < e; ++l)
        for (index_t j = 0; j < cols; ++j) {
          const auto k = static_cast<std::size_t>(l * cols + j);
          const double v = uniform(seed, 2, k);
          for (auto& t : b_) t.data()[k] = v;
        }
    });
    // Row sums of B and of |B|, for the checksum of every row of C.
    row_sum_.assign(nn, 0.0);
    row_abs_.assign(nn, 0.0);
    const double* bd = b_[0].data();
    for (std::size_t l = 0; l < nn; ++l)
      for (std::size_t j = 0; j < nn; ++j) {
        row_sum_[l] += bd[l * nn + j];
        row_abs_[l] += std::fabs(bd[l * nn + j]);
      }
  }

  index_t rows() const override { return m_; }
  index_t cols() const override { return n_; }
  index_t first_row() const override { return first_; }

  void run_block(Controller& c, Block block, std::size_t slot) override {
    if (block.empty()) return;
    const Block blk = local_block(block, "dgemm");
    if (slot >= b_.size())
      throw UsageError(fmt::format("dgemm: slot {} of a problem with {} processor slots", slot, b_.size()));
    auto a = a_.rows(blk.begin, blk.end);
    auto cc = c_.rows(blk.begin, blk.end);
    auto& b = b_[slot];
    c.attach(a, b, cc);
    try {
      c.launch<DgemmRows>(Threads(blk.rows(), n_), cc, a, b);
    } catch (...) {
      try {
        c.detach(a, b, cc);
      } catch (...) {
      }
      throw;
    }
    c.detach(a, b, cc);
  }

  Check verify(const std::vector<Block>& blocks) const override {
    Check check;
    check.method = "every row's sum against A.(B.1), and sampled rows element by element, in double";
    const std::size_t n = static_cast<std::size_t>(n_);
    const double* a = a_.data();
    const double* c = c_.data();
    const double* b = b_[0].data();
    const double g = gamma(n_ + 2);
    CheckNotes notes(check);
    for (const Block& block : blocks) {
      if (block.empty()) continue;
      const Block blk = local_block(block, "dgemm");
      // Checksums of every row.
      for (index_t i = blk.begin; i < blk.end; ++i) {
        const double* ai = a + static_cast<std::size_t>(i) * n;
        const double* ci = c + static_cast<std::size_t>(i) * n;
        double sum_c = 0, abs_c = 0, ref = 0, bound = 0;
        for (std::size_t j = 0; j < n; ++j) {
          sum_c += ci[j];
          abs_c += std::fabs(ci[j]);
          ref += ai[j] * row_sum_[j];
          bound += std::fabs(ai[j]) * row_abs_[j];
        }
        const double tol = 4 * g * (bound + abs_c) + std::numeric_limits<double>::min();
        notes.note(std::fabs(sum_c - ref), tol, [&] {
          return fmt::format("row {}: sum {} against {} (tolerance {:.3g})", first_ + i, sum_c, ref, tol);
        });
        ++check.rows_checked;
      }
      // First, middle and last rows of the block, element by element.
      std::vector<index_t> sample{blk.begin, blk.begin + blk.rows() / 2, blk.end - 1};
      sample.erase(std::unique(sample.begin(), sample.end()), sample.end());
      std::vector<double> ref(n), bound(n);
      for (const index_t i : sample) {
        std::fill(ref.begin(), ref.end(), 0.0);
        std::fill(bound.begin(), bound.end(), 0.0);
        const double* ai = a + static_cast<std::size_t>(i) * n;
        for (std::size_t l = 0; l < n; ++l) {
          const double x = ai[l];
          const double* bl = b + l * n;
          for (std::size_t j = 0; j < n; ++j) {
            ref[j] += x * bl[j];
            bound[j] += std::fabs(x * bl[j]);
          }
        }
        const double* ci = c + static_cast<std::size_t>(i) * n;
        for (std::size_t j = 0; j < n; ++j) {
          const double tol = 2 * g * bound[j] + std::numeric_limits<double>::min();
          const double err = std::fabs(ci[j] - ref[j]);
          notes.note(err, tol, [&] {
            return fmt::format("C({}, {}) = {} against {} (tolerance {:.3g})", first_ + i, j, ci[j], ref[j], tol);
          });
        }
      }
    }
    return check;
  }

  void perturb_output(index_t row, index_t col, double delta) override {
    c_(local_block({row, row + 1}, "dgemm").begin, col) += delta;
  }

  std::span<const std::byte> output_bytes(Block block) const override {
    const Block b = local_block(block, "dgemm");
    const auto row = static_cast<std::size_t>(n_) * sizeof(double);
    return {reinterpret_cast<const std::byte*>(c_.data()) + static_cast<std::size_t>(b.begin) * row,
            static_cast<std::size_t>(b.rows()) * row};
  }
  std::string output_dtype() const override { return "<f8"; }

 private:
  index_t m_, n_, first_;
  Tile<double, 2> a_, c_;
  std::vector<Tile<double, 2>> b_;
  std::vector<double> row_sum_, row_abs_;
};

}  // namespace

void DgemmRows::cpu_library(CpuContext& ctx, Out<double, 2> c, In<double, 2> a, In<double, 2> b) const {
  blas_single_threaded();
  const index_t n = c.extent(1), k = a.extent(1);
  ctx.parallel_for(c.extent(0), [&](index_t begin, index_t end, int) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(end - begin), static_cast<int>(n),
                static_cast<int>(k), 1.0, a.data() + begin * k, static_cast<int>(k), b.data(), static_cast<int>(n), 0.0,
                c.data() + begin * n, static_cast<int>(n));
  });
}

std::string DgemmWorkload::summary(index_t cols) const {
  return fmt::format("dgemm: C[x x {0}] = A[x x {0}] . B[{0} x {0}] in double, x rows per processor", cols);
}

std::unique_ptr<Problem> DgemmWorkload::make_window(index_t rows, index_t cols, std::size_t slots, std::uint64_t seed,
                                                    index_t first_row) const {
  return std::make_unique<DgemmProblem>(rows, cols, slots, seed, first_row);
}

}  // namespace apps::dgemm

namespace apps {
std::unique_ptr<ctrl::loop::Workload> dgemm_workload() { return std::make_unique<dgemm::DgemmWorkload>(); }
}  // namespace apps
