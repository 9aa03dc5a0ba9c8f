// Coarsened generic kernels (each CUDA thread running several logical threads): the index meaning
// and the clipping are those of one logical thread per CUDA thread, for every item count the
// launch compiles (1, 2, 4, 8) and one it does not (3: the plain kernels), block-per-chunk and
// grid-stride grids, prefetching into L1 or L2, ragged spaces; tiles that overlap take the plain
// kernels; the controller coarsens large streaming launches by itself. Vector-wide runs: the same
// results as the scalar kernels for 1-D and 2-D, float and double, ragged and unaligned storage.
#include "cuda_test_support.hpp"

#include <ctrl/cuda.hpp>

#include <cstdint>
#include <utility>
#include <vector>

namespace {

using ctrl::index_t;
using ctrl::Threads;
using ctrl::Tile;

// Adds each logical thread's code, so that an element written twice (or never) shows.
struct Count1 {
  static constexpr const char* name = "count1";
  static constexpr ctrl::Traits traits{ctrl::coalescing::full, ctrl::arith::low, ctrl::sharing::low};
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<std::int64_t, 1> o) const { o(t.x) += t.x + 1; }
};
struct Count2 {
  static constexpr const char* name = "count2";
  static constexpr ctrl::Traits traits{ctrl::coalescing::full, ctrl::arith::low, ctrl::sharing::low};
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<std::int64_t, 2> o) const {
    o(t.x, t.y) += t.x * 1000000 + t.y + 1;
  }
};
// out = 2 * in; passed one tile as both, it must still double every element once.
struct Twice {  // launched outside a controller only: no name needed
  static constexpr ctrl::Traits traits{ctrl::coalescing::full, ctrl::arith::low, ctrl::sharing::low};
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<float, 1> out, ctrl::In<float, 1> in) const {
    out(t.x) = 2.0F * in(t.x);
  }
};

// A stream of one's own, for launching with a geometry the table would not choose.
class Stream final : public ctrl::CudaContext {
 public:
  Stream() {
    EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
    EXPECT_EQ(cudaGetDeviceProperties(&props_, 0), cudaSuccess);
    EXPECT_EQ(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), cudaSuccess);
  }
  ~Stream() override { cudaStreamDestroy(s_); }
  int device() const override { return 0; }
  const cudaDeviceProp& properties() const override { return props_; }
  cudaStream_t stream() const override { return s_; }
  cublasHandle_t cublas() override { return nullptr; }
  cufftHandle fft_plan(int, const int*, cufftType, int) override { return 0; }
  std::string name() const override { return "test stream"; }

 private:
  cudaStream_t s_ = nullptr;
  cudaDeviceProp props_{};
};

template <class T>
struct Device {
  T* p = nullptr;
  explicit Device(std::size_t n) {
    EXPECT_EQ(cudaMalloc(&p, n * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemset(p, 0, n * sizeof(T)), cudaSuccess);
    // cudaMemset runs on the legacy default stream, which a non-blocking stream does not wait
    // for: without this, a kernel on Stream could run before the zeros land (seen under load).
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  ~Device() { cudaFree(p); }
  std::vector<T> host(std::size_t n) const {
    std::vector<T> h(n);
    EXPECT_EQ(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }
};

// The grids and prefetching the tests sweep: block per chunk, grid-stride, prefetch into L1 / L2.
const ctrl::cuda_detail::Coarsening modes[] = {{1, false, ctrl::cuda_detail::Prefetch::none},
                                               {1, true, ctrl::cuda_detail::Prefetch::none},
                                               {1, false, ctrl::cuda_detail::Prefetch::l1},
                                               {1, false, ctrl::cuda_detail::Prefetch::l2}};
ctrl::cuda_detail::Coarsening with_items(ctrl::cuda_detail::Coarsening m, unsigned items) {
  m.items = items;
  return m;
}

ctrl::cuda_detail::DeviceLimits limits() {
  ctrl::cuda_detail::DeviceLimits lim;
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) == cudaSuccess) {
    lim.multiprocessors = static_cast<unsigned>(p.multiProcessorCount);
    lim.threads_per_multiprocessor = static_cast<unsigned>(p.maxThreadsPerMultiProcessor);
    lim.blocks_per_multiprocessor = static_cast<unsigned>(p.maxBlocksPerMultiProcessor);
  }
  return lim;
}

TEST(CudaCoarsening, EveryItemCountAndGridKeepsTheIndexMeaningIn1D) {
  CTRL_REQUIRE_GPU();
  Stream s;
  for (index_t n : {index_t{1}, index_t{997}, index_t{100003}, index_t{1000003}}) {
    const index_t size = n + 13;  // the tile is larger than the space: the rest stays untouched
    for (unsigned items : {1U, 2U, 3U, 4U, 8U}) {
      for (const auto& mode : modes) {
        for (unsigned block : {32U, 256U}) {
          Device<std::int64_t> o(static_cast<std::size_t>(size));
          const index_t ext[1] = {size};
          const Threads space(n);
          const auto g = ctrl::cuda_detail::geometry_for(ctrl::cuda_detail::HwShape{block, 1, 1}, space, limits(),
                                                         with_items(mode, items));
          ASSERT_EQ(ctrl::cuda_detail::launch<Count1>(ctrl::Variant::generic, s, g, space, Count1{},
                                                      ctrl::InOut<std::int64_t, 1>(o.p, ext)),
                    cudaSuccess);
          ASSERT_EQ(cudaStreamSynchronize(s.stream()), cudaSuccess);
          const auto h = o.host(static_cast<std::size_t>(size));
          for (index_t i = 0; i < size; ++i)
            ASSERT_EQ(h[i], i < n ? i + 1 : 0) << "n " << n << " items " << items << " grid-stride "
                                                << mode.grid_stride << " prefetch " << g.prefetch << " block "
                                                << block << " element " << i;
        }
      }
    }
  }
}

TEST(CudaCoarsening, EveryItemCountAndGridKeepsTheIndexMeaningIn2D) {
  CTRL_REQUIRE_GPU();
  Stream s;
  struct Case {
    index_t rows, cols;
  };
  for (const Case c : {Case{1, 1}, Case{67, 299}, Case{5000, 3}, Case{3, 5000}, Case{1031, 2049}}) {
    const index_t rows = c.rows + 2, cols = c.cols + 5;
    for (unsigned items : {1U, 2U, 3U, 4U, 8U}) {
      for (const auto& mode : modes) {
        Device<std::int64_t> o(static_cast<std::size_t>(rows * cols));
        const index_t ext[2] = {rows, cols};
        const Threads space(c.rows, c.cols);
        const ctrl::Traits traits{ctrl::coalescing::full, ctrl::arith::low, ctrl::sharing::low};
        const auto g = ctrl::cuda_detail::geometry_for(ctrl::cuda_detail::block_shape(traits, space), space, limits(),
                                                       with_items(mode, items));
        ASSERT_EQ(ctrl::cuda_detail::launch<Count2>(ctrl::Variant::generic, s, g, space, Count2{},
                                                    ctrl::InOut<std::int64_t, 2>(o.p, ext)),
                  cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(s.stream()), cudaSuccess);
        const auto h = o.host(static_cast<std::size_t>(rows * cols));
        for (index_t i = 0; i < rows; ++i)
          for (index_t j = 0; j < cols; ++j)
            ASSERT_EQ(h[i * cols + j], i < c.rows && j < c.cols ? i * 1000000 + j + 1 : 0)
                << c.rows << "x" << c.cols << " items " << items << " grid-stride " << mode.grid_stride << " prefetch "
                << g.prefetch << " at " << i << "," << j;
      }
    }
  }
}

TEST(CudaCoarsening, OverlappingTilesTakeThePlainKernels) {
  CTRL_REQUIRE_GPU();
  const float a[4] = {1, 2, 3, 4};
  const index_t ext[1] = {4};
  EXPECT_FALSE(ctrl::cuda_detail::tiles_disjoint(ctrl::Out<float, 1>(const_cast<float*>(a), ext),
                                                 ctrl::In<float, 1>(a, ext), 3.0F));
  const index_t two[1] = {2};
  EXPECT_TRUE(ctrl::cuda_detail::tiles_disjoint(ctrl::Out<float, 1>(const_cast<float*>(a), two),
                                                ctrl::In<float, 1>(a + 2, two), 3.0F));
  EXPECT_FALSE(ctrl::cuda_detail::tiles_disjoint(ctrl::Out<float, 1>(const_cast<float*>(a), ext),
                                                 ctrl::In<float, 1>(a + 2, two)));

  Stream s;
  const index_t n = 3000017;
  std::vector<float> h(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) h[i] = static_cast<float>(i % 1000);
  Device<float> d(static_cast<std::size_t>(n));
  ASSERT_EQ(cudaMemcpy(d.p, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  const index_t e[1] = {n};
  const Threads space(n);
  const auto g = ctrl::cuda_detail::geometry_for(ctrl::detail::traits_of<Twice>(), space, limits());
  EXPECT_GT(g.items, 1U);
  ASSERT_EQ(ctrl::cuda_detail::launch<Twice>(ctrl::Variant::generic, s, g, space, Twice{}, ctrl::Out<float, 1>(d.p, e),
                                             ctrl::In<float, 1>(d.p, e)),
            cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s.stream()), cudaSuccess);
  const auto out = d.host(h.size());
  for (index_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 2.0F * h[i]) << i;
}

// ---- vector-wide runs (4 consecutive logical threads per CUDA thread, 16-byte accesses) ---------

// out = 2a + b + the left neighbour in a (an access the vector runs cannot merge) + the index.
template <class T>
struct Blend1 {
  static constexpr ctrl::Traits traits{ctrl::coalescing::full, ctrl::arith::low, ctrl::sharing::low};
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<T, 1> out, ctrl::In<T, 1> a, ctrl::In<T, 1> b) const {
    out(t.x) = 2 * a(t.x) + b(t.x) + a(t.x > 0 ? t.x - 1 : 0) + static_cast<T>(t.x % 1000);
  }
};
template <class T>
struct Blend2 {
  static constexpr ctrl::Traits traits{ctrl::coalescing::full, ctrl::arith::low, ctrl::sharing::low};
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<T, 2> out, ctrl::In<T, 2> a, ctrl::In<T, 2> b) const {
    out(t.x, t.y) = 2 * a(t.x, t.y) + b(t.x, t.y) + a(t.x, t.y > 0 ? t.y - 1 : 0) + static_cast<T>(t.x % 7);
  }
};

// The table's geometry with the vector runs forced on, whatever the space's size (the table keeps
// them for spaces that fill the device 4 times over).
ctrl::detail::CudaGeometry vector_geometry(const ctrl::Traits& traits, const Threads& space, bool vector) {
  namespace cd = ctrl::cuda_detail;
  const cd::HwShape b = cd::block_shape(traits, space);
  auto g = cd::geometry_for(b, space, limits(), cd::Coarsening{2, true, cd::Prefetch::none});
  g.vector_items = 0;
  if (vector) {
    const auto vg = cd::geometry_for(b, space, limits(), cd::Coarsening{cd::vector_items, true, cd::Prefetch::none});
    g.vector_items = cd::vector_items;
    for (int d = 0; d < 3; ++d) g.vector_grid[d] = vg.grid[d];
  }
  return g;
}

// Runs K over `space` on views of `ext` at element offset `off` into three fresh allocations
// (values small integers: exact in float), with and without the vector runs; returns both outputs.
template <class K, class T, std::size_t N>
std::pair<std::vector<T>, std::vector<T>> with_and_without_vectors(const Threads& space, const index_t (&ext)[N],
                                                                   index_t off) {
  index_t size = 1;
  for (std::size_t d = 0; d < N; ++d) size *= ext[d];
  const auto total = static_cast<std::size_t>(size + off);
  std::vector<T> ha(total), hb(total);
  for (std::size_t i = 0; i < total; ++i) ha[i] = static_cast<T>(i % 251), hb[i] = static_cast<T>(i % 13);
  Device<T> a(total), b(total);
  EXPECT_EQ(cudaMemcpy(a.p, ha.data(), total * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(b.p, hb.data(), total * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  Stream s;
  std::vector<T> r[2];
  for (int vector = 0; vector < 2; ++vector) {
    Device<T> out(total);
    const auto g = vector_geometry(K::traits, space, vector == 1);
    EXPECT_EQ(ctrl::cuda_detail::launch<K>(ctrl::Variant::generic, s, g, space, K{}, ctrl::Out<T, N>(out.p + off, ext),
                                           ctrl::In<T, N>(a.p + off, ext), ctrl::In<T, N>(b.p + off, ext)),
              cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(s.stream()), cudaSuccess);
    r[vector] = out.host(total);
  }
  return {r[0], r[1]};
}

TEST(CudaVectorRuns, TheStorageDecidesWhetherTheyRun) {
  alignas(16) static float f[64] = {};
  const index_t e8[2] = {4, 8}, e6[2] = {4, 6}, e1[1] = {7};
  namespace cd = ctrl::cuda_detail;
  struct Three {
    char c[3];
  };
  EXPECT_EQ((cd::row_unit<ctrl::In<float, 2>>()), 4);  // 16 bytes
  EXPECT_EQ((cd::row_unit<ctrl::In<double, 2>>()), 2);
  EXPECT_EQ((cd::row_unit<ctrl::In<char, 2>>()), 4);  // at most a run
  EXPECT_EQ((cd::row_unit<ctrl::In<Three, 2>>()), 1);  // no run of them stays aligned
  EXPECT_EQ((cd::row_unit<float>()), 1);              // a value parameter
  EXPECT_TRUE((cd::any_vector_tile<ctrl::Out<Three, 1>, ctrl::In<double, 1>, float>()));
  EXPECT_FALSE((cd::any_vector_tile<ctrl::Out<Three, 1>, int>()));
  const index_t e2[2] = {4, 2};
  EXPECT_TRUE(cd::vector_ready(ctrl::Out<float, 2>(f, e8), ctrl::In<float, 2>(f + 32, e8), 1.0F));
  EXPECT_FALSE(cd::vector_ready(ctrl::Out<float, 2>(f, e8), ctrl::In<float, 2>(f + 33, e8)));  // unaligned
  EXPECT_FALSE(cd::vector_ready(ctrl::Out<float, 2>(f, e6), ctrl::In<float, 2>(f + 32, e8)));  // rows of 6
  EXPECT_TRUE(cd::vector_ready(ctrl::In<double, 2>(reinterpret_cast<double*>(f), e6)));         // 6 doubles: 48 bytes
  EXPECT_FALSE(cd::vector_ready(ctrl::In<float, 2>(f, e2)));
  EXPECT_TRUE(cd::vector_ready(ctrl::In<float, 1>(f + 4, e1)));  // a 1-D tile's length does not matter
  EXPECT_FALSE(cd::vector_ready(ctrl::In<float, 1>(f + 2, e1)));
}

TEST(CudaVectorRuns, ResultsEqualTheScalarKernelsIn1D) {
  CTRL_REQUIRE_GPU();
  for (const index_t n : {index_t{3}, index_t{4096}, index_t{100003}, index_t{1000001}}) {
    for (const index_t off : {index_t{0}, index_t{1}, index_t{4}}) {  // aligned, not, aligned again
      const index_t ext[1] = {n + 5};                                 // a tile longer than the space
      const auto [plain, vec] = with_and_without_vectors<Blend1<float>, float>(Threads(n), ext, off);
      ASSERT_EQ(plain, vec) << "float n " << n << " offset " << off;
      for (index_t i = 0; i < n; ++i) {
        const auto k = static_cast<std::size_t>(i + off);
        const float a = static_cast<float>(k % 251), l = static_cast<float>((i > 0 ? k - 1 : k) % 251);
        ASSERT_EQ(vec[k], 2 * a + static_cast<float>(k % 13) + l + static_cast<float>(i % 1000)) << n << " " << i;
      }
      const auto [dplain, dvec] = with_and_without_vectors<Blend1<double>, double>(Threads(n), ext, off);
      ASSERT_EQ(dplain, dvec) << "double n " << n << " offset " << off;
    }
  }
}

TEST(CudaVectorRuns, ResultsEqualTheScalarKernelsIn2D) {
  CTRL_REQUIRE_GPU();
  struct Case {
    index_t rows, cols, tile_cols, off;
  };
  // Rows a multiple of the width or not, the space narrower than the tile (a ragged run per row),
  // views at an aligned and an unaligned offset, rows narrower than a block's run.
  for (const Case c : {Case{67, 1024, 1024, 0}, Case{67, 1021, 1024, 0}, Case{67, 1021, 1023, 0},
                       Case{300, 512, 512, 4}, Case{300, 512, 512, 2}, Case{5, 3000, 3004, 8}, Case{2000, 12, 12, 0}}) {
    const index_t ext[2] = {c.rows + 1, c.tile_cols};
    const Threads space(c.rows, c.cols);
    const auto [plain, vec] = with_and_without_vectors<Blend2<float>, float>(space, ext, c.off);
    ASSERT_EQ(plain, vec) << "float " << c.rows << "x" << c.cols << " in rows of " << c.tile_cols << " at " << c.off;
    for (index_t i = 0; i < ext[0]; ++i)
      for (index_t j = 0; j < ext[1]; ++j) {
        const auto k = static_cast<std::size_t>(i * ext[1] + j + c.off);
        const float a = static_cast<float>(k % 251), l = static_cast<float>((j > 0 ? k - 1 : k) % 251);
        const float want =
            i < c.rows && j < c.cols ? 2 * a + static_cast<float>(k % 13) + l + static_cast<float>(i % 7) : 0;
        ASSERT_EQ(vec[k], want) << c.rows << "x" << c.cols << " at " << i << "," << j;
      }
    const auto [dplain, dvec] = with_and_without_vectors<Blend2<double>, double>(space, ext, c.off);
    ASSERT_EQ(dplain, dvec) << "double " << c.rows << "x" << c.cols << " in rows of " << c.tile_cols;
  }
}

// Through a controller: launches large enough to be coarsened by the table, ragged at the edges.
TEST(CudaCoarsening, TheControllerCoarsensLargeStreamingLaunches) {
  CTRL_REQUIRE_GPU();
  const Threads s1(4000037), s2(1031, 4099);
  const ctrl::Traits traits = ctrl::detail::traits_of<Count2>();
  ASSERT_GT(ctrl::cuda_detail::geometry_for(traits, s1, limits()).items, 1U);
  ASSERT_GT(ctrl::cuda_detail::geometry_for(traits, s2, limits()).items, 1U);
  ctrl::Controller gpu{ctrl::cuda(0)};
  Tile<std::int64_t, 1> o1({s1.x() + 3}, "o1");
  Tile<std::int64_t, 2> o2({s2.x() + 1, s2.y() + 2}, "o2");
  o1.fill(0);
  o2.fill(0);
  gpu.attach(o1, o2);
  gpu.launch<Count1>(s1, o1);
  gpu.launch<Count2>(s2, o2);
  gpu.detach(o1, o2);
  for (index_t i = 0; i < o1.extent(0); ++i) ASSERT_EQ(o1(i), i < s1.x() ? i + 1 : 0) << i;
  for (index_t i = 0; i < o2.extent(0); ++i)
    for (index_t j = 0; j < o2.extent(1); ++j)
      ASSERT_EQ(o2(i, j), i < s2.x() && j < s2.y() ? i * 1000000 + j + 1 : 0) << i << "," << j;
}

}  // namespace
