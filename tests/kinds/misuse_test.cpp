// Every misuse of tiles and controllers is a ctrl::UsageError whose message names the tile and the
// controller (and the kernel, for launches), and leaves the state as it was.
#include "test_devices.hpp"

#include <cstdint>

namespace {

using ctrl::test::throws_naming;
using u32 = std::uint32_t;

struct Fill {
  static constexpr const char* name = "fill";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<u32, 2> a, u32 v) const { a(t.x, t.y) = v; }
};
struct Sum {
  static constexpr const char* name = "sum";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<u32, 2> out, ctrl::In<u32, 2> a,
                                   ctrl::In<u32, 2> b) const {
    out(t.x, t.y) = a(t.x, t.y) + b(t.x, t.y);
  }
};

class MisuseTest : public ctrl::test::DeviceTest {};

TEST_P(MisuseTest, LaunchWithATileNeitherAttachedNorInternal) {
  ctrl::Tile<u32, 2> a({4, 4}, "loose");
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { ctl().launch<Fill>(ctrl::Threads(4, 4), a, 1U); },
                                              {"'loose'", ctl().name(), "'fill'", "neither attached nor internal"}));
}

TEST_P(MisuseTest, LaunchWithATileOfAnotherController) {
  auto other = another();
  ctrl::Tile<u32, 2> a({4, 4}, "elsewhere"), b({4, 4}, "b"), out({4, 4}, "out");
  a.fill(1);
  b.fill(2);
  other->attach(a);
  ctl().attach(b, out);
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { ctl().launch<Sum>(ctrl::Threads(4, 4), out, a, b); },
                                              {"'elsewhere'", ctl().name(), "'sum'", "attached to controller"}));
  // Nothing was queued or recorded: the tiles still work where they belong.
  ctl().launch<Sum>(ctrl::Threads(4, 4), out, b, b);
  ctl().detach(b, out);
  other->detach(a);
  EXPECT_EQ(out(3, 3), 4U);
  EXPECT_EQ(a(0, 0), 1U);
  EXPECT_TRUE(ctrl::test::moved(ctl(), ctrl::TransferStats{b.bytes(), 1, out.bytes(), 1}));
}

TEST_P(MisuseTest, LaunchWithAnInternalTileOfAnotherController) {
  auto other = another();
  ctrl::Tile<u32, 2> s({4, 4}, ctrl::shape_only, "scratch");
  other->create_internal(s);
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { ctl().launch<Fill>(ctrl::Threads(4, 4), s, 1U); },
                                              {"'scratch'", ctl().name(), "internal to controller " + other->name()}));
  other->destroy_internal(s);
}

TEST_P(MisuseTest, DetachingOneTileListedTwice) {
  ctrl::Tile<u32, 2> a({4, 4}, "a");
  ctl().attach(a);
  ctl().launch<Fill>(ctrl::Threads(4, 4), a, 7U);
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { ctl().detach(a, a); }, {"'a'", ctl().name(), "listed twice"}));
  ctl().detach(a);  // still attached, and whole: the refused call changed nothing
  EXPECT_EQ(a(3, 3), 7U);
}

TEST_P(MisuseTest, AttachingATileToTwoControllers) {
  auto other = another();
  ctrl::Tile<u32, 2> a({4, 4}, "a");
  ctl().attach(a);
  EXPECT_TRUE(throws_naming<ctrl::UsageError>(
      [&] { other->attach(a); }, {"'a'", other->name(), "already attached to controller " + ctl().name()}));
  ctl().detach(a);
  EXPECT_NO_THROW(other->attach(a));
  other->detach(a);
}

TEST_P(MisuseTest, AttachingATileTwiceToOneController) {
  ctrl::Tile<u32, 2> a({4, 4}, "twice");
  ctl().attach(a);
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { ctl().attach(a); }, {"'twice'", ctl().name(), "already attached"}));
  ctl().detach(a);
}

TEST_P(MisuseTest, AttachingATileDeclaredByShapeOnly) {
  ctrl::Tile<u32, 2> s({4, 4}, ctrl::shape_only, "shape");
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { ctl().attach(s); }, {"'shape'", ctl().name(), "create_internal"}));
}

TEST_P(MisuseTest, DetachingFromTheWrongController) {
  auto other = another();
  ctrl::Tile<u32, 2> a({4, 4}, "a");
  ctl().attach(a);
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { other->detach(a); }, {"'a'", "from controller " + other->name(),
                                                                          "attached to controller " + ctl().name()}));
  EXPECT_NO_THROW(ctl().detach(a));  // still attached where it was
}

TEST_P(MisuseTest, DetachingATileThatIsNotAttached) {
  ctrl::Tile<u32, 2> a({4, 4}, "never");
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { ctl().detach(a); },
                                              {"'never'", ctl().name(), "not attached to any controller"}));
}

TEST_P(MisuseTest, DetachingSeveralTilesWithOneWrongDetachesNone) {
  ctrl::Tile<u32, 2> a({4, 4}, "a"), stray({4, 4}, "stray");
  ctl().attach(a);
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { ctl().detach(a, stray); }, {"'stray'", ctl().name()}));
  EXPECT_NO_THROW(ctl().detach(a));  // a was left attached
}

TEST_P(MisuseTest, DetachingAnInternalTile) {
  ctrl::Tile<u32, 2> s({4, 4}, ctrl::shape_only, "scratch");
  ctl().create_internal(s);
  EXPECT_TRUE(
      throws_naming<ctrl::UsageError>([&] { ctl().detach(s); }, {"'scratch'", ctl().name(), "destroy_internal"}));
  ctl().destroy_internal(s);
}

TEST_P(MisuseTest, DestroyingATileThatIsNotInternal) {
  ctrl::Tile<u32, 2> a({4, 4}, "a");
  ctl().attach(a);
  EXPECT_TRUE(
      throws_naming<ctrl::UsageError>([&] { ctl().destroy_internal(a); }, {"'a'", ctl().name(), "not internal"}));
  ctl().detach(a);
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { ctl().destroy_internal(a); }, {"'a'", ctl().name()}));
}

TEST_P(MisuseTest, CreatingAnInternalTileThatIsAlreadyOwned) {
  auto other = another();
  ctrl::Tile<u32, 2> a({4, 4}, "a"), s({4, 4}, ctrl::shape_only, "scratch");
  ctl().attach(a);
  other->create_internal(s);
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { ctl().create_internal(a); }, {"'a'", ctl().name(), "attached to"}));
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { ctl().create_internal(s); },
                                              {"'scratch'", ctl().name(), "internal to controller " + other->name()}));
  ctl().detach(a);
  other->destroy_internal(s);
}

TEST_P(MisuseTest, IndexSpaceLargerThanATile) {
  ctrl::Tile<u32, 2> a({4, 6}, "small"), b({8, 8}, "b"), out({8, 8}, "out"), fit({4, 6}, "fit");
  a.fill(0);
  b.fill(0);
  ctl().attach(a, b, out, fit);
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { ctl().launch<Sum>(ctrl::Threads(5, 6), out, a, b); },
                                              {"'small'", ctl().name(), "'sum'", "(5, 6)", "dimension 0"}));
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { ctl().launch<Sum>(ctrl::Threads(4, 7), out, a, b); },
                                              {"'small'", ctl().name(), "'sum'", "(4, 7)", "dimension 1"}));
  ctl().launch<Sum>(ctrl::Threads(4, 6), fit, a, b);  // exactly the tile: fine (and every Out element written)
  ctl().detach(a, b, out, fit);
}

TEST_P(MisuseTest, NegativeIndexSpace) {
  ctrl::Tile<u32, 2> a({4, 4}, "a");
  ctl().attach(a);
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { ctl().launch<Fill>(ctrl::Threads(2, -1), a, 1U); },
                                              {ctl().name(), "'fill'", "negative"}));
  ctl().detach(a);
}

TEST_P(MisuseTest, OverlappingSubTilesOnTwoControllers) {
  auto other = another();
  ctrl::Tile<u32, 2> a({10, 4}, "A");
  ctrl::Tile<u32, 2> top = a.rows(0, 6), middle = a.rows(4, 8);
  ctl().attach(top);
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { other->attach(middle); },
                                              {"'A[4:8]'", other->name(), "overlaps tile 'A[0:6]'", ctl().name()}));
  // The whole tile overlaps its attached part too.
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { other->attach(a); }, {"'A'", "overlaps tile 'A[0:6]'"}));
  ctl().detach(top);
  EXPECT_NO_THROW(other->attach(middle));  // free once the part is home
  other->detach(middle);
}

TEST_P(MisuseTest, OverlappingSubTilesOnOneController) {
  ctrl::Tile<u32, 2> a({10, 4}, "A");
  ctrl::Tile<u32, 2> top = a.rows(0, 6), middle = a.rows(4, 8);
  ctl().attach(middle);
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { ctl().attach(top); },
                                              {"'A[0:6]'", ctl().name(), "overlaps tile 'A[4:8]'"}));
  ctl().detach(middle);
}

CTRL_INSTANTIATE_DEVICE_TESTS(MisuseTest);

}  // namespace
