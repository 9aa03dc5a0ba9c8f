// Index spaces of 1, 2 and 3 dimensions over tiles of 1 to 4 dimensions: every logical thread runs
// exactly once, threads outside the space never run, and the unused indexes are zero.
#include "test_devices.hpp"

#include <algorithm>
#include <cstdint>

namespace {

using ctrl::index_t;
using u32 = std::uint32_t;

// Adds a value that identifies the thread: running twice, or not at all, shows in the sum.
struct Mark1 {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<u32, 1> a) const {
    a(t.x) += static_cast<u32>(t.x) + 1U;
  }
};
struct Mark2 {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<u32, 2> a) const {
    a(t.x, t.y) += static_cast<u32>(t.x * 1000 + t.y) + 1U;
  }
};
struct Mark3 {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<u32, 3> a) const {
    a(t.x, t.y, t.z) += static_cast<u32>((t.x * 100 + t.y) * 100 + t.z) + 1U;
  }
};

// Records the indexes a 1-D or 2-D space leaves unused.
struct UnusedIndexes {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<index_t, 2> yz) const {
    yz(t.x, 0) = t.y;
    yz(t.x, 1) = t.z;
  }
};
struct UnusedZ {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<index_t, 2> z) const { z(t.x, t.y) = t.z; }
};

// A 4-D tile from a 3-D space: each thread walks the last dimension.
struct Fill4 {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<u32, 4> a) const {
    for (index_t w = 0; w < a.extent(3); ++w)
      a(t.x, t.y, t.z, w) = static_cast<u32>(((t.x * 4 + t.y) * 5 + t.z) * 6 + w);
  }
};

// A lookup table smaller than the index space: only parameter 0 is indexed by the threads.
struct Lookup {
  static constexpr const char* name = "lookup";
  static constexpr std::uint32_t indexed = ctrl::params(0);
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<u32, 1> out, ctrl::In<u32, 1> table) const {
    out(t.x) = table(t.x % table.extent(0));
  }
};
struct LookupUnmarked {  // the same body, without the `indexed` declaration
  static constexpr const char* name = "lookup_unmarked";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<u32, 1> out, ctrl::In<u32, 1> table) const {
    out(t.x) = table(t.x % table.extent(0));
  }
};

class IndexSpacesTest : public ctrl::test::DeviceTest {};

TEST_P(IndexSpacesTest, OneDimensionalSpaceRunsEveryThreadOnce) {
  const index_t n = 1001;  // odd: the blocks of a multi-core split differ in size
  ctrl::Tile<u32, 1> a({n}, "a");
  a.fill(0);
  ctl().attach(a);
  ctl().launch<Mark1>(ctrl::Threads(n), a);
  ctl().detach(a);
  for (index_t i = 0; i < n; ++i) ASSERT_EQ(a(i), static_cast<u32>(i) + 1U) << i;
}

TEST_P(IndexSpacesTest, TwoDimensionalSpaceRunsEveryThreadOnce) {
  ctrl::Tile<u32, 2> a({37, 53}, "a");
  a.fill(0);
  ctl().attach(a);
  ctl().launch<Mark2>(ctrl::Threads(37, 53), a);
  ctl().detach(a);
  for (index_t i = 0; i < 37; ++i)
    for (index_t j = 0; j < 53; ++j) ASSERT_EQ(a(i, j), static_cast<u32>(i * 1000 + j) + 1U) << i << "," << j;
}

// Spaces of whole rows (every rank-2 tile's rows as long as the space's: the CUDA backend runs
// them as one line of threads and divides by the row length) for widths around powers of two and
// primes; beside a 1-D tile (no rows to match), and beside a wider tile (rows that do not match:
// the 2-D grid).
struct MarkRows {
  static constexpr std::uint32_t indexed = ctrl::params(0);  // bias is one value for every thread
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<u32, 2> a, ctrl::In<u32, 1> bias) const {
    a(t.x, t.y) += static_cast<u32>(t.x * 100'000 + t.y) + bias(0);
  }
};
TEST_P(IndexSpacesTest, WholeRowsOfEveryWidthRunEveryThreadOnce) {
  ctrl::Tile<u32, 1> bias({1}, "bias");
  bias(0) = 7;
  ctl().attach(bias);
  for (const index_t cols : {1, 2, 3, 31, 32, 33, 127, 512, 1000, 4097, 65'537}) {
    const index_t rows = std::max<index_t>(2, 70'000 / cols);
    ctrl::Tile<u32, 2> a({rows, cols}, "a"), wide({rows, cols + 1}, "wide");
    a.fill(0);
    wide.fill(0);
    ctl().attach(a, wide);
    ctl().launch<MarkRows>(ctrl::Threads(rows, cols), a, bias);
    ctl().launch<MarkRows>(ctrl::Threads(rows, cols), wide, bias);
    ctl().launch<MarkRows>(ctrl::Threads(rows - 1, cols), a, bias);  // fewer rows than the tile
    ctl().detach(a, wide);
    for (index_t i = 0; i < rows; ++i)
      for (index_t j = 0; j <= cols; ++j) {
        const u32 once = static_cast<u32>(i * 100'000 + j) + 7U;
        if (j < cols) ASSERT_EQ(a(i, j), i < rows - 1 ? 2 * once : once) << cols << ": " << i << "," << j;
        ASSERT_EQ(wide(i, j), j < cols ? once : 0U) << cols << " (wide): " << i << "," << j;
      }
  }
  ctl().detach(bias);
}

TEST_P(IndexSpacesTest, ThreeDimensionalSpaceRunsEveryThreadOnce) {
  ctrl::Tile<u32, 3> a({5, 7, 33}, "a");
  a.fill(0);
  ctl().attach(a);
  ctl().launch<Mark3>(ctrl::Threads(5, 7, 33), a);
  ctl().detach(a);
  for (index_t i = 0; i < 5; ++i)
    for (index_t j = 0; j < 7; ++j)
      for (index_t k = 0; k < 33; ++k) ASSERT_EQ(a(i, j, k), static_cast<u32>((i * 100 + j) * 100 + k) + 1U);
}

TEST_P(IndexSpacesTest, SpaceSmallerThanTheTileLeavesTheRestUntouched) {
  ctrl::Tile<u32, 2> a({10, 10}, "a");
  a.fill(0);
  ctl().attach(a);
  ctl().launch<Mark2>(ctrl::Threads(4, 3), a);
  ctl().detach(a);
  for (index_t i = 0; i < 10; ++i)
    for (index_t j = 0; j < 10; ++j)
      ASSERT_EQ(a(i, j), (i < 4 && j < 3) ? static_cast<u32>(i * 1000 + j) + 1U : 0U) << i << "," << j;
}

TEST_P(IndexSpacesTest, UnusedThreadIndexesAreZero) {
  ctrl::Tile<index_t, 2> yz({9, 2}, "yz"), z({4, 6}, "z");
  yz.fill(-1);
  z.fill(-1);
  ctl().attach(yz, z);
  ctl().launch<UnusedIndexes>(ctrl::Threads(9), yz);
  ctl().launch<UnusedZ>(ctrl::Threads(4, 6), z);
  ctl().detach(yz, z);
  for (index_t v : yz.elements()) ASSERT_EQ(v, 0);
  for (index_t v : z.elements()) ASSERT_EQ(v, 0);
}

TEST_P(IndexSpacesTest, FourDimensionalTileIsRowMajor) {
  ctrl::Tile<u32, 4> a({3, 4, 5, 6}, "a");
  ctl().attach(a);
  ctl().launch<Fill4>(ctrl::Threads(3, 4, 5), a);
  ctl().detach(a);
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[static_cast<index_t>(i)], static_cast<u32>(i)) << i;
  EXPECT_EQ(&a(1, 0, 0, 0) - &a(0, 0, 0, 0), 4 * 5 * 6);
}

TEST_P(IndexSpacesTest, IndexedMaskExemptsASmallLookupTable) {
  ctrl::Tile<u32, 1> out({100}, "out"), table({4}, "table");
  for (index_t i = 0; i < 4; ++i) table(i) = static_cast<u32>(10 * i + 7);
  ctl().attach(out, table);
  ctl().launch<Lookup>(ctrl::Threads(100), out, table);
  // Without the declaration, the table is checked against the space and found too small.
  EXPECT_TRUE(
      ctrl::test::throws_naming<ctrl::UsageError>([&] { ctl().launch<LookupUnmarked>(ctrl::Threads(100), out, table); },
                                                  {"lookup_unmarked", "'table'", ctl().name(), "(100)"}));
  ctl().detach(out, table);
  for (index_t i = 0; i < 100; ++i) ASSERT_EQ(out(i), static_cast<u32>(10 * (i % 4) + 7)) << i;
}

TEST_P(IndexSpacesTest, LargeOneDimensionalSpace) {
  const index_t n = index_t{1} << 20;
  ctrl::Tile<u32, 1> a({n}, "a");
  a.fill(0);
  ctl().attach(a);
  ctl().launch<Mark1>(ctrl::Threads(n), a);
  ctl().launch<Mark1>(ctrl::Threads(n), a);
  ctl().detach(a);
  for (index_t i = 0; i < n; ++i) ASSERT_EQ(a(i), 2U * (static_cast<u32>(i) + 1U)) << i;
}

CTRL_INSTANTIATE_DEVICE_TESTS(IndexSpacesTest);

}  // namespace
