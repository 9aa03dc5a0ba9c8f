// Controller::take: a tile on one controller handed to another. Between two controllers of the
// kind under test (on cuda:0, two controllers of one GPU: the GPU-to-GPU path, as a copy within
// the device) the data that only the giver's memory holds goes straight across, counted as a peer
// copy by the taker; between the kind and CPU cores it goes through the host's memory. Values are
// checked to the byte; counts are exact.
#include "test_devices.hpp"

#include <cstdint>

namespace {

using ctrl::index_t;
using ctrl::TransferStats;
using u32 = std::uint32_t;

constexpr index_t take_rows = 300, take_cols = 257;  // odd sizes: no copy may be rounded

CTRL_HOST_DEVICE inline u32 take_pattern(index_t i, index_t j, u32 seed) {
  return seed * 2654435761U + static_cast<u32>(i) * 40503U + static_cast<u32>(j) * 977U;
}

struct TakeFill {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<u32, 2> out, u32 seed) const {
    out(t.x, t.y) = take_pattern(t.x, t.y, seed);
  }
};
struct TakeAdd {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<u32, 2> a, u32 k) const { a(t.x, t.y) += k; }
};
struct TakeCopy {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<u32, 2> to, ctrl::In<u32, 2> from) const {
    to(t.x, t.y) = from(t.x, t.y);
  }
};

const ctrl::Threads take_space(take_rows, take_cols);

// The first element of t that is not take_pattern(seed) + add, as a failure naming it.
::testing::AssertionResult holds_pattern(const ctrl::Tile<u32, 2>& t, u32 seed, u32 add) {
  for (index_t i = 0; i < take_rows; ++i)
    for (index_t j = 0; j < take_cols; ++j)
      if (t(i, j) != take_pattern(i, j, seed) + add)
        return ::testing::AssertionFailure() << "element (" << i << ", " << j << ") is " << t(i, j);
  return ::testing::AssertionSuccess();
}

class TakeTest : public ctrl::test::DeviceTest {};

TEST_P(TakeTest, WrittenByAKernelHereReadByAKernelThereDirectly) {
  auto other = another();
  ctrl::Tile<u32, 2> t({take_rows, take_cols}, "t"), r({take_rows, take_cols}, "r");
  ctl().attach(t);
  ctl().launch<TakeFill>(take_space, t, 5U);  // still running, perhaps, when take is called
  other->take(t);
  other->attach(r);
  other->launch<TakeCopy>(take_space, r, t);
  other->launch<TakeAdd>(take_space, t, 1U);
  other->detach(t, r);
  EXPECT_TRUE(holds_pattern(r, 5U, 0U));
  EXPECT_TRUE(holds_pattern(t, 5U, 1U));
  // Nothing went through the host: no copy out of the giver, none in to the taker.
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{}));
  EXPECT_TRUE(ctrl::test::moved(*other, TransferStats{0, 0, t.bytes() + r.bytes(), 2, t.bytes(), 1}));
}

TEST_P(TakeTest, InternalTileMovesDirectlyAndBack) {
  auto other = another();
  ctrl::Tile<u32, 2> scratch({take_rows, take_cols}, ctrl::shape_only, "scratch"), r({take_rows, take_cols}, "r");
  ctl().create_internal(scratch);
  ctl().launch<TakeFill>(take_space, scratch, 9U);
  other->take(scratch);
  other->launch<TakeAdd>(take_space, scratch, 2U);
  ctl().take(scratch);  // and back
  ctl().attach(r);
  ctl().launch<TakeCopy>(take_space, r, scratch);
  ctl().detach(r);
  ctl().destroy_internal(scratch);
  EXPECT_TRUE(holds_pattern(r, 9U, 2U));
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{0, 0, r.bytes(), 1, scratch.bytes(), 1}));
  EXPECT_TRUE(ctrl::test::moved(*other, TransferStats{0, 0, 0, 0, scratch.bytes(), 1}));
}

// Data the host holds moves nothing at the take: the taker copies it in at its first read, as
// after an attach.
TEST_P(TakeTest, HostValidTileIsCopiedInAtTheFirstRead) {
  auto other = another();
  ctrl::Tile<u32, 2> t({take_rows, take_cols}, "t"), r({take_rows, take_cols}, "r");
  for (index_t i = 0; i < take_rows; ++i)
    for (index_t j = 0; j < take_cols; ++j) t(i, j) = take_pattern(i, j, 3U);
  ctl().attach(t, r);
  ctl().launch<TakeCopy>(take_space, r, t);  // reads t: the host's copy stays valid
  other->take(t);
  other->launch<TakeAdd>(take_space, t, 4U);
  other->detach(t);
  ctl().detach(r);
  EXPECT_TRUE(holds_pattern(r, 3U, 0U));
  EXPECT_TRUE(holds_pattern(t, 3U, 4U));
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{t.bytes(), 1, r.bytes(), 1}));
  EXPECT_TRUE(ctrl::test::moved(*other, TransferStats{t.bytes(), 1, t.bytes(), 1}));
}

// Between the kind under test and CPU cores (shared memory): out through the host memory and, on
// the way back, in at the first read.
TEST_P(TakeTest, BetweenKindsThroughTheHost) {
  ctrl::Controller cores(ctrl::cpu_count(1));
  ctrl::Tile<u32, 2> t({take_rows, take_cols}, "t");
  ctl().attach(t);
  ctl().launch<TakeFill>(take_space, t, 7U);
  cores.take(t);
  cores.launch<TakeAdd>(take_space, t, 1U);
  ctl().take(t);
  ctl().launch<TakeAdd>(take_space, t, 1U);
  ctl().detach(t);
  EXPECT_TRUE(holds_pattern(t, 7U, 2U));
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{t.bytes(), 1, 2 * t.bytes(), 2}));
  EXPECT_EQ(cores.transfers(), TransferStats{});
}

TEST_P(TakeTest, InternalTileBetweenKinds) {
  ctrl::Controller cores(ctrl::cpu_count(1));
  ctrl::Tile<u32, 2> scratch({take_rows, take_cols}, ctrl::shape_only, "scratch"), r({take_rows, take_cols}, "r");
  ctl().create_internal(scratch);
  ctl().launch<TakeFill>(take_space, scratch, 11U);
  cores.take(scratch);
  cores.launch<TakeAdd>(take_space, scratch, 3U);
  ctl().take(scratch);
  ctl().attach(r);
  ctl().launch<TakeCopy>(take_space, r, scratch);
  ctl().detach(r);
  ctl().destroy_internal(scratch);
  EXPECT_TRUE(holds_pattern(r, 11U, 3U));
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{scratch.bytes(), 1, scratch.bytes() + r.bytes(), 2}));
  EXPECT_EQ(cores.transfers(), TransferStats{});
}

TEST_P(TakeTest, Misuse) {
  auto other = another();
  ctrl::Tile<u32, 2> t({4, 4}, "t"), loose({4, 4}, "loose");
  ctl().attach(t);
  EXPECT_TRUE(ctrl::test::throws_naming<ctrl::UsageError>([&] { other->take(loose); },
                                                          {"take of tile 'loose'", "on no controller", "attach"}));
  EXPECT_TRUE(ctrl::test::throws_naming<ctrl::UsageError>([&] { other->take(t, t); }, {"'t'", "listed twice"}));
  EXPECT_TRUE(ctrl::test::throws_naming<ctrl::UsageError>([&] { other->attach(t); }, {"already", "take"}));
  EXPECT_TRUE(ctrl::test::throws_naming<ctrl::UsageError>([&] { (void)ctl().record([&] { other->take(t); }); },
                                                          {"take of tile 't'", "record"}));
  ctl().take(t);  // already here: nothing happens
  ctl().detach(t);
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{}));
}

// Controller::copy_rows: rows of a tile on a neighbour's controller into rows of one here (the
// halo exchange of docs/loop.md). `rows_from(i)`: the row of `a` that row i of `b` should hold.
::testing::AssertionResult holds_rows(const ctrl::Tile<u32, 2>& t, u32 seed, u32 add, index_t begin, index_t end,
                                      u32 from_seed, index_t shift) {
  for (index_t i = 0; i < take_rows; ++i) {
    const bool copied = i >= begin && i < end;
    for (index_t j = 0; j < take_cols; ++j) {
      const u32 want = (copied ? take_pattern(i + shift, j, from_seed) : take_pattern(i, j, seed)) + add;
      if (t(i, j) != want) return ::testing::AssertionFailure() << "element (" << i << ", " << j << ") is " << t(i, j);
    }
  }
  return ::testing::AssertionSuccess();
}

constexpr std::uint64_t take_row_bytes = take_cols * sizeof(u32);

// Between two controllers of the kind: straight from the neighbour's memory into this one's
// (a peer copy on separate memories, a memcpy on shared ones), while both tiles stay attached.
TEST_P(TakeTest, CopyRowsFromANeighbourDirectly) {
  auto other = another();
  ctrl::Tile<u32, 2> a({take_rows, take_cols}, "a"), b({take_rows, take_cols}, "b");
  ctl().attach(a);
  other->attach(b);
  ctl().launch<TakeFill>(take_space, a, 5U);  // may still run when copy_rows is called
  other->launch<TakeFill>(take_space, b, 6U);
  other->copy_rows(b, 7, 10, a, 100);
  other->launch<TakeAdd>(take_space, b, 1U);  // after the copy, and on the copied rows too
  ctl().copy_rows(a, 0, 1, b, 8);             // b's copied row, back into a's first
  ctl().detach(a);
  other->detach(b);
  EXPECT_TRUE(holds_rows(b, 6U, 1U, 7, 10, 5U, 93));
  EXPECT_EQ(a(0, 3), take_pattern(101, 3, 5U) + 1U);
  EXPECT_EQ(a(1, 3), take_pattern(1, 3, 5U));
  EXPECT_TRUE(ctrl::test::moved(*other, TransferStats{0, 0, b.bytes(), 1, 3 * take_row_bytes, 1}));
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{0, 0, a.bytes(), 1, take_row_bytes, 1}));
}

// Between the kind and CPU cores: the kind's memory out into the cores' tile (counted by the
// kind's controller as a copy out), the cores' rows in (a copy in); a tile whose image is not in
// use yet gets the rows in its host memory, copied in with it at its first read.
TEST_P(TakeTest, CopyRowsBetweenKindsGoesThroughTheHost) {
  ctrl::Controller cores(ctrl::cpu_count(1));
  ctrl::Tile<u32, 2> a({take_rows, take_cols}, "a"), c({take_rows, take_cols}, "c"), d({take_rows, take_cols}, "d");
  for (index_t i = 0; i < take_rows; ++i)
    for (index_t j = 0; j < take_cols; ++j) d(i, j) = take_pattern(i, j, 8U);
  ctl().attach(a, d);
  cores.attach(c);
  ctl().launch<TakeFill>(take_space, a, 5U);
  cores.launch<TakeFill>(take_space, c, 6U);
  cores.copy_rows(c, 10, 20, a, 0);  // out of the kind's memory
  ctl().copy_rows(a, 0, 5, c, 50);   // into it
  ctl().copy_rows(d, 1, 3, c, 12);   // into d's host memory: d's image is not in use yet
  ctl().launch<TakeAdd>(take_space, d, 2U);
  ctl().detach(a, d);
  cores.detach(c);
  EXPECT_TRUE(holds_rows(c, 6U, 0U, 10, 20, 5U, -10));
  EXPECT_TRUE(holds_rows(a, 5U, 0U, 0, 5, 6U, 50));
  EXPECT_EQ(d(1, 4), take_pattern(2, 4, 5U) + 2U);  // c's row 12 is a's row 2
  EXPECT_EQ(d(3, 4), take_pattern(3, 4, 8U) + 2U);
  EXPECT_TRUE(ctrl::test::moved(
      ctl(), TransferStats{5 * take_row_bytes + d.bytes(), 2, 10 * take_row_bytes + a.bytes() + d.bytes(), 3}));
  EXPECT_EQ(cores.transfers(), TransferStats{});
}

TEST_P(TakeTest, CopyRowsMisuse) {
  auto other = another();
  ctrl::Tile<u32, 2> a({8, 4}, "a"), b({8, 4}, "b"), loose({8, 4}, "loose"), wide({8, 5}, "wide");
  ctl().attach(a, wide);
  other->attach(b);
  using ctrl::UsageError;
  using ctrl::test::throws_naming;
  EXPECT_TRUE(throws_naming<UsageError>([&] { other->copy_rows(b, 0, 1, loose, 0); }, {"'loose'", "on no controller"}));
  EXPECT_TRUE(throws_naming<UsageError>([&] { ctl().copy_rows(a, 0, 1, wide, 0); }, {"'wide'", "this controller"}));
  EXPECT_TRUE(throws_naming<UsageError>([&] { other->copy_rows(b, 0, 1, wide, 0); }, {"'wide'", "rows differ"}));
  EXPECT_TRUE(throws_naming<UsageError>([&] { other->copy_rows(b, 6, 9, a, 0); }, {"rows [6, 9)", "not within"}));
  EXPECT_TRUE(throws_naming<UsageError>([&] { other->copy_rows(b, 0, 2, a, 7); }, {"from row 7", "not within"}));
  EXPECT_TRUE(throws_naming<UsageError>([&] { ctl().copy_rows(b, 0, 1, a, 0); }, {"'b'", "not attached"}));
  EXPECT_TRUE(throws_naming<UsageError>([&] { (void)other->record([&] { other->copy_rows(b, 0, 1, a, 0); }); },
                                        {"copy_rows into tile 'b'", "record"}));
  other->copy_rows(b, 3, 3, a, 8);  // no rows: nothing moves
  ctl().detach(a, wide);
  other->detach(b);
  EXPECT_TRUE(ctrl::test::moved(*other, TransferStats{}));
}

CTRL_INSTANTIATE_DEVICE_TESTS(TakeTest);

}  // namespace
