// Coarsened generic kernels (each CUDA thread running several logical threads): the index meaning
// and the clipping are those of one logical thread per CUDA thread, for every item count the
// launch compiles (1, 2, 4, 8) and one it does not (3: the plain kernels), block-per-chunk and
// grid-stride grids, prefetching into L1 or L2, ragged spaces; tiles that overlap take the plain
// kernels; the controller coarsens large streaming launches by itself. Vector-wide runs: the same
// results as the scalar kernels for 1-D and 2-D, float and double, ragged and unaligned storage,
// and for stencils over the interior of their tiles (runs shifted by the inset; Jacobi's update).
#include "cuda_test_support.hpp"

#include "jacobi/jacobi_kernels.hpp"

#include <ctrl/cuda.hpp>

#include <cstdint>
#include <string>
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
            ASSERT_EQ(h[i], i < n ? i + 1 : 0) << "n " << n << " items " << items << " grid-stride " << mode.grid_stride
                                               << " prefetch " << g.prefetch << " block " << block << " element " << i;
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

// Jacobi's update in the shape of its tiles, `R` cells in from each edge (Traits::interior(R)):
// thread (x, y) writes element (x+R, y+R) from its four neighbours in a, its own element in b and
// its index. 1-D: the neighbours left and right.
template <class T, int R>
struct Stencil2 {
  static constexpr ctrl::Traits traits =
      ctrl::Traits{ctrl::coalescing::medium, ctrl::arith::medium, ctrl::sharing::medium}.interior(R);
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<T, 2> out, ctrl::In<T, 2> a, ctrl::In<T, 2> b) const {
    const index_t i = t.x + R, j = t.y + R;
    out(i, j) = a(i - 1, j) + a(i + 1, j) + 2 * a(i, j - 1) + 3 * a(i, j + 1) + b(i, j) + static_cast<T>(t.y % 5);
  }
};
template <class T, int R>
struct Stencil1 {
  static constexpr ctrl::Traits traits =
      ctrl::Traits{ctrl::coalescing::medium, ctrl::arith::medium, ctrl::sharing::medium}.interior(R);
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<T, 1> out, ctrl::In<T, 1> a, ctrl::In<T, 1> b) const {
    const index_t i = t.x + R;
    out(i) = a(i - 1) + 2 * a(i + 1) + b(i) + static_cast<T>(t.x % 5);
  }
};

// The table's geometry with the vector runs (for K's phase) forced on, whatever the space's size
// (the table keeps them for spaces that fill the device 4 times over).
ctrl::detail::CudaGeometry vector_geometry(const ctrl::Traits& traits, const Threads& space, bool vector) {
  namespace cd = ctrl::cuda_detail;
  const cd::HwShape b = cd::block_shape(traits, space);
  auto g = cd::geometry_for(b, space, limits(), cd::Coarsening{2, true, cd::Prefetch::none});
  g.vector_items = 0;
  if (vector) cd::set_vector_grid(g, b, space, cd::vector_phase(traits), limits(), true);
  return g;
}

// Both outputs of with_and_without_vectors, and whether the second launch took the vector runs.
template <class T>
struct Outputs {
  std::vector<T> plain, vec;
  bool vector_ran = false;
};

// Runs K over `space` on views of `ext` at element offset `off` into three fresh allocations
// (values small integers: exact in float), with and without the vector runs; returns both outputs.
template <class K, class T, std::size_t N>
Outputs<T> with_and_without_vectors(const Threads& space, const index_t (&ext)[N], index_t off) {
  index_t size = 1;
  for (std::size_t d = 0; d < N; ++d) size *= ext[d];
  const auto total = static_cast<std::size_t>(size + off);
  std::vector<T> ha(total), hb(total);
  for (std::size_t i = 0; i < total; ++i) ha[i] = static_cast<T>(i % 251), hb[i] = static_cast<T>(i % 13);
  Device<T> a(total), b(total);
  EXPECT_EQ(cudaMemcpy(a.p, ha.data(), total * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(b.p, hb.data(), total * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  Stream s;
  Outputs<T> r;
  for (int vector = 0; vector < 2; ++vector) {
    Device<T> out(total);
    const auto g = vector_geometry(K::traits, space, vector == 1);
    const ctrl::Out<T, N> o(out.p + off, ext);
    const ctrl::In<T, N> va(a.p + off, ext), vb(b.p + off, ext);
    if (vector == 1) r.vector_ran = ctrl::cuda_detail::takes_vector_runs<K>(g, o, va, vb);
    EXPECT_EQ(ctrl::cuda_detail::launch<K>(ctrl::Variant::generic, s, g, space, K{}, o, va, vb), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(s.stream()), cudaSuccess);
    (vector == 1 ? r.vec : r.plain) = out.host(total);
  }
  return r;
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
  EXPECT_EQ((cd::row_unit<ctrl::In<char, 2>>()), 4);   // at most a run
  EXPECT_EQ((cd::row_unit<ctrl::In<Three, 2>>()), 1);  // no run of them stays aligned
  EXPECT_EQ((cd::row_unit<float>()), 1);               // a value parameter
  EXPECT_TRUE((cd::any_vector_tile<ctrl::Out<Three, 1>, ctrl::In<double, 1>, float>()));
  EXPECT_FALSE((cd::any_vector_tile<ctrl::Out<Three, 1>, int>()));
  const index_t e2[2] = {4, 2};
  EXPECT_TRUE(cd::vector_ready(ctrl::Out<float, 2>(f, e8), ctrl::In<float, 2>(f + 32, e8), 1.0F));
  EXPECT_FALSE(cd::vector_ready(ctrl::Out<float, 2>(f, e8), ctrl::In<float, 2>(f + 33, e8)));  // unaligned
  EXPECT_FALSE(cd::vector_ready(ctrl::Out<float, 2>(f, e6), ctrl::In<float, 2>(f + 32, e8)));  // rows of 6
  EXPECT_TRUE(cd::vector_ready(ctrl::In<double, 2>(reinterpret_cast<double*>(f), e6)));        // 6 doubles: 48 bytes
  EXPECT_FALSE(cd::vector_ready(ctrl::In<float, 2>(f, e2)));
  EXPECT_TRUE(cd::vector_ready(ctrl::In<float, 1>(f + 4, e1)));  // a 1-D tile's length does not matter
  EXPECT_FALSE(cd::vector_ready(ctrl::In<float, 1>(f + 2, e1)));
}

TEST(CudaVectorRuns, ResultsEqualTheScalarKernelsIn1D) {
  CTRL_REQUIRE_GPU();
  for (const index_t n : {index_t{3}, index_t{4096}, index_t{100003}, index_t{1000001}}) {
    for (const index_t off : {index_t{0}, index_t{1}, index_t{4}}) {  // aligned, not, aligned again
      const index_t ext[1] = {n + 5};                                 // a tile longer than the space
      const auto [plain, vec, ran] = with_and_without_vectors<Blend1<float>, float>(Threads(n), ext, off);
      ASSERT_EQ(plain, vec) << "float n " << n << " offset " << off;
      EXPECT_EQ(ran, off % 4 == 0) << "float n " << n << " offset " << off;
      for (index_t i = 0; i < n; ++i) {
        const auto k = static_cast<std::size_t>(i + off);
        const float a = static_cast<float>(k % 251), l = static_cast<float>((i > 0 ? k - 1 : k) % 251);
        ASSERT_EQ(vec[k], 2 * a + static_cast<float>(k % 13) + l + static_cast<float>(i % 1000)) << n << " " << i;
      }
      const auto [dplain, dvec, dran] = with_and_without_vectors<Blend1<double>, double>(Threads(n), ext, off);
      ASSERT_EQ(dplain, dvec) << "double n " << n << " offset " << off;
      EXPECT_EQ(dran, off % 2 == 0) << "double n " << n << " offset " << off;
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
    const auto [plain, vec, ran] = with_and_without_vectors<Blend2<float>, float>(space, ext, c.off);
    ASSERT_EQ(plain, vec) << "float " << c.rows << "x" << c.cols << " in rows of " << c.tile_cols << " at " << c.off;
    EXPECT_EQ(ran, c.off % 4 == 0 && c.tile_cols % 4 == 0) << c.rows << "x" << c.cols << " at " << c.off;
    for (index_t i = 0; i < ext[0]; ++i)
      for (index_t j = 0; j < ext[1]; ++j) {
        const auto k = static_cast<std::size_t>(i * ext[1] + j + c.off);
        const float a = static_cast<float>(k % 251), l = static_cast<float>((j > 0 ? k - 1 : k) % 251);
        const float want =
            i < c.rows && j < c.cols ? 2 * a + static_cast<float>(k % 13) + l + static_cast<float>(i % 7) : 0;
        ASSERT_EQ(vec[k], want) << c.rows << "x" << c.cols << " at " << i << "," << j;
      }
    const auto [dplain, dvec, dran] = with_and_without_vectors<Blend2<double>, double>(space, ext, c.off);
    ASSERT_EQ(dplain, dvec) << "double " << c.rows << "x" << c.cols << " in rows of " << c.tile_cols;
    EXPECT_EQ(dran, c.off % 2 == 0 && c.tile_cols % 2 == 0) << c.rows << "x" << c.cols << " at " << c.off;
  }
}

// Stencil2<T, R>'s value at tile element (i, j) of with_and_without_vectors's inputs (0 outside
// the interior the space covers).
template <class T, int R>
T stencil_at(index_t i, index_t j, const index_t (&ext)[2], const Threads& space, index_t off) {
  if (i < R || i >= space.x() + R || j < R || j >= space.y() + R) return 0;
  auto a = [&](index_t r, index_t c) { return static_cast<T>(static_cast<std::size_t>(r * ext[1] + c + off) % 251); };
  const auto k = static_cast<std::size_t>(i * ext[1] + j + off);
  return a(i - 1, j) + a(i + 1, j) + 2 * a(i, j - 1) + 3 * a(i, j + 1) + static_cast<T>(k % 13) +
         static_cast<T>((j - R) % 5);
}

// Stencil2<T, R> over the interior of a tile R cells wider on each side (and `extra` columns more):
// with and without the runs, against stencil_at; whether the runs ran is what the storage allows.
template <class T, int R>
void check_interior_stencil(index_t rows, index_t cols, index_t extra, index_t off) {
  const index_t ext[2] = {rows + 2 * R, cols + 2 * R + extra};
  const Threads space(rows, cols);
  const auto [plain, vec, ran] = with_and_without_vectors<Stencil2<T, R>, T>(space, ext, off);
  const auto unit = static_cast<index_t>(16 / sizeof(T));
  const std::string what = std::to_string(rows) + "x" + std::to_string(cols) + " in rows of " + std::to_string(ext[1]) +
                           " at " + std::to_string(off) + ", inset " + std::to_string(R) +
                           (sizeof(T) == 4 ? ", float" : ", double");
  EXPECT_EQ(ran, off % unit == 0 && ext[1] % unit == 0) << what;
  ASSERT_EQ(plain, vec) << what;
  for (index_t i = 0; i < ext[0]; ++i)
    for (index_t j = 0; j < ext[1]; ++j)
      ASSERT_EQ(vec[static_cast<std::size_t>(i * ext[1] + j + off)], (stencil_at<T, R>(i, j, ext, space, off)))
          << what << " at " << i << "," << j;
}

// Runs shifted by the stencil's inset (phase 1 for Jacobi's halo of 1, phase 2 for 2): rows of a
// whole number of vectors or not, spaces narrower than one run, views at aligned and unaligned
// offsets, tiles wider than the space's interior.
TEST(CudaVectorRuns, StencilsOverTheInteriorEqualTheScalarKernels) {
  CTRL_REQUIRE_GPU();
  struct Case {
    index_t rows, cols, extra, off;
  };
  for (const Case c :
       {Case{67, 1022, 0, 0}, Case{67, 1021, 0, 0}, Case{5, 10, 0, 0}, Case{300, 510, 0, 4}, Case{300, 510, 0, 2},
        Case{3, 4094, 0, 0}, Case{2000, 2, 0, 0}, Case{40, 1, 1, 0}, Case{33, 517, 3, 0}}) {
    check_interior_stencil<float, 1>(c.rows, c.cols, c.extra, c.off);
    check_interior_stencil<double, 1>(c.rows, c.cols, c.extra, c.off);
  }
  for (const Case c : {Case{67, 1020, 0, 0}, Case{9, 13, 3, 0}, Case{50, 1020, 0, 8}, Case{7, 1, 3, 0}})
    check_interior_stencil<float, 2>(c.rows, c.cols, c.extra, c.off);
}

TEST(CudaVectorRuns, StencilsOverTheInteriorEqualTheScalarKernelsIn1D) {
  CTRL_REQUIRE_GPU();
  for (const index_t n : {index_t{1}, index_t{2}, index_t{4093}, index_t{100001}}) {
    for (const index_t off : {index_t{0}, index_t{1}, index_t{4}}) {
      const index_t ext[1] = {n + 2 + 3};
      const auto [plain, vec, ran] = with_and_without_vectors<Stencil1<float, 1>, float>(Threads(n), ext, off);
      EXPECT_EQ(ran, off % 4 == 0) << n << " at " << off;
      ASSERT_EQ(plain, vec) << n << " at " << off;
      for (index_t i = 0; i < ext[0]; ++i) {
        const auto k = static_cast<std::size_t>(i + off);
        const float want = i < 1 || i > n ? 0.0F
                                          : static_cast<float>((k - 1) % 251) + 2 * static_cast<float>((k + 1) % 251) +
                                                static_cast<float>(k % 13) + static_cast<float>((i - 1) % 5);
        ASSERT_EQ(vec[k], want) << n << " at " << off << ": " << i;
      }
    }
  }
}

// Jacobi's update itself (InOut, interior(1)) on a matrix with rows of whole vectors: the runs
// take it, and the interior equals the mean of the four neighbours, the boundary unchanged.
TEST(CudaVectorRuns, JacobisUpdateRunsVectorWide) {
  CTRL_REQUIRE_GPU();
  namespace cd = ctrl::cuda_detail;
  const index_t rows = 131, cols = 1028, ext[2] = {rows, cols};
  const auto total = static_cast<std::size_t>(rows * cols);
  std::vector<float> hm(total), hc(total);
  for (std::size_t k = 0; k < total; ++k) hm[k] = -1.0F, hc[k] = static_cast<float>(k % 97);
  Device<float> m(total), c(total);
  ASSERT_EQ(cudaMemcpy(m.p, hm.data(), total * 4, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(c.p, hc.data(), total * 4, cudaMemcpyHostToDevice), cudaSuccess);
  const Threads space(rows - 2, cols - 2);
  const auto g = vector_geometry(apps::JacobiUpdate::traits, space, true);
  EXPECT_EQ(g.vector_phase, 1U);
  const ctrl::InOut<float, 2> dst(m.p, ext);
  const ctrl::In<float, 2> src(c.p, ext);
  ASSERT_TRUE(cd::takes_vector_runs<apps::JacobiUpdate>(g, dst, src));
  Stream s;
  ASSERT_EQ(cd::launch<apps::JacobiUpdate>(ctrl::Variant::generic, s, g, space, apps::JacobiUpdate{}, dst, src),
            cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s.stream()), cudaSuccess);
  const auto out = m.host(total);
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j) {
      const auto k = static_cast<std::size_t>(i * cols + j);
      const bool interior = i > 0 && i + 1 < rows && j > 0 && j + 1 < cols;
      const float want =
          interior ? (hc[k + cols] + hc[k - cols] + hc[k + 1] + hc[k - 1]) * 0.25F : -1.0F;  // the kernel's order
      ASSERT_EQ(out[k], want) << i << "," << j;
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
