// One array split across two controllers by disjoint row blocks (how a workload distribution runs):
// each part computes on its own controller, both at the same time, and the whole is coherent after.
#include "host_sync.hpp"
#include "test_devices.hpp"

#include <cstdint>

namespace {

using ctrl::index_t;
using ctrl::TransferStats;
using u32 = std::uint32_t;

struct SplitAffine {  // a = a * 2 + k + row, with rows numbered from the sub-tile's first
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<u32, 2> a, u32 k) const {
    a(t.x, t.y) = a(t.x, t.y) * 2U + k + static_cast<u32>(t.x);
  }
};
struct SplitCopy {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<u32, 2> to, ctrl::In<u32, 2> from) const {
    to(t.x, t.y) = from(t.x, t.y);
  }
};

// Writes its part and meets the other controller's kernel (worker 0 of each launch).
struct FillAndMeet {
  static constexpr const char* name = "fill_and_meet";
  void cpu(const ctrl::CpuBlock& b, ctrl::Out<u32, 2> part, u32 v, ctrl::test::Rendezvous* r) const {
    for (index_t x : b.x)
      for (index_t y : b.y) part(x, y) = v;
    if (b.worker == 0) ctrl::test::meet(r);
  }
};

class SplitTest : public ctrl::test::DeviceTest {};

TEST_P(SplitTest, DisjointSubTilesOnTwoControllersComputeTheirParts) {
  auto other = another();
  const index_t rows = 10, cols = 8, cut = 4;
  ctrl::Tile<u32, 2> a({rows, cols}, "A");
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j) a(i, j) = static_cast<u32>(i * cols + j);
  ctrl::Tile<u32, 2> top = a.rows(0, cut), bottom = a.rows(cut, rows);
  ctl().attach(top);
  other->attach(bottom);
  for (u32 k = 0; k < 10; ++k) {
    ctl().launch<SplitAffine>(ctrl::Threads(cut, cols), top, k);
    other->launch<SplitAffine>(ctrl::Threads(rows - cut, cols), bottom, 100 + k);
  }
  ctl().detach(top);
  other->detach(bottom);
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j) {
      u32 v = static_cast<u32>(i * cols + j);
      const u32 local_row = static_cast<u32>(i < cut ? i : i - cut);
      for (u32 k = 0; k < 10; ++k) v = v * 2U + (i < cut ? k : 100 + k) + local_row;
      ASSERT_EQ(a(i, j), v) << i << "," << j;
    }
  // Each controller moved its own part only.
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{top.bytes(), 1, top.bytes(), 1}));
  EXPECT_TRUE(ctrl::test::moved(*other, TransferStats{bottom.bytes(), 1, bottom.bytes(), 1}));
}

// Proof of concurrency without timing: each controller's kernel waits until the other's has
// started; run one after the other they would never meet (the bounded wait then fails the kernel).
TEST_P(SplitTest, DisjointSubTilesOnTwoControllersRunConcurrently) {
  if (!host_code()) GTEST_SKIP() << "the rendezvous kernel runs as host code (CPU kinds only)";
  auto other = another();
  ctrl::Tile<u32, 2> a({12, 3}, "A");
  a.fill(0);
  ctrl::Tile<u32, 2> top = a.rows(0, 5), bottom = a.rows(5, 12);
  ctrl::test::Rendezvous meeting;
  ctl().attach(top);
  other->attach(bottom);
  ctl().launch<FillAndMeet>(ctrl::Threads(5, 3), top, 1U, &meeting);
  other->launch<FillAndMeet>(ctrl::Threads(7, 3), bottom, 2U, &meeting);
  EXPECT_NO_THROW(ctl().detach(top));
  EXPECT_NO_THROW(other->detach(bottom));
  for (index_t i = 0; i < 12; ++i)
    for (index_t j = 0; j < 3; ++j) ASSERT_EQ(a(i, j), i < 5 ? 1U : 2U);
}

TEST_P(SplitTest, WholeTileSeesBothPartsAfterTheyComeHome) {
  auto other = another();
  ctrl::Tile<u32, 2> a({6, 5}, "A"), out({6, 5}, "out");
  a.fill(1);
  ctrl::Tile<u32, 2> top = a.rows(0, 3), bottom = a.rows(3, 6);
  ctl().attach(top);
  other->attach(bottom);
  ctl().launch<SplitAffine>(ctrl::Threads(3, 5), top, 10U);
  other->launch<SplitAffine>(ctrl::Threads(3, 5), bottom, 20U);
  ctl().detach(top);
  other->detach(bottom);
  other->attach(a, out);
  other->launch<SplitCopy>(ctrl::Threads(6, 5), out, a);
  other->detach(a, out);
  for (index_t i = 0; i < 6; ++i)
    for (index_t j = 0; j < 5; ++j) ASSERT_EQ(out(i, j), 2U + (i < 3 ? 10U : 20U) + static_cast<u32>(i % 3));
}

TEST_P(SplitTest, SubTileMovesFromOneControllerToTheOther) {
  auto other = another();
  ctrl::Tile<u32, 2> a({8, 2}, "A");
  a.fill(0);
  ctrl::Tile<u32, 2> part = a.rows(2, 6);
  ctl().attach(part);
  ctl().launch<SplitAffine>(ctrl::Threads(4, 2), part, 1U);  // 1 + row
  ctl().detach(part);
  other->attach(part);
  other->launch<SplitAffine>(ctrl::Threads(4, 2), part, 0U);  // 2 + 3 * row
  other->detach(part);
  for (index_t i = 0; i < 8; ++i)
    for (index_t j = 0; j < 2; ++j)
      ASSERT_EQ(a(i, j), (i >= 2 && i < 6) ? 2U + 3U * static_cast<u32>(i - 2) : 0U) << i << "," << j;
}

CTRL_INSTANTIATE_DEVICE_TESTS(SplitTest);

}  // namespace
