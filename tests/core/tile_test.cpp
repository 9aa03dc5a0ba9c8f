// Tiles and views on the host: row-major indexing of 1–4 dimensions, handles that share one array,
// shape-only tiles, row-block sub-tiles and their bounds errors.
#include <ctrl/ctrl.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using ctrl::index_t;

bool message_has(const ctrl::Error& e, const std::string& part) {
  return std::string(e.what()).find(part) != std::string::npos;
}

TEST(TileHost, OneToFourDimensionalIndexingIsRowMajor) {
  ctrl::Tile<int, 1> a({7});
  ctrl::Tile<int, 2> b({3, 5});
  ctrl::Tile<int, 3> c({2, 3, 4});
  ctrl::Tile<int, 4> d({2, 3, 4, 5});
  EXPECT_EQ(&a(6) - a.data(), 6);
  EXPECT_EQ(&b(2, 1) - b.data(), 2 * 5 + 1);
  EXPECT_EQ(&c(1, 2, 3) - c.data(), (1 * 3 + 2) * 4 + 3);
  EXPECT_EQ(&d(1, 2, 3, 4) - d.data(), ((1 * 3 + 2) * 4 + 3) * 5 + 4);
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 3; ++j)
      for (index_t k = 0; k < 4; ++k) c(i, j, k) = static_cast<int>(i * 100 + j * 10 + k);
  EXPECT_EQ(c[0], 0);
  EXPECT_EQ(c[5], 11);    // (0, 1, 1)
  EXPECT_EQ(c[23], 123);  // the last
}

TEST(TileHost, ShapeSizeAndBytes) {
  ctrl::Tile<double, 3> t({2, 3, 4}, "t");
  EXPECT_EQ(t.extent(0), 2);
  EXPECT_EQ(t.extent(1), 3);
  EXPECT_EQ(t.extent(2), 4);
  EXPECT_EQ(t.size(), 24U);
  EXPECT_EQ(t.bytes(), 24U * sizeof(double));
  EXPECT_EQ(t.elements().size(), 24U);
  EXPECT_EQ(t.rank, 3U);
  EXPECT_TRUE(t.allocated());
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.data()) % 64, 0U);  // cache-line aligned storage
}

TEST(TileHost, NamesAndLabels) {
  ctrl::Tile<float, 2> named({10, 20}, "A");
  EXPECT_EQ(named.name(), "A");
  EXPECT_NE(named.label().find("'A'"), std::string::npos);
  EXPECT_NE(named.label().find("10x20"), std::string::npos);
  ctrl::Tile<float, 1> anonymous({3});
  EXPECT_EQ(anonymous.name().rfind("tile#", 0), 0U) << anonymous.name();
  ctrl::Tile<float, 1> other({3});
  EXPECT_NE(anonymous.name(), other.name());
}

TEST(TileHost, CopiesAreHandlesToOneArray) {
  ctrl::Tile<int, 2> a({2, 2});
  a.fill(1);
  ctrl::Tile<int, 2> b = a;
  b(1, 1) = 9;
  EXPECT_EQ(a(1, 1), 9);
  EXPECT_EQ(a.data(), b.data());
  EXPECT_EQ(&a.state(), &b.state());
}

TEST(TileHost, FillSetsEveryElement) {
  ctrl::Tile<short, 3> t({3, 4, 5});
  t.fill(-3);
  for (short v : t.elements()) ASSERT_EQ(v, -3);
}

TEST(TileHost, ShapeOnlyTileHasNoHostMemory) {
  ctrl::Tile<float, 2> s({100, 100}, ctrl::shape_only, "s");
  EXPECT_FALSE(s.allocated());
  EXPECT_EQ(s.data(), nullptr);
  EXPECT_TRUE(s.elements().empty());
  EXPECT_EQ(s.size(), 10000U);  // the shape is known
  EXPECT_EQ(s.bytes(), 40000U);
}

TEST(TileHost, EmptyTilesAreAllowed) {
  ctrl::Tile<int, 2> t({0, 5});
  EXPECT_EQ(t.size(), 0U);
  EXPECT_TRUE(t.elements().empty());
}

TEST(TileHost, NegativeExtentIsAUsageErrorNamingTheTile) {
  try {
    ctrl::Tile<int, 2> t({3, -1}, "bad");
    ADD_FAILURE() << "accepted";
  } catch (const ctrl::UsageError& e) {
    EXPECT_TRUE(message_has(e, "'bad'")) << e.what();
    EXPECT_TRUE(message_has(e, "-1")) << e.what();
  }
}

TEST(SubTile, RowsShareTheParentsStorage) {
  ctrl::Tile<int, 2> a({6, 4}, "A");
  for (index_t i = 0; i < 6; ++i)
    for (index_t j = 0; j < 4; ++j) a(i, j) = static_cast<int>(i * 10 + j);
  ctrl::Tile<int, 2> part = a.rows(2, 5);
  EXPECT_EQ(part.extent(0), 3);
  EXPECT_EQ(part.extent(1), 4);
  EXPECT_EQ(part.name(), "A[2:5]");
  EXPECT_EQ(part.data(), &a(2, 0));
  EXPECT_EQ(part(0, 3), 23);
  part(2, 0) = -1;
  EXPECT_EQ(a(4, 0), -1);
  EXPECT_NE(&part.state(), &a.state());  // a tile of its own, for controllers
}

TEST(SubTile, NestedRowsAddTheirOffsets) {
  ctrl::Tile<int, 3> a({10, 2, 3}, "A");
  ctrl::Tile<int, 3> inner = a.rows(2, 9).rows(3, 5);  // rows 5 and 6 of A
  EXPECT_EQ(inner.extent(0), 2);
  EXPECT_EQ(inner.data(), &a(5, 0, 0));
  EXPECT_EQ(inner.name(), "A[2:9][3:5]");
}

TEST(SubTile, EmptyAndWholeRangesAreAllowed) {
  ctrl::Tile<int, 2> a({4, 3}, "A");
  EXPECT_EQ(a.rows(0, 4).data(), a.data());
  EXPECT_EQ(a.rows(0, 4).size(), a.size());
  EXPECT_EQ(a.rows(4, 4).size(), 0U);
  EXPECT_EQ(a.rows(2, 2).extent(0), 0);
}

TEST(SubTile, OutOfBoundsRangesAreUsageErrorsNamingTheTile) {
  ctrl::Tile<int, 2> a({4, 3}, "A");
  for (auto [b, e] : {std::pair<index_t, index_t>{-1, 2}, {3, 2}, {0, 5}, {5, 6}, {4, 5}}) {
    SCOPED_TRACE(std::to_string(b) + ":" + std::to_string(e));
    try {
      (void)a.rows(b, e);
      ADD_FAILURE() << "accepted";
    } catch (const ctrl::UsageError& err) {
      EXPECT_TRUE(message_has(err, "'A'")) << err.what();
      EXPECT_TRUE(message_has(err, "rows(" + std::to_string(b) + ", " + std::to_string(e) + ")")) << err.what();
    }
  }
  // A sub-tile's bounds are its own, not its parent's.
  EXPECT_THROW((void)a.rows(1, 3).rows(0, 3), ctrl::UsageError);
}

TEST(SubTile, ShapeOnlyTileHasNoRowsToShare) {
  ctrl::Tile<int, 2> s({4, 3}, ctrl::shape_only, "S");
  EXPECT_THROW((void)s.rows(0, 2), ctrl::UsageError);
}

// What vector-wide code may assume (Tile::alignment / padded): owned storage is 64-byte aligned
// and padded, a row block is aligned as its first row is, wrapped memory as the user's is.
TEST(WrappedTile, AlignmentFactsOfOwnedRowBlockAndWrappedMemory) {
  ctrl::Tile<float, 2> owned({6, 5}, "owned");
  EXPECT_FALSE(owned.wrapped());
  EXPECT_EQ(owned.alignment(), 64U);
  EXPECT_TRUE(owned.padded());
  EXPECT_EQ(owned.rows(1, 3).alignment(), 4U);   // 20-byte rows
  EXPECT_EQ(owned.rows(4, 6).alignment(), 16U);  // starts 80 bytes in
  alignas(64) float user[20] = {};
  auto w = ctrl::wrap(std::span<float>(user + 1, 12), {3, 4}, "user");
  EXPECT_TRUE(w.wrapped());
  EXPECT_TRUE(w.allocated());
  EXPECT_EQ(w.alignment(), 4U);
  EXPECT_FALSE(w.padded());
  EXPECT_EQ(ctrl::wrap(user, {20}).alignment(), 64U);
  EXPECT_EQ(&w(1, 2), user + 1 + 6);  // the user's elements, indexed as any tile's
}

TEST(WrappedTile, ConstMemoryGivesATileOfConstElements) {
  const std::vector<double> v{1.0, 2.0, 3.0, 4.0};
  auto t = ctrl::wrap(v, {2, 2}, "v");
  static_assert(std::is_same_v<decltype(t), ctrl::Tile<const double, 2>>);
  static_assert(std::is_same_v<decltype(t(0, 0)), const double&>);
  EXPECT_EQ(t(1, 0), 3.0);
  EXPECT_EQ(t.elements().data(), v.data());
  EXPECT_EQ(t.rows(1, 2)[1], 4.0);
}

TEST(View, DefaultViewIsEmpty) {
  ctrl::View<float, 2> v;
  EXPECT_EQ(v.data(), nullptr);
  EXPECT_EQ(v.size(), 0);
}

TEST(View, IndexingMatchesTheTiles) {
  ctrl::Tile<int, 4> t({2, 3, 4, 5});
  const ctrl::View<int, 4> v = t.view();
  EXPECT_EQ(v.size(), 120);
  EXPECT_EQ(v.extent(3), 5);
  EXPECT_EQ(&v(1, 2, 3, 4), &t(1, 2, 3, 4));
  EXPECT_EQ(&v[119], &t(1, 2, 3, 4));
  const int raw[6] = {0, 1, 2, 3, 4, 5};
  const ctrl::View<const int, 2> c(raw, {2, 3});
  EXPECT_EQ(c(1, 0), 3);
  static_assert(std::is_same_v<decltype(c(0, 0)), const int&>);
}

TEST(Roles, InIsReadOnlyOutAndInOutAreWritable) {
  static_assert(std::is_same_v<decltype(std::declval<ctrl::In<float, 2>>()(0, 0)), const float&>);
  static_assert(std::is_same_v<decltype(std::declval<ctrl::Out<float, 2>>()(0, 0)), float&>);
  static_assert(std::is_same_v<decltype(std::declval<ctrl::InOut<float, 2>>()(0, 0)), float&>);
  static_assert(ctrl::is_tile_param_v<ctrl::In<int, 3>> && ctrl::is_tile_param_v<const ctrl::Out<int, 1>&>);
  static_assert(!ctrl::is_tile_param_v<int> && !ctrl::is_tile_param_v<ctrl::View<int, 1>>);
  static_assert(ctrl::role_of_v<ctrl::InOut<int, 1>> == ctrl::Role::inout);
  static_assert(ctrl::role_of_v<double> == ctrl::Role::value);
  EXPECT_TRUE(ctrl::reads(ctrl::Role::in) && !ctrl::writes(ctrl::Role::in));
  EXPECT_TRUE(!ctrl::reads(ctrl::Role::out) && ctrl::writes(ctrl::Role::out));
  EXPECT_TRUE(ctrl::reads(ctrl::Role::inout) && ctrl::writes(ctrl::Role::inout));
  EXPECT_TRUE(!ctrl::reads(ctrl::Role::value) && !ctrl::writes(ctrl::Role::value));
  EXPECT_STREQ(ctrl::role_name(ctrl::Role::in), "In");
  EXPECT_STREQ(ctrl::role_name(ctrl::Role::out), "Out");
  EXPECT_STREQ(ctrl::role_name(ctrl::Role::inout), "InOut");
  EXPECT_STREQ(ctrl::role_name(ctrl::Role::value), "value");
}

}  // namespace
