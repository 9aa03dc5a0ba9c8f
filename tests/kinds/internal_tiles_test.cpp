// Internal tiles (the Controllers paper §3.2.1, §4.2): they live in one controller's memory only, keep
// their data from launch to launch, never cross to the host, and are freed by destroy_internal.
#include "test_devices.hpp"

#include <cstdint>

namespace {

using ctrl::index_t;
using ctrl::TransferStats;
using u32 = std::uint32_t;

struct Pattern {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<u32, 2> out, u32 seed) const {
    out(t.x, t.y) = seed + static_cast<u32>(t.x * 31 + t.y);
  }
};
struct AddConst {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<u32, 2> a, u32 k) const { a(t.x, t.y) += k; }
};
struct Copy {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<u32, 2> to, ctrl::In<u32, 2> from) const {
    to(t.x, t.y) = from(t.x, t.y);
  }
};

class InternalTilesTest : public ctrl::test::DeviceTest {};

TEST_P(InternalTilesTest, KeepsItsDataBetweenLaunchesAndNeverCrosses) {
  ctrl::Tile<u32, 2> scratch({6, 9}, ctrl::shape_only, "scratch"), result({6, 9}, "result");
  EXPECT_FALSE(scratch.allocated());
  ctl().create_internal(scratch);
  ctl().attach(result);
  ctl().launch<Pattern>(ctrl::Threads(6, 9), scratch, 1000U);
  ctl().launch<AddConst>(ctrl::Threads(6, 9), scratch, 7U);
  ctl().wait();
  ctl().launch<AddConst>(ctrl::Threads(6, 9), scratch, 7U);  // after a wait, still there
  ctl().launch<Copy>(ctrl::Threads(6, 9), result, scratch);
  ctl().detach(result);
  ctl().destroy_internal(scratch);
  for (index_t i = 0; i < 6; ++i)
    for (index_t j = 0; j < 9; ++j) ASSERT_EQ(result(i, j), 1014U + static_cast<u32>(i * 31 + j));
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{0, 0, result.bytes(), 1}));
}

TEST_P(InternalTilesTest, HostMemoryOfAHostTileMadeInternalIsNeverTouched) {
  ctrl::Tile<u32, 2> t({4, 4}, "t"), result({4, 4}, "result");
  t.fill(77);
  ctl().create_internal(t);  // the device image is separate, even on shared-memory kinds
  ctl().attach(result);
  ctl().launch<Pattern>(ctrl::Threads(4, 4), t, 1U);
  ctl().launch<Copy>(ctrl::Threads(4, 4), result, t);
  ctl().detach(result);
  ctl().destroy_internal(t);
  for (u32 v : t.elements()) ASSERT_EQ(v, 77U);
  EXPECT_EQ(result(3, 3), 1U + 3 * 31 + 3);
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{0, 0, result.bytes(), 1}));
}

// destroy_internal returns at once; the queued launches that use the tile still see it.
TEST_P(InternalTilesTest, DestroyedRightAfterLaunchesThatStillUseIt) {
  ctrl::Tile<u32, 2> scratch({32, 32}, ctrl::shape_only, "scratch"), result({32, 32}, "result");
  ctl().attach(result);
  for (u32 round = 0; round < 20; ++round) {
    ctl().create_internal(scratch);
    ctl().launch<Pattern>(ctrl::Threads(32, 32), scratch, round);
    ctl().launch<Copy>(ctrl::Threads(32, 32), result, scratch);
    ctl().destroy_internal(scratch);
  }
  ctl().detach(result);
  EXPECT_EQ(result(0, 0), 19U);
  EXPECT_EQ(result(31, 31), 19U + 31 * 31 + 31);
}

TEST_P(InternalTilesTest, CanBeCreatedAgainOnAnotherControllerAfterDestroy) {
  ctrl::Tile<u32, 2> scratch({3, 3}, ctrl::shape_only, "scratch"), result({3, 3}, "result");
  ctl().create_internal(scratch);
  ctl().launch<Pattern>(ctrl::Threads(3, 3), scratch, 5U);
  ctl().destroy_internal(scratch);
  auto other = another();
  other->create_internal(scratch);
  other->attach(result);
  other->launch<Pattern>(ctrl::Threads(3, 3), scratch, 9U);
  other->launch<Copy>(ctrl::Threads(3, 3), result, scratch);
  other->detach(result);
  other->destroy_internal(scratch);
  EXPECT_EQ(result(2, 2), 9U + 2 * 31 + 2);
}

TEST_P(InternalTilesTest, ControllerDestructionFreesItsInternalTiles) {
  ctrl::Tile<u32, 2> scratch({5, 5}, ctrl::shape_only, "scratch");
  ctl().create_internal(scratch);
  ctl().launch<Pattern>(ctrl::Threads(5, 5), scratch, 5U);
  ctl_.reset();
  auto other = another();
  EXPECT_NO_THROW(other->create_internal(scratch));
}

CTRL_INSTANTIATE_DEVICE_TESTS(InternalTilesTest);

}  // namespace
