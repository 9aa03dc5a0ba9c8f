// What describes a launch without running it: index spaces (Threads), a kernel's characterization
// (Traits and its text), the params() mask and how it maps onto tile parameters, kernel parameter
// introspection, and the names of variants.
#include <ctrl/ctrl.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <type_traits>

namespace {

using ctrl::index_t;

TEST(Threads, DimensionsExtentsAndSize) {
  constexpr ctrl::Threads one(100);
  static_assert(one.dims() == 1 && one.x() == 100 && one.y() == 1 && one.z() == 1 && one.size() == 100);
  constexpr ctrl::Threads two(100, 200);
  static_assert(two.dims() == 2 && two.extent(0) == 100 && two.extent(1) == 200 && two.size() == 20000);
  constexpr ctrl::Threads three(2, 3, 4);
  static_assert(three.dims() == 3 && three.z() == 4 && three.extent(2) == 4 && three.size() == 24);
  EXPECT_FALSE(three.empty());
  EXPECT_TRUE(ctrl::Threads(0).empty());
  EXPECT_TRUE(ctrl::Threads(5, 0).empty());
  EXPECT_TRUE(ctrl::Threads(5, 5, 0).empty());
}

TEST(Threads, TextNamesEveryDimension) {
  EXPECT_EQ(ctrl::Threads(100).str(), "(100)");
  EXPECT_EQ(ctrl::Threads(100, 200).str(), "(100, 200)");
  EXPECT_EQ(ctrl::Threads(1, 2, 3).str(), "(1, 2, 3)");
  EXPECT_EQ(ctrl::Threads(index_t{1} << 40).str(), "(1099511627776)");
}

TEST(Traits, TextOfCharacterizations) {
  EXPECT_EQ(ctrl::Traits{}.str(), "default/default/default");
  EXPECT_EQ((ctrl::Traits{ctrl::coalescing::full, ctrl::arith::low, ctrl::sharing::low}.str()), "full/low/low");
  EXPECT_EQ((ctrl::Traits{ctrl::coalescing::scattered, ctrl::arith::high, ctrl::sharing::medium}.str()),
            "scattered/high/medium");
  EXPECT_EQ((ctrl::Traits{ctrl::coalescing::medium, ctrl::arith::deflt, ctrl::sharing::high}.str()),
            "medium/default/high");
  EXPECT_EQ(ctrl::Traits::fixed_block(32, 32).str(), "fixed 32x32x1");
  EXPECT_EQ(ctrl::Traits::fixed_block(8, 4, 2).str(), "fixed 8x4x2");
  static_assert(ctrl::Traits::fixed_block(16, 16).block.fixed());
  static_assert(!ctrl::Traits{}.block.fixed());
}

TEST(Traits, CostIsRegularUnlessSaid) {
  static_assert(ctrl::Traits{}.work == ctrl::cost::regular);
  static_assert(ctrl::Traits{ctrl::coalescing::full, ctrl::arith::low, ctrl::sharing::low}.work == ctrl::cost::regular);
  static_assert(ctrl::Traits::fixed_block(32, 32).work == ctrl::cost::regular);
  constexpr ctrl::Traits irregular{ctrl::cost::irregular};
  static_assert(irregular.work == ctrl::cost::irregular && irregular.coal == ctrl::coalescing::deflt);
  constexpr ctrl::Traits all{ctrl::coalescing::full, ctrl::arith::high, ctrl::sharing::low, ctrl::cost::irregular};
  static_assert(all.ops == ctrl::arith::high && all.work == ctrl::cost::irregular);
  static_assert(ctrl::Traits::fixed_block(16, 16).with(ctrl::cost::irregular).block.fixed());
  EXPECT_EQ(irregular.str(), "default/default/default, irregular");
  EXPECT_EQ(all.str(), "full/high/low, irregular");
  EXPECT_EQ(ctrl::Traits::fixed_block(16, 16).with(ctrl::cost::irregular).str(), "fixed 16x16x1, irregular");
}

TEST(Traits, InteriorStatesWhereAThreadsElementLies) {
  constexpr ctrl::Traits stencil =
      ctrl::Traits{ctrl::coalescing::medium, ctrl::arith::medium, ctrl::sharing::medium}.interior(1);
  static_assert(ctrl::Traits{}.inset == -1 && stencil.inset == 1 && stencil.coal == ctrl::coalescing::medium);
  static_assert(stencil.with(ctrl::cost::irregular).inset == 1 && stencil.interior(-3).inset == -1);
  static_assert(stencil.interior(1000).inset == 127);
  EXPECT_EQ(stencil.str(), "medium/medium/medium, interior 1");
  EXPECT_EQ(stencil.interior(0).with(ctrl::cost::irregular).str(), "medium/medium/medium, interior 0, irregular");
}

TEST(ParamsMask, BitsArePositions) {
  static_assert(ctrl::params() == 0U);
  static_assert(ctrl::params(0) == 1U);
  static_assert(ctrl::params(0, 1) == 3U);
  static_assert(ctrl::params(2) == 4U);
  static_assert(ctrl::params(1, 3, 31) == ((1U << 1) | (1U << 3) | (1U << 31)));
  EXPECT_EQ(ctrl::params(0, 2, 4), 21U);
}

// Kernels that only describe themselves (never launched here).
struct Characterized {
  static constexpr ctrl::Traits traits{ctrl::coalescing::full, ctrl::arith::medium, ctrl::sharing::low};
  static constexpr std::uint32_t indexed = ctrl::params(2);  // the second tile (position 2)
  CTRL_HOST_DEVICE void operator()(ctrl::Thread, ctrl::Out<float, 2>, int, ctrl::In<float, 1>, double,
                                   ctrl::InOut<int, 3>) const {}
};
struct Plain {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread, ctrl::Out<float, 1>, ctrl::In<float, 1>) const {}
};
struct LibraryOnly {
  void cpu_library(ctrl::CpuContext&, ctrl::InOut<double, 2>, float) const {}
};

TEST(KernelIntrospection, ParametersAndTilesOfAKernel) {
  using P = ctrl::detail::kernel_params_t<Characterized>;
  EXPECT_EQ(P::size, 5U);
  EXPECT_EQ(ctrl::detail::count_tiles(P{}), 3U);
  using L = ctrl::detail::kernel_params_t<LibraryOnly>;  // found through its only variant
  EXPECT_EQ(L::size, 2U);
  EXPECT_EQ(ctrl::detail::count_tiles(L{}), 1U);
}

TEST(KernelIntrospection, IndexedMaskMapsParameterPositionsToTiles) {
  // Position 2 is the second tile parameter (positions 0, 2, 4 are tiles).
  EXPECT_EQ(ctrl::detail::indexed_tiles_of<Characterized>(ctrl::detail::kernel_params_t<Characterized>{}), 0b010U);
  // Without a declaration every tile is indexed.
  EXPECT_EQ(ctrl::detail::indexed_tiles_of<Plain>(ctrl::detail::kernel_params_t<Plain>{}), 0b11U);
}

TEST(KernelIntrospection, TraitsOfAKernel) {
  EXPECT_EQ(ctrl::detail::traits_of<Characterized>().str(), "full/medium/low");
  EXPECT_EQ(ctrl::detail::traits_of<Plain>().str(), "default/default/default");
}

TEST(KernelIntrospection, VariantsAKernelDefines) {
  EXPECT_TRUE(ctrl::detail::has_generic<Plain>);
  EXPECT_FALSE(ctrl::detail::has_cpu_native<Plain>);
  EXPECT_FALSE(ctrl::detail::has_cpu_library<Plain>);
  EXPECT_FALSE(ctrl::detail::has_generic<LibraryOnly>);
  EXPECT_TRUE(ctrl::detail::has_cpu_library<LibraryOnly>);
  EXPECT_STREQ(ctrl::variant_name(ctrl::Variant::automatic), "automatic");
  EXPECT_STREQ(ctrl::variant_name(ctrl::Variant::generic), "generic");
  EXPECT_STREQ(ctrl::variant_name(ctrl::Variant::native), "native");
  EXPECT_STREQ(ctrl::variant_name(ctrl::Variant::library), "library");
}

TEST(KernelIntrospection, SplitRangeCoversEveryIndexOnce) {
  for (index_t n : {0, 1, 7, 100, 101}) {
    for (int workers : {1, 2, 3, 16}) {
      index_t next = 0;
      for (int w = 0; w < workers; ++w) {
        index_t b = 0, e = 0;
        ctrl::split_range(n, workers, w, b, e);
        EXPECT_EQ(b, next) << n << " over " << workers;
        EXPECT_LE(e - b, n / workers + 1);
        EXPECT_GE(e - b, n / workers);
        next = e;
      }
      EXPECT_EQ(next, n) << n << " over " << workers;
    }
  }
}

}  // namespace
