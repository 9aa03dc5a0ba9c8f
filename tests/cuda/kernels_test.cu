// Kernel variants on the CUDA controller: the native shared-memory matmul, cuBLAS and cuFFT
// library variants on the controller's stream, and which variant runs.
#include "cuda_test_support.hpp"

#include "matmul/matmul_cuda_variants.cuh"

#include <ctrl/cuda.hpp>

#include <cmath>
#include <complex>
#include <vector>

namespace {

using ctrl::Controller;
using ctrl::Threads;
using ctrl::Tile;

double rel_error(const Tile<float, 2>& c, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double d = c[static_cast<ctrl::index_t>(i)] - ref[i];
    if (std::isnan(d)) return INFINITY;
    num += d * d;
    den += ref[i] * ref[i];
  }
  return std::sqrt(num / (den > 0 ? den : 1));
}

std::vector<double> reference(const Tile<float, 2>& a, const Tile<float, 2>& b) {
  const ctrl::index_t m = a.extent(0), k = a.extent(1), n = b.extent(1);
  std::vector<double> c(static_cast<std::size_t>(m * n), 0.0);
  for (ctrl::index_t i = 0; i < m; ++i)
    for (ctrl::index_t l = 0; l < k; ++l)
      for (ctrl::index_t j = 0; j < n; ++j) c[i * n + j] += static_cast<double>(a(i, l)) * b(l, j);
  return c;
}

struct Shape {
  ctrl::index_t m, k, n;
};
class CudaMatMul : public ::testing::TestWithParam<Shape> {};

TEST_P(CudaMatMul, EveryVariantMatchesTheReference) {
  CTRL_REQUIRE_GPU();
  const auto [m, k, n] = GetParam();
  Tile<float, 2> a({m, k}, "a"), b({k, n}, "b"), c({m, n}, "c");
  cudatest::fill_random(a, static_cast<std::uint32_t>(m * 7 + k));
  cudatest::fill_random(b, static_cast<std::uint32_t>(n * 13 + k));
  const std::vector<double> ref = reference(a, b);
  Controller gpu{ctrl::cuda(0)};
  for (ctrl::Variant v : {ctrl::Variant::generic, ctrl::Variant::native, ctrl::Variant::library}) {
    c.fill(std::nanf(""));
    gpu.attach(a, b, c);
    if (v == ctrl::Variant::generic)
      gpu.launch<apps::MatMul>(v, Threads(m, n), c, a, b);
    else
      gpu.launch<apps::MatMulCuda>(v, Threads(m, n), c, a, b);
    gpu.detach(a, b, c);
    EXPECT_LT(rel_error(c, ref), 1e-5) << ctrl::variant_name(v) << " " << m << "x" << k << "x" << n;
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, CudaMatMul,
                         ::testing::Values(Shape{1, 1, 1}, Shape{32, 32, 32}, Shape{67, 45, 91}, Shape{33, 100, 1},
                                           Shape{128, 256, 64}, Shape{200, 1, 150}),
                         [](const ::testing::TestParamInfo<Shape>& i) {
                           return std::to_string(i.param.m) + "x" + std::to_string(i.param.k) + "x" +
                                  std::to_string(i.param.n);
                         });

// Which variant ran: generic writes 1, native 3, the library variant 0x02020202.
struct Which {
  static constexpr const char* name = "which";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<int, 1> o) const { o(t.x) = 1; }
  __device__ void cuda(const ctrl::CudaThread& t, ctrl::Out<int, 1> o) const {
    if (t.inside()) o(t.x) = 3;
  }
  void cuda_library(ctrl::CudaContext& ctx, ctrl::Out<int, 1> o) const {
    ctrl::cuda_check(cudaMemsetAsync(o.data(), 2, static_cast<std::size_t>(o.size()) * sizeof(int), ctx.stream()),
                     "cudaMemsetAsync");
  }
};

TEST(CudaVariants, AutomaticPrefersLibraryThenNativeThenGeneric) {
  CTRL_REQUIRE_GPU();
  Tile<int, 1> o({1000}, "o");
  Controller gpu{ctrl::cuda(0)};
  const std::pair<ctrl::Variant, int> cases[] = {{ctrl::Variant::automatic, 0x02020202},
                                                 {ctrl::Variant::library, 0x02020202},
                                                 {ctrl::Variant::native, 3},
                                                 {ctrl::Variant::generic, 1}};
  for (const auto& [v, expect] : cases) {
    o.fill(-1);
    gpu.attach(o);
    gpu.launch<Which>(v, Threads(1000), o);
    gpu.detach(o);
    for (int e : o.elements()) ASSERT_EQ(e, expect) << ctrl::variant_name(v);
  }
}

// Adds o's element less 0x02020201 to acc's: 1 after Which's library variant wrote o.
struct AddWhich {
  static constexpr const char* name = "add_which";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<int, 1> acc, ctrl::In<int, 1> o) const {
    acc(t.x) += o(t.x) - 0x02020201;
  }
};

// A recorded sequence with a library variant (a memset node, not a kernel: its replays are
// repeated as child graphs, where kernel chains are repeated as kernel nodes) replayed many times:
// every copy runs, each in its order.
TEST(CudaVariants, ReplaysOfALibraryVariantRunEveryCopyInOrder) {
  CTRL_REQUIRE_GPU();
  Tile<int, 1> o({1000}, "o"), acc({1000}, "acc");
  o.fill(-1);
  acc.fill(0);
  Controller gpu{ctrl::cuda(0)};
  gpu.attach(o, acc);
  const ctrl::Graph step = gpu.record([&] {
    gpu.launch<Which>(ctrl::Variant::library, Threads(1000), o);
    gpu.launch<AddWhich>(Threads(1000), acc, o);
  });
  gpu.replay(step, 7);  // graphs of 4, 2 and 1 copies
  gpu.replay(step, 600);
  gpu.detach(o, acc);
  for (int e : acc.elements()) ASSERT_EQ(e, 607);
  for (int e : o.elements()) ASSERT_EQ(e, 0x02020202);
}

// The 2-D FFT of later case studies: cuFFT on the controller's stream through a cached plan.
struct Fft2d {
  static constexpr const char* name = "fft2d";
  void cuda_library(ctrl::CudaContext& ctx, ctrl::InOut<float2, 2> x) const {
    const cufftHandle plan = ctx.fft_plan_2d(static_cast<int>(x.extent(0)), static_cast<int>(x.extent(1)), CUFFT_C2C);
    ctrl::cufft_check(cufftExecC2C(plan, reinterpret_cast<cufftComplex*>(x.data()),
                                   reinterpret_cast<cufftComplex*>(x.data()), CUFFT_FORWARD),
                      "cufftExecC2C");
  }
};

TEST(CudaVariants, CufftTwoDimensionalTransformMatchesTheDft) {
  CTRL_REQUIRE_GPU();
  const ctrl::index_t rows = 24, cols = 40;
  Tile<float2, 2> x({rows, cols}, "x");
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> d(-1, 1);
  for (float2& e : x.elements()) e = make_float2(d(gen), d(gen));
  std::vector<std::complex<double>> in(static_cast<std::size_t>(rows * cols)), ref(in.size());
  for (ctrl::index_t i = 0; i < rows * cols; ++i) in[i] = {x[i].x, x[i].y};
  const double pi = std::acos(-1.0);
  for (ctrl::index_t u = 0; u < rows; ++u)
    for (ctrl::index_t v = 0; v < cols; ++v) {
      std::complex<double> s = 0;
      for (ctrl::index_t i = 0; i < rows; ++i)
        for (ctrl::index_t j = 0; j < cols; ++j)
          s += in[i * cols + j] *
               std::polar(1.0, -2 * pi * (static_cast<double>(u * i) / rows + static_cast<double>(v * j) / cols));
      ref[u * cols + v] = s;
    }
  Controller gpu{ctrl::cuda(0)};
  for (int round = 0; round < 2; ++round) {  // the second round reuses the cached plan
    Tile<float2, 2> y({rows, cols}, "y");
    for (ctrl::index_t i = 0; i < rows * cols; ++i) y[i] = x[i];
    gpu.attach(y);
    gpu.launch<Fft2d>(Threads(rows, cols), y);
    gpu.detach(y);
    double num = 0, den = 0;
    for (ctrl::index_t i = 0; i < rows * cols; ++i) {
      num += std::norm(std::complex<double>(y[i].x, y[i].y) - ref[i]);
      den += std::norm(ref[i]);
    }
    EXPECT_LT(std::sqrt(num / den), 1e-5) << "round " << round;
  }
}

// Value parameters of any trivially copyable type travel with the launch.
struct Params {
  float scale;
  int offset;
};
struct Affine {
  static constexpr const char* name = "affine";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<float, 1> o, Params p, double shift) const {
    o(t.x) = static_cast<float>(t.x) * p.scale + static_cast<float>(p.offset) + static_cast<float>(shift);
  }
};

TEST(CudaVariants, ValueParametersArrive) {
  CTRL_REQUIRE_GPU();
  Tile<float, 1> o({777}, "o");
  Controller gpu{ctrl::cuda(0)};
  gpu.attach(o);
  gpu.launch<Affine>(Threads(777), o, Params{0.5F, 3}, 0.25);
  gpu.detach(o);
  for (ctrl::index_t i = 0; i < 777; ++i) ASSERT_EQ(o(i), static_cast<float>(i) * 0.5F + 3.25F);
}

}  // namespace
