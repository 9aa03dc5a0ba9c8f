// The native twins' compute functions (what the *_native programs and the benchmarks run): against
// the same references, bit for bit equal to the ctrl kernels on CPU cores (the twins do the same
// work), and pinned where --device says.
#include "blackscholes/blackscholes_kernels.hpp"
#include "blackscholes/blackscholes_native_compute.hpp"
#include "blackscholes/blackscholes_reference.hpp"
#include "common/app.hpp"
#include "common/native.hpp"
#include "jacobi/jacobi_kernels.hpp"
#include "jacobi/jacobi_native_compute.hpp"
#include "jacobi/jacobi_reference.hpp"
#include "matadd/matadd_kernels.hpp"
#include "matadd/matadd_native_compute.hpp"
#include "matmul/matmul_kernels.hpp"
#include "matmul/matmul_native_compute.hpp"
#include "matmul/matmul_reference.hpp"
#include "recurrence/recurrence_kernels.hpp"
#include "mandelbrot/mandelbrot_kernels.hpp"
#include "mandelbrot/mandelbrot_native_compute.hpp"
#include "recurrence/recurrence_native_compute.hpp"
#include "recurrence/recurrence_reference.hpp"

#include <ctrl/ctrl.hpp>

#include <gtest/gtest.h>

#include <sched.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace {

using ctrl::index_t;

// The process's cores, read once before any test pins the main thread (pinning OpenMP's team pins
// its thread 0, the caller, and sched_getaffinity reads the calling thread's mask).
const std::vector<int>& all_cores() {
  static const std::vector<int> cores = apps::native_cores(ctrl::cpu());
  return cores;
}

class NativeTwins : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    apps::native::pin_openmp(all_cores());
    apps::blas_single_threaded();
  }
  ctrl::Controller ctl{ctrl::cpu()};
};

template <std::size_t N>
ctrl::Tile<float, N> tile_from(const apps::Array& a, const index_t (&ext)[N], const char* name) {
  ctrl::Tile<float, N> t(ext, name);
  std::copy(a.data.begin(), a.data.end(), t.data());
  return t;
}

template <class T>
std::vector<float> contents(const T& t) {
  return {t.elements().begin(), t.elements().end()};
}

TEST_F(NativeTwins, MatAddIsBitwiseTheCtrlResult) {
  for (auto [r, c] : {std::pair<index_t, index_t>{37, 53}, {1, 1}, {129, 257}}) {
    const apps::Shape shape{std::size_t(r), std::size_t(c)};
    const auto a = apps::uniform_array(shape, 1, 0, -1, 1), b = apps::uniform_array(shape, 1, 1, -1, 1);
    std::vector<float> native(a.data.size());
    apps::native::matadd(native.data(), a.data.data(), b.data.data(), r, c);
    auto A = tile_from(a, {r, c}, "a"), B = tile_from(b, {r, c}, "b");
    ctrl::Tile<float, 2> C({r, c}, "c");
    ctl.attach(A, B, C);
    ctl.launch<apps::MatAdd>(ctrl::Threads(r, c), C, A, B);
    ctl.detach(A, B, C);
    EXPECT_EQ(native, contents(C));
  }
}

TEST_F(NativeTwins, BlackScholesIsBitwiseTheCtrlResultAndMatchesReference) {
  const index_t n = 4099;
  const apps::Shape shape{std::size_t(n)};
  const auto s = apps::uniform_array(shape, 2, 0, 5, 30), x = apps::uniform_array(shape, 2, 1, 1, 100),
             t = apps::uniform_array(shape, 2, 2, 0.25F, 10);
  std::vector<float> call(s.data.size()), put(s.data.size());
  apps::native::blackscholes(call.data(), put.data(), s.data.data(), x.data.data(), t.data.data(), n, 0.02F, 0.3F);
  const auto ref = apps::reference::blackscholes(s.data, x.data, t.data, 0.02F, 0.3F);
  const auto v = apps::combine(
      {apps::compare("call", call, ref.call, 2e-4, 2e-5), apps::compare("put", put, ref.put, 2e-4, 2e-5)});
  EXPECT_TRUE(v.ok) << v.detail;
  auto S = tile_from(s, {n}, "price"), X = tile_from(x, {n}, "strike"), T = tile_from(t, {n}, "years");
  ctrl::Tile<float, 1> C({n}, "call"), P({n}, "put");
  ctl.attach(S, X, T, C, P);
  ctl.launch<apps::BlackScholes>(ctrl::Threads(n), C, P, S, X, T, 0.02F, 0.3F);
  ctl.detach(S, X, T, C, P);
  EXPECT_EQ(call, contents(C));
  EXPECT_EQ(put, contents(P));
}

TEST_F(NativeTwins, JacobiIsBitwiseTheCtrlResultAndMatchesReference) {
  for (auto [r, c] : {std::pair<index_t, index_t>{37, 53}, {1, 9}, {9, 1}, {3, 3}, {129, 257}}) {
    const apps::Shape shape{std::size_t(r), std::size_t(c)};
    const auto m = apps::uniform_array(shape, 4, 0, 0, 1);
    std::vector<float> native = m.data;
    std::unique_ptr<float[]> scratch(new float[m.data.size()]);
    apps::native::jacobi(native.data(), scratch.get(), r, c, 9);
    const auto v =
        apps::compare("m", native, apps::reference::jacobi(m.data, shape[0], shape[1], 9), 4.0 * 0x1p-24 * 10, 0);
    EXPECT_TRUE(v.ok) << v.detail;
    auto M = tile_from(m, {r, c}, "m");
    ctrl::Tile<float, 2> copy({r, c}, ctrl::shape_only, "m_copy");
    ctl.attach(M);
    ctl.create_internal(copy);
    for (int it = 0; r >= 3 && c >= 3 && it < 9; ++it) {
      ctl.launch<apps::JacobiCopy>(ctrl::Threads(r, c), copy, M);
      ctl.launch<apps::JacobiUpdate>(ctrl::Threads(r - 2, c - 2), M, copy);
    }
    ctl.detach(M);
    ctl.destroy_internal(copy);
    EXPECT_EQ(native, contents(M));
  }
}

TEST_F(NativeTwins, MatMulBothVariantsAreBitwiseTheCtrlResultsAndMatchReference) {
  for (auto [m, k, n] : {std::tuple<index_t, index_t, index_t>{37, 53, 29}, {1, 1, 1}, {37, 5, 53}, {129, 257, 65}}) {
    const auto a = apps::uniform_array({std::size_t(m), std::size_t(k)}, 6, 0, -1, 1);
    const auto b = apps::uniform_array({std::size_t(k), std::size_t(n)}, 6, 1, -1, 1);
    const auto ref = apps::reference::matmul(a.data, b.data, std::size_t(m), std::size_t(k), std::size_t(n));
    const auto bound = apps::reference::matmul_bound(ref, std::size_t(k));
    for (ctrl::Variant variant : {ctrl::Variant::generic, ctrl::Variant::library}) {
      SCOPED_TRACE(ctrl::variant_name(variant));
      std::vector<float> native(std::size_t(m * n));
      if (variant == ctrl::Variant::library)
        apps::native::matmul_blas(native.data(), a.data.data(), b.data.data(), m, k, n);
      else
        apps::native::matmul_generic(native.data(), a.data.data(), b.data.data(), m, k, n);
      const auto v = apps::compare_bounded("c", native, ref.c, bound);
      EXPECT_TRUE(v.ok) << v.detail;
      auto A = tile_from(a, {m, k}, "a"), B = tile_from(b, {k, n}, "b");
      ctrl::Tile<float, 2> C({m, n}, "c");
      ctl.attach(A, B, C);
      ctl.launch<apps::MatMul>(variant, ctrl::Threads(m, n), C, A, B);
      ctl.detach(A, B, C);
      EXPECT_EQ(native, contents(C));
    }
  }
}

TEST_F(NativeTwins, RecurrenceIsBitwiseTheCtrlResultAndMatchesReference) {
  const index_t r = 37, c = 53;
  const auto x = apps::uniform_array({std::size_t(r), std::size_t(c)}, 8, 0, -1, 1);
  std::vector<float> native(x.data.size());
  apps::native::recurrence(native.data(), x.data.data(), r, c, 60);
  const auto v = apps::compare("y", native, apps::reference::recurrence(x.data, 60), 1e-5, 1e-5);
  EXPECT_TRUE(v.ok) << v.detail;
  auto X = tile_from(x, {r, c}, "x");
  ctrl::Tile<float, 2> Y({r, c}, "y");
  ctl.attach(X, Y);
  ctl.launch<apps::Recurrence>(ctrl::Threads(r, c), Y, X, 60);
  ctl.detach(X, Y);
  EXPECT_EQ(native, contents(Y));
}

// The twin's loop (dynamic rows) and the ctrl kernel (dynamic chunks) compute the same doubles in
// the same order: the same picture, bit for bit, under every OpenMP schedule.
TEST_F(NativeTwins, MandelbrotIsBitwiseTheCtrlResultUnderEverySchedule) {
  const index_t rows = 61, cols = 83;
  const int limit = 400;
  const auto v = apps::mandel::view(-0.75, 0.1, 2.5, rows, cols);
  ctrl::Tile<float, 2> it({rows, cols}, "iterations");
  ctl.attach(it);
  ctl.launch<apps::Mandelbrot>(ctrl::Threads(rows, cols), it, v, limit);
  ctl.detach(it);
  for (const auto kind : {omp_sched_static, omp_sched_dynamic, omp_sched_guided}) {
    SCOPED_TRACE(static_cast<int>(kind));
    omp_set_schedule(kind, kind == omp_sched_static ? 0 : 1);
    std::vector<float> native(static_cast<std::size_t>(rows * cols), -1.0F);
    apps::native::mandelbrot(native.data(), rows, cols, v.re0, v.im0, v.step, limit);
    EXPECT_EQ(native, contents(it));
  }
  apps::native::default_mandelbrot_schedule();
}

TEST(NativePinning, OpenMPThreadsStayOnTheirCores) {
  const auto cores = all_cores();
  for (const auto& set : {std::vector<int>{cores.front()}, cores}) {
    apps::native::pin_openmp(set);
    for (int round = 0; round < 3; ++round) {  // later parallel regions keep the placement
      EXPECT_EQ(apps::native::openmp_thread_cpus(), set);
    }
  }
  apps::native::pin_openmp(cores);
}

TEST(NativePinning, CoresComeFromTheDeviceText) {
  const auto usable = all_cores();
  EXPECT_EQ(apps::native_cores(ctrl::parse_device("cpu")), usable);
  EXPECT_EQ(apps::native_cores(ctrl::parse_device("cpu:" + std::to_string(usable.front()))),
            std::vector<int>{usable.front()});
  EXPECT_EQ(apps::native_cores(ctrl::parse_device("cpu:x1")), std::vector<int>{usable.front()});
  std::string note;
  EXPECT_EQ(apps::native_cores(ctrl::parse_device("cuda:0"), &note), usable);
  EXPECT_NE(note.find("cuda:0"), std::string::npos);
  try {
    apps::native_cores(ctrl::parse_device("cpu:0-999"));
    FAIL() << "no error for cpu:0-999";
  } catch (const ctrl::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("999"), std::string::npos) << e.what();
  }
}

}  // namespace
