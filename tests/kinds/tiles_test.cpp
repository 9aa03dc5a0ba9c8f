// Tiles and sub-tiles as kernels see them: extents, row-major element positions, and row blocks
// that share their parent's storage.
#include "test_devices.hpp"

namespace {

using ctrl::index_t;
using ctrl::TransferStats;

struct WriteExtents {
  static constexpr const char* name = "write_extents";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread, ctrl::Out<index_t, 1> e, ctrl::In<float, 3> t) const {
    e(0) = t.extent(0);
    e(1) = t.extent(1);
    e(2) = t.extent(2);
    e(3) = t.size();
  }
};

struct WriteCoordinates {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<int, 2> a) const {
    a(t.x, t.y) = static_cast<int>(t.x * 100 + t.y);
  }
};

struct WriteLinear {  // writes through the linear index that row-major order predicts
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<int, 2> a) const {
    a[t.x * a.extent(1) + t.y] = static_cast<int>(t.x * 100 + t.y);
  }
};

struct AddOne {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<int, 2> a) const { a(t.x, t.y) += 1; }
};

struct CopyPlus {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<int, 2> out, ctrl::In<int, 2> in, int add) const {
    out(t.x, t.y) = in(t.x, t.y) + add;
  }
};

class TilesTest : public ctrl::test::DeviceTest {};

TEST_P(TilesTest, KernelSeesTheTileExtents) {
  ctrl::Tile<float, 3> t({3, 5, 7}, "t");
  ctrl::Tile<index_t, 1> e({4}, "e");
  t.fill(0.0f);
  ctl().attach(t, e);
  ctl().launch<WriteExtents>(ctrl::Threads(1), e, t);
  ctl().detach(t, e);
  EXPECT_EQ(e(0), 3);
  EXPECT_EQ(e(1), 5);
  EXPECT_EQ(e(2), 7);
  EXPECT_EQ(e(3), 105);
}

TEST_P(TilesTest, KernelElementAccessIsRowMajorAsOnTheHost) {
  ctrl::Tile<int, 2> a({13, 17}, "a"), b({13, 17}, "b");
  ctl().attach(a, b);
  ctl().launch<WriteCoordinates>(ctrl::Threads(13, 17), a);
  ctl().launch<WriteLinear>(ctrl::Threads(13, 17), b);
  ctl().detach(a, b);
  for (index_t i = 0; i < 13; ++i)
    for (index_t j = 0; j < 17; ++j) {
      ASSERT_EQ(a(i, j), i * 100 + j) << i << "," << j;
      ASSERT_EQ(a[i * 17 + j], i * 100 + j);
      ASSERT_EQ(b(i, j), i * 100 + j) << i << "," << j;
    }
}

TEST_P(TilesTest, SubTileRowZeroIsTheParentsFirstSelectedRow) {
  ctrl::Tile<int, 2> a({8, 4}, "a");
  a.fill(-1);
  ctrl::Tile<int, 2> part = a.rows(2, 5);
  ctl().attach(part);
  ctl().launch<WriteCoordinates>(ctrl::Threads(3, 4), part);
  ctl().detach(part);
  for (index_t i = 0; i < 8; ++i)
    for (index_t j = 0; j < 4; ++j) {
      const int expected = (i >= 2 && i < 5) ? static_cast<int>((i - 2) * 100 + j) : -1;
      ASSERT_EQ(a(i, j), expected) << i << "," << j;
    }
  // Only the sub-tile's rows travel: 3 rows of 4 ints, out once.
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{0, 0, 3 * 4 * sizeof(int), 1}));
}

TEST_P(TilesTest, SubTileReadsItsRowsOfTheParentsData) {
  ctrl::Tile<int, 2> a({10, 3}, "a"), out({4, 3}, "out");
  for (index_t i = 0; i < 10; ++i)
    for (index_t j = 0; j < 3; ++j) a(i, j) = static_cast<int>(i * 10 + j);
  ctrl::Tile<int, 2> part = a.rows(4, 8);
  ctl().attach(part, out);
  ctl().launch<CopyPlus>(ctrl::Threads(4, 3), out, part, 1000);
  ctl().detach(part, out);
  for (index_t i = 0; i < 4; ++i)
    for (index_t j = 0; j < 3; ++j) ASSERT_EQ(out(i, j), (i + 4) * 10 + j + 1000) << i << "," << j;
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{4 * 3 * sizeof(int), 1, 4 * 3 * sizeof(int), 1}));
}

TEST_P(TilesTest, NestedSubTileSelectsRowsOfItsParentSubTile) {
  ctrl::Tile<int, 2> a({12, 2}, "a");
  a.fill(0);
  ctrl::Tile<int, 2> inner = a.rows(2, 10).rows(1, 3);  // rows 3 and 4 of a
  EXPECT_EQ(inner.extent(0), 2);
  ctl().attach(inner);
  ctl().launch<AddOne>(ctrl::Threads(2, 2), inner);
  ctl().detach(inner);
  for (index_t i = 0; i < 12; ++i)
    for (index_t j = 0; j < 2; ++j) ASSERT_EQ(a(i, j), (i == 3 || i == 4) ? 1 : 0) << i << "," << j;
}

TEST_P(TilesTest, EmptySubTileWithEmptyIndexSpaceChangesNothing) {
  ctrl::Tile<int, 2> a({6, 3}, "a");
  a.fill(5);
  ctrl::Tile<int, 2> none = a.rows(3, 3);
  ctl().attach(none);
  ctl().launch<AddOne>(ctrl::Threads(0, 3), none);
  ctl().detach(none);
  for (int v : a.elements()) ASSERT_EQ(v, 5);
}

TEST_P(TilesTest, CopiesOfATileHandleAreTheSameTile) {
  ctrl::Tile<int, 2> a({4, 4}, "a");
  a.fill(1);
  ctrl::Tile<int, 2> alias = a;
  ctl().attach(alias);
  ctl().launch<AddOne>(ctrl::Threads(4, 4), a);  // launched through the other handle
  ctl().detach(a);
  for (int v : alias.elements()) ASSERT_EQ(v, 2);
  // Both handles are free again: a second controller can take the tile.
  auto other = another();
  EXPECT_NO_THROW(other->attach(alias));
  other->detach(alias);
}

TEST_P(TilesTest, ParentTileSeesWhatItsSubTilesWroteAfterDetach) {
  ctrl::Tile<int, 2> a({6, 5}, "a");
  a.fill(0);
  ctrl::Tile<int, 2> top = a.rows(0, 3), bottom = a.rows(3, 6);
  ctl().attach(top);
  ctl().launch<WriteCoordinates>(ctrl::Threads(3, 5), top);
  ctl().detach(top);
  ctl().attach(bottom);
  ctl().launch<WriteCoordinates>(ctrl::Threads(3, 5), bottom);
  ctl().detach(bottom);
  ctrl::Tile<int, 2> out({6, 5}, "out");
  ctl().attach(a, out);
  ctl().launch<CopyPlus>(ctrl::Threads(6, 5), out, a, 0);
  ctl().detach(a, out);
  for (index_t i = 0; i < 6; ++i)
    for (index_t j = 0; j < 5; ++j) ASSERT_EQ(out(i, j), (i % 3) * 100 + j) << i << "," << j;
}

CTRL_INSTANTIATE_DEVICE_TESTS(TilesTest);

}  // namespace
