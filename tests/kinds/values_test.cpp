// Value parameters (the paper's INVAL role): any other parameter type is passed by value, copied
// at launch time, and never counts as a transfer.
#include "host_sync.hpp"
#include "test_devices.hpp"

#include <cstdint>
#include <limits>

namespace {

using ctrl::index_t;
using ctrl::TransferStats;

struct Mixed {
  std::int8_t small;
  double real;
  std::int16_t triple[3];
  std::uint64_t big;
};

struct StoreScalars {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread, ctrl::Out<double, 1> out, std::int64_t a, float b, bool c,
                                   unsigned char d, double e, std::int32_t f) const {
    out(0) = static_cast<double>(a);
    out(1) = static_cast<double>(b);
    out(2) = c ? 1.0 : 0.0;
    out(3) = static_cast<double>(d);
    out(4) = e;
    out(5) = static_cast<double>(f);
  }
};

struct StoreStruct {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread, ctrl::Out<Mixed, 1> out, Mixed m) const { out(0) = m; }
};

struct StoreInt {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<int, 1> out, int v) const { out(t.x) = v; }
};

// Kernel objects may carry state of their own (launch_with).
struct Affine {
  int mul = 1, add = 0;
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<int, 1> a) const { a(t.x) = a(t.x) * mul + add; }
};

class ValuesTest : public ctrl::test::DeviceTest {};

TEST_P(ValuesTest, ScalarsOfEveryWidthArriveExactly) {
  ctrl::Tile<double, 1> out({6}, "out");
  ctl().attach(out);
  ctl().launch<StoreScalars>(ctrl::Threads(1), out, std::int64_t{-(std::int64_t{1} << 52)}, 0.375f, true,
                             static_cast<unsigned char>(250), -1.0e300, std::numeric_limits<std::int32_t>::min());
  ctl().detach(out);
  EXPECT_EQ(out(0), -4503599627370496.0);
  EXPECT_EQ(out(1), 0.375);
  EXPECT_EQ(out(2), 1.0);
  EXPECT_EQ(out(3), 250.0);
  EXPECT_EQ(out(4), -1.0e300);
  EXPECT_EQ(out(5), -2147483648.0);
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{0, 0, out.bytes(), 1}));
}

TEST_P(ValuesTest, StructValueArrivesWhole) {
  ctrl::Tile<Mixed, 1> out({1}, "out");
  const Mixed m{-7, 2.5, {1, -2, 30000}, 0xfedcba9876543210ULL};
  ctl().attach(out);
  ctl().launch<StoreStruct>(ctrl::Threads(1), out, m);
  ctl().detach(out);
  EXPECT_EQ(out(0).small, -7);
  EXPECT_EQ(out(0).real, 2.5);
  EXPECT_EQ(out(0).triple[0], 1);
  EXPECT_EQ(out(0).triple[1], -2);
  EXPECT_EQ(out(0).triple[2], 30000);
  EXPECT_EQ(out(0).big, 0xfedcba9876543210ULL);
}

// Each launch keeps the value it was given, even when the variable changes before the kernel runs
// (on CPU kinds the queue is held at a gate until every launch is queued, so none has run yet).
TEST_P(ValuesTest, ValueIsCopiedAtLaunch) {
  ctrl::test::Gate gate;
  if (host_code()) ctl().launch<ctrl::test::WaitAtGate>(ctrl::Threads(1), &gate);
  ctrl::Tile<int, 1> a({4}, "a"), b({4}, "b"), c({4}, "c");
  ctl().attach(a, b, c);
  int v = 1;
  ctl().launch<StoreInt>(ctrl::Threads(4), a, v);
  v = 2;
  ctl().launch<StoreInt>(ctrl::Threads(4), b, v);
  v = 3;
  ctl().launch<StoreInt>(ctrl::Threads(4), c, v);
  v = 4;
  gate.open.store(true);
  ctl().detach(a, b, c);
  for (int x : a.elements()) EXPECT_EQ(x, 1);
  for (int x : b.elements()) EXPECT_EQ(x, 2);
  for (int x : c.elements()) EXPECT_EQ(x, 3);
}

TEST_P(ValuesTest, KernelObjectStateIsUsed) {
  ctrl::Tile<int, 1> a({10}, "a");
  a.fill(2);
  ctl().attach(a);
  ctl().launch_with(Affine{3, 1}, ctrl::Variant::automatic, ctrl::Threads(10), a);    // 7
  ctl().launch_with(Affine{-1, 100}, ctrl::Variant::automatic, ctrl::Threads(5), a);  // 93 in the first half
  ctl().detach(a);
  for (ctrl::index_t i = 0; i < 10; ++i) EXPECT_EQ(a(i), i < 5 ? 93 : 7) << i;
}

CTRL_INSTANTIATE_DEVICE_TESTS(ValuesTest);

}  // namespace
