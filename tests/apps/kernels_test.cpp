// The case studies' ctrl kernels against their independent references, on odd shapes (no multiple
// of any block size, single rows and columns) and on every test device (test_devices.hpp).
#include "blackscholes/blackscholes_kernels.hpp"
#include "blackscholes/blackscholes_reference.hpp"
#include "common/app.hpp"
#include "jacobi/jacobi_kernels.hpp"
#include "jacobi/jacobi_reference.hpp"
#include "matadd/matadd_kernels.hpp"
#include "matadd/matadd_reference.hpp"
#include "matmul/matmul_kernels.hpp"
#include "matmul/matmul_reference.hpp"
#include "mandelbrot/mandelbrot_kernels.hpp"
#include "mandelbrot/mandelbrot_reference.hpp"
#include "recurrence/recurrence_kernels.hpp"
#include "recurrence/recurrence_reference.hpp"
#include "test_devices.hpp"

#include <ctrl/ctrl.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace {

using ctrl::index_t;

struct Shape2 {
  index_t rows, cols;
};
// Not multiples of any block size; single elements, rows and columns; one larger odd shape.
const std::vector<Shape2> kShapes = {{37, 53}, {1, 1}, {1, 77}, {67, 1}, {2, 2}, {3, 3}, {129, 257}};

template <std::size_t N>
ctrl::Tile<float, N> tile_from(const apps::Array& a, const index_t (&ext)[N], const char* name) {
  ctrl::Tile<float, N> t(ext, name);
  std::copy(a.data.begin(), a.data.end(), t.data());
  return t;
}

std::vector<float> contents(const ctrl::Tile<float, 2>& t) { return {t.elements().begin(), t.elements().end()}; }
std::vector<float> contents(const ctrl::Tile<float, 1>& t) { return {t.elements().begin(), t.elements().end()}; }

std::string where(const Shape2& s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); }

class AppKernels : public ::testing::TestWithParam<std::string> {
 protected:
  ctrl::Controller& controller() {
    if (!ctl_) ctl_ = std::make_unique<ctrl::Controller>(ctrl::parse_device(GetParam()));
    return *ctl_;
  }
  bool cpu_family() const {
    const auto kind = ctrl::parse_device(GetParam()).kind;
    return kind == "cpu" || kind == "offload";
  }

 private:
  std::unique_ptr<ctrl::Controller> ctl_;
};

TEST_P(AppKernels, MatAddMatchesReference) {
  auto& ctl = controller();
  for (const auto& s : kShapes) {
    SCOPED_TRACE(where(s));
    const apps::Shape shape{static_cast<std::size_t>(s.rows), static_cast<std::size_t>(s.cols)};
    const auto a = apps::uniform_array(shape, 11, 0, -1, 1), b = apps::uniform_array(shape, 11, 1, -1, 1);
    auto A = tile_from(a, {s.rows, s.cols}, "a"), B = tile_from(b, {s.rows, s.cols}, "b");
    ctrl::Tile<float, 2> C({s.rows, s.cols}, "c");
    C.fill(-7.0F);
    ctl.attach(A, B, C);
    ctl.launch<apps::MatAdd>(ctrl::Threads(s.rows, s.cols), C, A, B);
    ctl.detach(A, B, C);
    const auto v = apps::compare("c", contents(C), apps::reference::matadd(a.data, b.data), 0, 1e-6);
    EXPECT_TRUE(v.ok) << v.detail;
  }
}

TEST_P(AppKernels, BlackScholesMatchesReference) {
  auto& ctl = controller();
  for (index_t n : {index_t{1}, index_t{37}, index_t{1000}, index_t{129 * 257}}) {
    SCOPED_TRACE(n);
    const apps::Shape shape{static_cast<std::size_t>(n)};
    const auto s = apps::uniform_array(shape, 5, 0, 5, 30), x = apps::uniform_array(shape, 5, 1, 1, 100),
               t = apps::uniform_array(shape, 5, 2, 0.25F, 10);
    auto S = tile_from(s, {n}, "price"), X = tile_from(x, {n}, "strike"), T = tile_from(t, {n}, "years");
    ctrl::Tile<float, 1> call({n}, "call"), put({n}, "put");
    for (float r : {0.02F, 0.0F}) {
      for (float v : {0.30F, 0.05F}) {
        SCOPED_TRACE("r=" + std::to_string(r) + " v=" + std::to_string(v));
        call.fill(-1);
        put.fill(-1);
        ctl.attach(S, X, T, call, put);
        ctl.launch<apps::BlackScholes>(ctrl::Threads(n), call, put, S, X, T, r, v);
        ctl.detach(S, X, T, call, put);
        const auto ref = apps::reference::blackscholes(s.data, x.data, t.data, r, v);
        const auto verdict = apps::combine({apps::compare("call", contents(call), ref.call, 2e-4, 2e-5),
                                            apps::compare("put", contents(put), ref.put, 2e-4, 2e-5)});
        EXPECT_TRUE(verdict.ok) << verdict.detail;
      }
    }
  }
}

// Every shape (1×N and N×1 among them) through the set, where rows cost wildly different amounts:
// the dynamic chunks of an irregular kernel on CPU kinds must cover every pixel once, and give
// the reference's counts exactly (the same arithmetic); a GPU may differ only on the boundary.
TEST_P(AppKernels, MandelbrotMatchesReference) {
  auto& ctl = controller();
  for (const auto& s : kShapes) {
    for (const double width : {3.0, 0.01}) {  // the whole set; a zoom on its boundary
      SCOPED_TRACE(where(s) + " width=" + std::to_string(width));
      const double center_re = width > 1 ? -0.75 : -0.7435, center_im = width > 1 ? 0.0 : 0.1314;
      const int limit = 300;
      const auto v = apps::mandel::view(center_re, center_im, width, s.rows, s.cols);
      ctrl::Tile<float, 2> it({s.rows, s.cols}, "iterations");
      it.fill(-1.0F);
      ctl.attach(it);
      ctl.launch<apps::Mandelbrot>(ctrl::Threads(s.rows, s.cols), it, v, limit);
      ctl.detach(it);
      const auto ref = apps::reference::mandelbrot(v, s.rows, s.cols, limit);
      const auto j = apps::reference::judge_mandelbrot(contents(it), ref, v, s.cols, limit);
      EXPECT_EQ(j.unexplained, 0U) << "row " << j.first_row << ", column " << j.first_col << ": " << j.got
                                   << " against " << j.want;
      if (cpu_family()) EXPECT_EQ(j.differ, 0U) << "row " << j.first_row << ", column " << j.first_col;
      EXPECT_TRUE(j.ok(it.size()));
    }
  }
}

// The judgement itself: a lost chunk (a row left unwritten) and a shifted picture are caught,
// however small; the exact picture passes.
TEST(AppKernelsDefinition, MandelbrotJudgementCatchesLostAndShiftedRows) {
  const int limit = 200;
  const index_t rows = 64, cols = 96;
  const auto v = apps::mandel::view(-0.75, 0.0, 3.0, rows, cols);
  const auto ref = apps::reference::mandelbrot(v, rows, cols, limit);
  std::vector<float> exact(ref.begin(), ref.end());
  EXPECT_EQ(apps::reference::judge_mandelbrot(exact, ref, v, cols, limit).differ, 0U);
  auto lost = exact;
  std::fill(lost.begin() + 20 * cols, lost.begin() + 21 * cols, 0.0F);
  const auto jl = apps::reference::judge_mandelbrot(lost, ref, v, cols, limit);
  EXPECT_FALSE(jl.ok(exact.size()));
  EXPECT_EQ(jl.first_row, 20);
  auto shifted = exact;
  std::rotate(shifted.begin(), shifted.begin() + 1, shifted.end());
  EXPECT_FALSE(apps::reference::judge_mandelbrot(shifted, ref, v, cols, limit).ok(exact.size()));
}

// The escape loop as nvcc compiles it: 2xy + ci contracted into one fused multiply-add (the H200's
// picture of the whole set at 8192² and 1000 iterations is exactly this one's).
int escape_fused(double cr, double ci, int limit) {
  double x = 0, y = 0, x2 = 0, y2 = 0;
  int n = 0;
  while (n < limit && x2 + y2 <= 4.0) {
    y = std::fma(2.0 * x, y, ci);
    x = x2 - y2 + cr;
    x2 = x * x;
    y2 = y * y;
    ++n;
  }
  return n;
}

// Another rounding of the same arithmetic differs from the reference on the boundary only, and
// is accepted there; among its differences, orbits that never escape in one rounding and escape
// late in the other (a chaotic orbit whose counts a small move of c leaves alone).
TEST(AppKernelsDefinition, MandelbrotAnotherRoundingIsAcceptedOnTheBoundary) {
  const index_t rows = 256, cols = 256;
  const int limit = 3000;
  const auto v = apps::mandel::view(-0.7435, 0.1314, 0.01, rows, cols);
  std::vector<float> fused(static_cast<std::size_t>(rows * cols));
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j)
      fused[static_cast<std::size_t>(i * cols + j)] = escape_fused(v.re(j), v.im(i), limit);
  const auto j =
      apps::reference::judge_mandelbrot(fused, apps::reference::mandelbrot(v, rows, cols, limit), v, cols, limit);
  EXPECT_GT(j.differ, 0U);
  EXPECT_EQ(j.unexplained, 0U) << "row " << j.first_row << ", column " << j.first_col;
  EXPECT_TRUE(j.ok(fused.size()));

  const auto whole = apps::mandel::view(-0.75, 0.0, 3.0, 8192, 8192);
  const double cr = whole.re(4282), ci = whole.im(3198);
  EXPECT_EQ(apps::reference::orbit(cr, ci, 1000).steps, 1000);
  EXPECT_EQ(escape_fused(cr, ci, 1000), 883);
  EXPECT_TRUE(apps::reference::mandelbrot_sensitive(whole, 3198, 4282, 1000));
}

TEST_P(AppKernels, BlackScholesPutCallParity) {
  // C - P = S - X·e^(-rT) holds for the formula whatever the CND approximation's error.
  auto& ctl = controller();
  const index_t n = 501;
  const apps::Shape shape{static_cast<std::size_t>(n)};
  const auto s = apps::uniform_array(shape, 9, 0, 5, 30), x = apps::uniform_array(shape, 9, 1, 1, 100),
             t = apps::uniform_array(shape, 9, 2, 0.25F, 10);
  auto S = tile_from(s, {n}, "price"), X = tile_from(x, {n}, "strike"), T = tile_from(t, {n}, "years");
  ctrl::Tile<float, 1> call({n}, "call"), put({n}, "put");
  ctl.attach(S, X, T, call, put);
  ctl.launch<apps::BlackScholes>(ctrl::Threads(n), call, put, S, X, T, 0.02F, 0.30F);
  ctl.detach(S, X, T, call, put);
  for (index_t i = 0; i < n; ++i) {
    const double parity = double(s.data[i]) - double(x.data[i]) * std::exp(-0.02 * double(t.data[i]));
    EXPECT_NEAR(double(call(i)) - double(put(i)), parity, 1e-3 * (1 + std::abs(parity))) << i;
  }
}

TEST_P(AppKernels, JacobiMatchesReferenceAndKeepsTheBoundary) {
  auto& ctl = controller();
  for (const auto& s : kShapes) {
    for (int iterations : {0, 1, 7}) {
      SCOPED_TRACE(where(s) + " iterations=" + std::to_string(iterations));
      const apps::Shape shape{static_cast<std::size_t>(s.rows), static_cast<std::size_t>(s.cols)};
      const auto m = apps::uniform_array(shape, 3, 0, 0, 1);
      auto M = tile_from(m, {s.rows, s.cols}, "m");
      ctrl::Tile<float, 2> copy({s.rows, s.cols}, ctrl::shape_only, "m_copy");
      ctl.attach(M);
      ctl.create_internal(copy);
      if (s.rows >= 3 && s.cols >= 3) {
        for (int it = 0; it < iterations; ++it) {
          ctl.launch<apps::JacobiCopy>(ctrl::Threads(s.rows, s.cols), copy, M);
          ctl.launch<apps::JacobiUpdate>(ctrl::Threads(s.rows - 2, s.cols - 2), M, copy);
        }
      }
      ctl.detach(M);
      ctl.destroy_internal(copy);
      const auto ref = apps::reference::jacobi(m.data, shape[0], shape[1], iterations);
      const auto v = apps::compare("m", contents(M), ref, 4.0 * 0x1p-24 * (iterations + 1), 0);
      EXPECT_TRUE(v.ok) << v.detail;
      for (index_t i = 0; i < s.rows; ++i) {
        for (index_t j = 0; j < s.cols; ++j) {
          if (i == 0 || j == 0 || i == s.rows - 1 || j == s.cols - 1) {
            ASSERT_EQ(M(i, j), m.data[static_cast<std::size_t>(i * s.cols + j)]) << "boundary cell " << i << "," << j;
          }
        }
      }
    }
  }
}

TEST_P(AppKernels, JacobiConvergesToTheHarmonicSolution) {
  // Boundary 1 on the top row, 0 elsewhere: many sweeps approach the discrete harmonic function,
  // whose interior values lie strictly between the boundary's.
  auto& ctl = controller();
  const index_t rows = 9, cols = 11;
  ctrl::Tile<float, 2> M({rows, cols}, "m"), copy({rows, cols}, ctrl::shape_only, "m_copy");
  M.fill(0);
  for (index_t j = 0; j < cols; ++j) M(0, j) = 1;
  ctl.attach(M);
  ctl.create_internal(copy);
  for (int it = 0; it < 500; ++it) {
    ctl.launch<apps::JacobiCopy>(ctrl::Threads(rows, cols), copy, M);
    ctl.launch<apps::JacobiUpdate>(ctrl::Threads(rows - 2, cols - 2), M, copy);
  }
  ctl.detach(M);
  ctl.destroy_internal(copy);
  for (index_t i = 1; i < rows - 1; ++i) {
    for (index_t j = 1; j < cols - 1; ++j) {
      EXPECT_GT(M(i, j), 0.0F);
      EXPECT_LT(M(i, j), 1.0F);
      const float mean = (M(i + 1, j) + M(i - 1, j) + M(i, j + 1) + M(i, j - 1)) / 4;
      EXPECT_NEAR(M(i, j), mean, 1e-5) << i << "," << j;  // a fixed point of the sweep
    }
  }
  EXPECT_GT(M(1, cols / 2), M(rows - 2, cols / 2));  // warmer near the hot edge
}

struct Shape3 {
  index_t m, k, n;
};

TEST_P(AppKernels, MatMulBothVariantsMatchReference) {
  auto& ctl = controller();
  // n > k and m > k too: the index space (m, n) indexes c only.
  const std::vector<Shape3> shapes = {{37, 53, 29}, {1, 1, 1},    {1, 77, 1},    {67, 1, 45},
                                      {37, 5, 53},  {1, 13, 131}, {129, 257, 65}};
  for (ctrl::Variant variant : {ctrl::Variant::generic, ctrl::Variant::library}) {
    if (variant == ctrl::Variant::library && !cpu_family()) continue;  // cuBLAS comes with the CUDA backend
    for (const auto& s : shapes) {
      SCOPED_TRACE(std::string(ctrl::variant_name(variant)) + " " + std::to_string(s.m) + "x" + std::to_string(s.k) +
                   "x" + std::to_string(s.n));
      const auto a = apps::uniform_array({std::size_t(s.m), std::size_t(s.k)}, 21, 0, -1, 1);
      const auto b = apps::uniform_array({std::size_t(s.k), std::size_t(s.n)}, 21, 1, -1, 1);
      auto A = tile_from(a, {s.m, s.k}, "a"), B = tile_from(b, {s.k, s.n}, "b");
      ctrl::Tile<float, 2> C({s.m, s.n}, "c");
      C.fill(std::nanf(""));
      ctl.attach(A, B, C);
      ctl.launch<apps::MatMul>(variant, ctrl::Threads(s.m, s.n), C, A, B);
      ctl.detach(A, B, C);
      const auto ref = apps::reference::matmul(a.data, b.data, std::size_t(s.m), std::size_t(s.k), std::size_t(s.n));
      const auto v =
          apps::compare_bounded("c", contents(C), ref.c, apps::reference::matmul_bound(ref, std::size_t(s.k)));
      EXPECT_TRUE(v.ok) << v.detail;
    }
  }
}

TEST_P(AppKernels, RecurrenceMatchesReference) {
  auto& ctl = controller();
  for (const auto& s : kShapes) {
    for (int iterations : {0, 1, 50}) {
      SCOPED_TRACE(where(s) + " iterations=" + std::to_string(iterations));
      const apps::Shape shape{static_cast<std::size_t>(s.rows), static_cast<std::size_t>(s.cols)};
      const auto x = apps::uniform_array(shape, 17, 0, -1, 1);
      auto X = tile_from(x, {s.rows, s.cols}, "x");
      ctrl::Tile<float, 2> Y({s.rows, s.cols}, "y");
      ctl.attach(X, Y);
      ctl.launch<apps::Recurrence>(ctrl::Threads(s.rows, s.cols), Y, X, iterations);
      ctl.detach(X, Y);
      const auto v = apps::compare("y", contents(Y), apps::reference::recurrence(x.data, iterations), 1e-5, 1e-5);
      EXPECT_TRUE(v.ok) << v.detail;
    }
  }
}

TEST(AppKernelsDefinition, RecurrenceIsAContractionWithAnInputDependentFixedPoint) {
  // Two starting points approach each other; different inputs approach different values.
  float x1 = -3, x2 = 3;
  for (int i = 0; i < 200; ++i) {
    x1 = apps::rec::step(x1, 0.5F);
    x2 = apps::rec::step(x2, 0.5F);
  }
  EXPECT_NEAR(x1, x2, 1e-6);
  float y = 0.5F;
  for (int i = 0; i < 200; ++i) y = apps::rec::step(y, -0.5F);
  EXPECT_GT(std::abs(x1 - y), 0.1F);
}

TEST(AppKernelsDefinition, CharacterizationsFollowFigure4) {
  using ctrl::arith, ctrl::coalescing, ctrl::sharing;
  const auto is = [](ctrl::Traits t, coalescing c, arith a, sharing s) {
    return t.coal == c && t.ops == a && t.share == s && !t.block.fixed();
  };
  EXPECT_TRUE(is(apps::Recurrence::traits, coalescing::full, arith::high, sharing::low));
  EXPECT_TRUE(is(apps::BlackScholes::traits, coalescing::full, arith::medium, sharing::low));
  EXPECT_TRUE(is(apps::JacobiCopy::traits, coalescing::full, arith::low, sharing::low));
  EXPECT_TRUE(is(apps::JacobiUpdate::traits, coalescing::medium, arith::medium, sharing::medium));
  EXPECT_EQ(apps::JacobiUpdate::traits.inset, 1) << "the cell a thread updates: its index + 1";
  EXPECT_TRUE(is(apps::MatAdd::traits, coalescing::full, arith::low, sharing::low));
  EXPECT_TRUE(is(apps::MatMul::traits, coalescing::full, arith::low, sharing::high));
  EXPECT_TRUE(is(apps::Mandelbrot::traits, coalescing::full, arith::high, sharing::low));
  EXPECT_EQ(apps::Mandelbrot::traits.work, ctrl::cost::irregular);
  EXPECT_EQ(apps::MatAdd::traits.work, ctrl::cost::regular);
}

INSTANTIATE_TEST_SUITE_P(Devices, AppKernels, ::testing::ValuesIn(apps::testing::test_devices()),
                         [](const auto& p) { return apps::testing::device_test_name(p.param); });

}  // namespace
