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

CTRL_INSTANTIATE_DEVICE_TESTS(TakeTest);

}  // namespace
