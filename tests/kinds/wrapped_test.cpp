// Tiles over memory the user has (ctrl::wrap): kernels compute on the user's elements, nothing is
// copied where the kind shares the host's memory, transfers are those of an owned tile elsewhere,
// the user's memory is never freed, and misuse is refused naming the tile.
#include "test_devices.hpp"

#include <cstdint>
#include <memory>
#include <numeric>
#include <span>
#include <vector>

namespace {

using ctrl::index_t;
using ctrl::TransferStats;
using ctrl::test::throws_naming;
using u32 = std::uint32_t;

struct WrapTwiceInPlace {
  static constexpr const char* name = "wrap_twice";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<u32, 2> a) const { a(t.x, t.y) = a(t.x, t.y) * 2U + 1U; }
};
struct WrapMix {  // out = in * 3 + (row index), byte-exact in unsigned arithmetic
  static constexpr const char* name = "wrap_mix";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<u32, 2> out, ctrl::In<u32, 2> in) const {
    out(t.x, t.y) = in(t.x, t.y) * 3U + static_cast<u32>(t.x);
  }
};

std::vector<u32> wrap_values(std::size_t n, u32 seed) {
  std::vector<u32> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<u32>(i * 2654435761U) ^ seed;
  return v;
}

class WrappedTest : public ctrl::test::DeviceTest {};

TEST_P(WrappedTest, KernelsComputeOnTheUsersVector) {
  const index_t rows = 37, cols = 129;  // not a multiple of any vector width
  std::vector<u32> v = wrap_values(rows * cols, 7);
  const std::vector<u32> before = v;
  ctrl::Tile<u32, 2> a = ctrl::wrap(v, {rows, cols}, "v");
  EXPECT_TRUE(a.wrapped());
  EXPECT_EQ(a.data(), v.data());  // no copy was made
  ctl().attach(a);
  ctl().launch<WrapTwiceInPlace>(ctrl::Threads(rows, cols), a);
  ctl().launch<WrapTwiceInPlace>(ctrl::Threads(rows, cols), a);
  ctl().detach(a);
  for (std::size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], (before[i] * 2U + 1U) * 2U + 1U) << i;
  // Shared memory: the kernels ran on v itself; elsewhere one copy each way, as for an owned tile.
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{a.bytes(), 1, a.bytes(), 1}));
}

TEST_P(WrappedTest, ConstMemoryIsReadInPlaceAndNeverCopiedBack) {
  const index_t rows = 19, cols = 33;
  const std::vector<u32> in = wrap_values(rows * cols, 11);
  const std::vector<u32> original = in;
  std::vector<u32> out(in.size(), 0);
  ctrl::Tile<const u32, 2> a = ctrl::wrap(in, {rows, cols}, "in");
  ctrl::Tile<u32, 2> b = ctrl::wrap(out, {rows, cols}, "out");
  ctl().attach(a, b);
  ctl().launch<WrapMix>(ctrl::Threads(rows, cols), b, a);
  ctl().detach(a, b);
  EXPECT_EQ(in, original);
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j) {
      const std::size_t k = static_cast<std::size_t>(i * cols + j);
      ASSERT_EQ(out[k], in[k] * 3U + static_cast<u32>(i)) << i << "," << j;
    }
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{a.bytes(), 1, b.bytes(), 1}));
}

TEST_P(WrappedTest, SpansPointersAndRowBlocksOfWrappedMemory) {
  const index_t rows = 12, cols = 8;
  auto buffer = std::make_unique<u32[]>(static_cast<std::size_t>(rows * cols));
  std::iota(buffer.get(), buffer.get() + rows * cols, 0U);
  ctrl::Tile<u32, 2> whole =
      ctrl::wrap(std::span<u32>(buffer.get(), static_cast<std::size_t>(rows * cols)), {rows, cols}, "buffer");
  ctrl::Tile<u32, 2> part = whole.rows(4, 9);  // shares the user's memory too
  ctl().attach(part);
  ctl().launch<WrapTwiceInPlace>(ctrl::Threads(5, cols), part);
  ctl().detach(part);
  ctrl::Tile<const u32, 1> flat = ctrl::wrap(static_cast<const u32*>(buffer.get()), {rows * cols}, "flat");
  EXPECT_EQ(flat.data(), buffer.get());
  for (index_t k = 0; k < rows * cols; ++k) {
    const auto seed = static_cast<u32>(k);
    const bool changed = k >= 4 * cols && k < 9 * cols;
    ASSERT_EQ(flat[k], changed ? seed * 2U + 1U : seed) << k;
  }
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{part.bytes(), 1, part.bytes(), 1}));
}

TEST_P(WrappedTest, TheUsersMemoryOutlivesTheTileAndIsNeverFreed) {
  std::vector<u32> v = wrap_values(4096, 3);
  const u32* where = v.data();
  {
    auto a = ctrl::wrap(v, {64, 64}, "v");
    ctl().attach(a);
    ctl().launch<WrapTwiceInPlace>(ctrl::Threads(64, 64), a);
    ctl().detach(a);
  }  // the last handle goes: ctrl lets go of the memory (and of its page-locking) but frees nothing
  EXPECT_EQ(v.data(), where);
  EXPECT_EQ(v[4095], wrap_values(4096, 3)[4095] * 2U + 1U);
  v.assign(v.size(), 5U);  // still the user's, freed by the vector alone (a double free would crash)
  EXPECT_EQ(v[4095], 5U);
}

TEST_P(WrappedTest, WrongCountNullAndMisalignedMemoryAreRefusedAtWrap) {
  std::vector<u32> v(11);
  EXPECT_TRUE(throws_naming<ctrl::UsageError>(
      [&] {
        (void)ctrl::wrap(v, {3, 4}, "short");
      },
      {"'short'", "std::vector", "holds 11 elements", "3x4 has 12"}));
  EXPECT_TRUE(throws_naming<ctrl::UsageError>(
      [&] {
        (void)ctrl::wrap(std::span<u32>(v).first(10), {3, 3}, "long");
      },
      {"'long'", "span", "holds 10"}));
  EXPECT_TRUE(throws_naming<ctrl::UsageError>(
      [&] {
        (void)ctrl::wrap(static_cast<u32*>(nullptr), {2, 2}, "none");
      },
      {"'none'", "null"}));
  alignas(8) unsigned char bytes[64] = {};
  auto* odd = reinterpret_cast<u32*>(bytes + 2);
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { (void)ctrl::wrap(odd, {4}, "odd"); },
                                              {"'odd'", "not aligned to its elements' 4 bytes"}));
  std::vector<u32> empty;
  auto e = ctrl::wrap(empty, "empty");  // nothing to wrap is fine: an empty tile
  ctl().attach(e);
  ctl().detach(e);
  EXPECT_EQ(e.size(), 0U);
}

TEST_P(WrappedTest, AVectorThatReallocatedIsRefusedAtTheNextAttach) {
  std::vector<u32> v = wrap_values(256, 1);
  auto a = ctrl::wrap(v, {16, 16}, "grown");
  v.reserve(v.capacity() * 4);  // moves the elements
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { ctl().attach(a); },
                                              {"attach of tile 'grown'", ctl().name(), "moved", "wrap it again"}));
  std::vector<u32> w = wrap_values(256, 2);
  auto b = ctrl::wrap(w, {16, 16}, "shrunk");
  w.resize(200);  // same memory, fewer elements
  EXPECT_TRUE(
      throws_naming<ctrl::UsageError>([&] { ctl().attach(b); }, {"'shrunk'", "holds 800 bytes, not the 1024 wrapped"}));
  // Wrapped again, the vector works.
  auto c = ctrl::wrap(v, {16, 16}, "again");
  ctl().attach(c);
  ctl().launch<WrapTwiceInPlace>(ctrl::Threads(16, 16), c);
  ctl().detach(c);
  EXPECT_EQ(v[255], wrap_values(256, 1)[255] * 2U + 1U);
}

TEST_P(WrappedTest, AVectorThatReallocatedWhileAttachedIsReportedAtDetach) {
  std::vector<u32> v = wrap_values(1024, 4);
  const std::vector<u32> before = v;
  auto a = ctrl::wrap(v, {32, 32}, "moving");
  ctl().attach(a);
  ctl().launch<WrapTwiceInPlace>(ctrl::Threads(32, 32), a);
  ctl().wait();
  v.reserve(v.capacity() * 4);  // misuse: the host touches an attached tile's container
  EXPECT_TRUE(throws_naming<ctrl::UsageError>(
      [&] { ctl().detach(a); },
      {"detach from controller " + ctl().name(), "'moving'", "moved", "nothing was copied into its old memory"}));
  // The tile is detached all the same; nothing came back into the vector's new memory on a kind
  // with a memory of its own (the kernel's result is lost), and the controller goes on working.
  if (separate_memory()) {
    EXPECT_EQ(v, before);
  }
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { ctl().detach(a); }, {"not attached"}));
  auto b = ctrl::wrap(v, {32, 32}, "rewrapped");
  ctl().attach(b);
  ctl().detach(b);
}

CTRL_INSTANTIATE_DEVICE_TESTS(WrappedTest);

}  // namespace
