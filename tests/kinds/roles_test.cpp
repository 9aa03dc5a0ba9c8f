// Parameter roles decide the copies (the Controllers paper §3.2.1): on a kind with its own memory a tile
// is copied in on its first read while the device copy is invalid, and copied back on detach only
// if a kernel wrote it; internal tiles never cross; shared-memory kinds never copy at all. Every
// test checks the data and the exact transfer record (ctrl::test::moved: zero on shared memory).
#include "test_devices.hpp"

#include <cstdint>
#include <vector>

namespace {

using ctrl::index_t;
using ctrl::TransferStats;
using u32 = std::uint32_t;

struct Scale {  // out = in * k
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<u32, 1> out, ctrl::In<u32, 1> in, u32 k) const {
    out(t.x) = in(t.x) * k;
  }
};
struct AddInto {  // acc += in
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<u32, 1> acc, ctrl::In<u32, 1> in) const {
    acc(t.x) += in(t.x);
  }
};
struct Iota {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<u32, 1> out) const { out(t.x) = static_cast<u32>(t.x); }
};

// One Jacobi sweep on a 2-D grid; the boundary is copied, so an Out tile is fully defined.
struct JacobiSweep {
  static constexpr const char* name = "jacobi_sweep";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<double, 2> next, ctrl::In<double, 2> cur) const {
    const index_t i = t.x, j = t.y;
    if (i == 0 || j == 0 || i == cur.extent(0) - 1 || j == cur.extent(1) - 1) {
      next(i, j) = cur(i, j);
    } else {
      next(i, j) = 0.25 * (cur(i - 1, j) + cur(i + 1, j) + cur(i, j - 1) + cur(i, j + 1));
    }
  }
};

class RolesTest : public ctrl::test::DeviceTest {};

constexpr std::uint64_t words(index_t n) { return static_cast<std::uint64_t>(n) * sizeof(u32); }

TEST_P(RolesTest, InTileIsCopiedInOnceAndNeverBack) {
  const index_t n = 300;
  ctrl::Tile<u32, 1> in({n}, "in"), out({n}, "out");
  for (index_t i = 0; i < n; ++i) in(i) = static_cast<u32>(i + 1);
  ctl().attach(in, out);
  for (u32 k = 1; k <= 3; ++k) ctl().launch<Scale>(ctrl::Threads(n), out, in, k);
  ctl().detach(in, out);
  for (index_t i = 0; i < n; ++i) ASSERT_EQ(out(i), static_cast<u32>(3 * (i + 1))) << i;
  for (index_t i = 0; i < n; ++i) ASSERT_EQ(in(i), static_cast<u32>(i + 1)) << i;
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{words(n), 1, words(n), 1}));
}

TEST_P(RolesTest, OutTileIsNeverCopiedIn) {
  const index_t n = 128;
  ctrl::Tile<u32, 1> out({n}, "out");
  out.fill(0xdeadbeef);
  ctl().attach(out);
  ctl().launch<Iota>(ctrl::Threads(n), out);
  ctl().detach(out);
  for (index_t i = 0; i < n; ++i) ASSERT_EQ(out(i), static_cast<u32>(i));
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{0, 0, words(n), 1}));
}

TEST_P(RolesTest, InOutTileIsCopiedInAndBack) {
  const index_t n = 100;
  ctrl::Tile<u32, 1> acc({n}, "acc"), in({n}, "in");
  acc.fill(5);
  for (index_t i = 0; i < n; ++i) in(i) = static_cast<u32>(i);
  ctl().attach(acc, in);
  ctl().launch<AddInto>(ctrl::Threads(n), acc, in);
  ctl().launch<AddInto>(ctrl::Threads(n), acc, in);
  ctl().detach(acc, in);
  for (index_t i = 0; i < n; ++i) ASSERT_EQ(acc(i), static_cast<u32>(5 + 2 * i));
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{2 * words(n), 2, words(n), 1}));
}

TEST_P(RolesTest, AttachAndDetachWithoutLaunchesMoveNothing) {
  ctrl::Tile<u32, 1> a({64}, "a");
  a.fill(9);
  ctl().attach(a);
  ctl().detach(a);
  for (u32 v : a.elements()) ASSERT_EQ(v, 9U);
  EXPECT_EQ(ctl().transfers(), TransferStats{});
}

// 100 Jacobi iterations between a host grid and an internal scratch grid: the grid is copied in
// once and out once, however many kernels read and write it; the scratch never crosses.
TEST_P(RolesTest, JacobiHundredIterationsCopyInOnceAndOutOnce) {
  const index_t n = 24;
  ctrl::Tile<double, 2> grid({n, n}, "grid"), scratch({n, n}, ctrl::shape_only, "scratch");
  std::vector<double> ref(static_cast<std::size_t>(n * n)), tmp(ref.size());
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) {
      const double v = (i == 0) ? 100.0 : (j == n - 1 ? 50.0 : 0.0);
      grid(i, j) = v;
      ref[static_cast<std::size_t>(i * n + j)] = v;
    }
  ctl().attach(grid);
  ctl().create_internal(scratch);
  for (int it = 0; it < 100; it += 2) {
    ctl().launch<JacobiSweep>(ctrl::Threads(n, n), scratch, grid);
    ctl().launch<JacobiSweep>(ctrl::Threads(n, n), grid, scratch);
  }
  ctl().destroy_internal(scratch);
  ctl().detach(grid);
  auto sweep = [&](const std::vector<double>& cur, std::vector<double>& next) {
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j) {
        auto at = [&](index_t a, index_t b) { return cur[static_cast<std::size_t>(a * n + b)]; };
        next[static_cast<std::size_t>(i * n + j)] =
            (i == 0 || j == 0 || i == n - 1 || j == n - 1)
                ? at(i, j)
                : 0.25 * (at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1));
      }
  };
  for (int it = 0; it < 100; it += 2) {
    sweep(ref, tmp);
    sweep(tmp, ref);
  }
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) ASSERT_EQ(grid(i, j), ref[static_cast<std::size_t>(i * n + j)]) << i << "," << j;
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{grid.bytes(), 1, grid.bytes(), 1}));
}

TEST_P(RolesTest, ReattachedTileIsCopiedInAgainWithTheHostsChanges) {
  const index_t n = 50;
  ctrl::Tile<u32, 1> in({n}, "in"), out({n}, "out");
  in.fill(1);
  ctl().attach(in, out);
  ctl().launch<Scale>(ctrl::Threads(n), out, in, 10U);
  ctl().detach(in, out);
  for (u32 v : out.elements()) ASSERT_EQ(v, 10U);
  in.fill(2);  // the host owns the tile again and changes it
  ctl().attach(in, out);
  ctl().launch<Scale>(ctrl::Threads(n), out, in, 10U);
  ctl().detach(in, out);
  for (u32 v : out.elements()) ASSERT_EQ(v, 20U);
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{2 * words(n), 2, 2 * words(n), 2}));
}

TEST_P(RolesTest, TileWrittenOnTheDeviceIsReadThereWithoutCopies) {
  const index_t n = 80;
  ctrl::Tile<u32, 1> a({n}, "a"), b({n}, "b");
  ctl().attach(a, b);
  ctl().launch<Iota>(ctrl::Threads(n), a);          // a written on the device
  ctl().launch<Scale>(ctrl::Threads(n), b, a, 3U);  // read where it is valid
  ctl().launch<AddInto>(ctrl::Threads(n), b, a);
  ctl().detach(a, b);
  for (index_t i = 0; i < n; ++i) ASSERT_EQ(b(i), static_cast<u32>(4 * i));
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{0, 0, 2 * words(n), 2}));
}

TEST_P(RolesTest, ResetTransfersCountsAfresh) {
  const index_t n = 40;
  ctrl::Tile<u32, 1> a({n}, "a"), b({n}, "b");
  a.fill(3);
  ctl().attach(a, b);
  ctl().launch<Scale>(ctrl::Threads(n), b, a, 2U);
  ctl().wait();
  ctl().reset_transfers();
  EXPECT_EQ(ctl().transfers(), TransferStats{});
  ctl().detach(a, b);
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{0, 0, words(n), 1}));
}

TEST_P(RolesTest, DestroyingTheControllerBringsAttachedTilesHome) {
  const index_t n = 33;
  ctrl::Tile<u32, 1> a({n}, "a");
  ctl().attach(a);
  ctl().launch<Iota>(ctrl::Threads(n), a);
  ctl_.reset();  // never detached
  for (index_t i = 0; i < n; ++i) ASSERT_EQ(a(i), static_cast<u32>(i));
  auto other = another();
  EXPECT_NO_THROW(other->attach(a));  // and the tile is free again
}

CTRL_INSTANTIATE_DEVICE_TESTS(RolesTest);

}  // namespace
