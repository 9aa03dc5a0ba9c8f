// Checking mode for Out parameters (issue #18, docs/model.md "Out: the kernel writes every
// element"). An Out parameter promises that the kernel writes every element, so nothing is copied
// in first: a kernel that writes only part of one would keep the host's data on a shared-memory
// kind and leave garbage on a separate one. With checking on, every kind poisons the Out images
// and fails the launch the same way, naming the kernel and the tile; the same kernel taking the
// tile as InOut gives the same result everywhere; a kernel that keeps the contract passes, and the
// transfer counts stay those of the unchecked run.
#include "test_devices.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

using ctrl::index_t;
using ctrl::TransferStats;
using ctrl::test::throws_naming;
using u32 = std::uint32_t;

// The stencil of issue #18: it writes the interior of `next` and leaves its boundary alone, which
// is right for an InOut tile and breaks the contract of an Out one.
template <template <class, std::size_t> class Next>
struct Stencil {
  static constexpr const char* name = "stencil";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, Next<float, 2> next, ctrl::In<float, 2> cur) const {
    const index_t i = t.x, j = t.y;
    if (i == 0 || j == 0 || i == cur.extent(0) - 1 || j == cur.extent(1) - 1) return;
    next(i, j) = 0.25f * (cur(i - 1, j) + cur(i + 1, j) + cur(i, j - 1) + cur(i, j + 1));
  }
};

// The same sweep keeping the Out contract: the boundary is copied.
struct FullSweep {
  static constexpr const char* name = "full_sweep";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<float, 2> next, ctrl::In<float, 2> cur) const {
    const index_t i = t.x, j = t.y;
    if (i == 0 || j == 0 || i == cur.extent(0) - 1 || j == cur.extent(1) - 1) {
      next(i, j) = cur(i, j);
    } else {
      next(i, j) = 0.25f * (cur(i - 1, j) + cur(i + 1, j) + cur(i, j - 1) + cur(i, j + 1));
    }
  }
};

struct Rgb {  // 12 bytes: a pattern of three 4-byte units
  float r, g, b;
};

// Writes all but the last three elements of tiles of every pattern unit (1, 2, 4, 8 bytes, and a
// struct of 4-byte units).
struct AllButLastThree {
  static constexpr const char* name = "all_but_last_three";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<std::uint8_t, 1> bytes, ctrl::Out<std::uint16_t, 1> halves,
                                   ctrl::Out<float, 1> floats, ctrl::Out<double, 1> doubles,
                                   ctrl::Out<Rgb, 1> colours) const {
    if (t.x >= bytes.extent(0) - 3) return;
    bytes(t.x) = static_cast<std::uint8_t>(t.x & 0x7f);
    halves(t.x) = static_cast<std::uint16_t>(t.x);
    floats(t.x) = static_cast<float>(t.x);
    doubles(t.x) = static_cast<double>(t.x);
    colours(t.x) = Rgb{1.0f, 2.0f, static_cast<float>(t.x)};
  }
};

struct Twice {  // out = 2 * in: launched in place, with one tile as both
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<u32, 1> out, ctrl::In<u32, 1> in) const {
    out(t.x) = 2U * in(t.x);
  }
};

struct CheckedIota {
  static constexpr const char* name = "iota";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<u32, 1> out) const { out(t.x) = static_cast<u32>(t.x); }
};

constexpr index_t n = 16;  // the grids are n x n: 60 boundary elements, 196 interior ones

void fill_grid(ctrl::Tile<float, 2>& g) {
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) g(i, j) = static_cast<float>(i * n + j);  // sums stay exact
}

float interior(const ctrl::Tile<float, 2>& cur, index_t i, index_t j) {
  return 0.25f * (cur(i - 1, j) + cur(i + 1, j) + cur(i, j - 1) + cur(i, j + 1));
}

bool on_boundary(index_t i, index_t j) { return i == 0 || j == 0 || i == n - 1 || j == n - 1; }

u32 bits(const float& f) {
  u32 b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

// Sets an environment variable for one test and restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class OutCheckTest : public ctrl::test::DeviceTest {
 protected:
  std::unique_ptr<ctrl::Controller> checked() const { return another(ctrl::ControllerOptions{.check_out = true}); }
};

TEST_P(OutCheckTest, PartialOutWriteFailsTheSameWayOnEveryKind) {
  auto c = checked();
  ASSERT_TRUE(c->checks_out());
  ctrl::Tile<float, 2> next({n, n}, "next"), cur({n, n}, "cur");
  fill_grid(cur);
  next.fill(7.0f);  // what a shared-memory kind would keep without the check
  c->attach(next, cur);
  c->launch<Stencil<ctrl::Out>>(ctrl::Threads(n, n), next, cur);
  EXPECT_TRUE(throws_naming<ctrl::KernelError>(
      [&] { c->wait(); }, {"kernel 'stencil'", "launch #1", c->name(), "Out tile 'next'", "left 60 of 256 elements",
                           "unwritten (first at (0, 0))", "take the tile as InOut"}));
  c->detach(next, cur);
  // The same result on every kind: the interior computed, the boundary the poison (never 7).
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) {
      if (on_boundary(i, j))
        ASSERT_EQ(bits(next(i, j)), 0x7fa5a5a5U) << i << "," << j;
      else
        ASSERT_EQ(next(i, j), interior(cur, i, j)) << i << "," << j;
    }
  // The check moves nothing that transfers() counts: Out is still never copied in.
  EXPECT_TRUE(ctrl::test::moved(*c, TransferStats{cur.bytes(), 1, next.bytes(), 1}));
}

TEST_P(OutCheckTest, TheSameKernelTakingTheTileAsInOutPassesWithTheSameResultEverywhere) {
  auto c = checked();
  ctrl::Tile<float, 2> next({n, n}, "next"), cur({n, n}, "cur");
  fill_grid(cur);
  next.fill(7.0f);
  c->attach(next, cur);
  c->launch<Stencil<ctrl::InOut>>(ctrl::Threads(n, n), next, cur);
  EXPECT_NO_THROW(c->wait());
  c->detach(next, cur);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) {
      ASSERT_EQ(next(i, j), on_boundary(i, j) ? 7.0f : interior(cur, i, j)) << i << "," << j;
    }
  EXPECT_TRUE(ctrl::test::moved(*c, TransferStats{next.bytes() + cur.bytes(), 2, next.bytes(), 1}));
}

TEST_P(OutCheckTest, KernelWritingEveryElementPassesWithTheTransfersOfAnUncheckedRun) {
  auto c = checked();
  std::unique_ptr<ctrl::Controller> plain;
  {
    ScopedEnv unset("CTRL_CHECK_OUT", nullptr);  // unchecked even in a run with CTRL_CHECK_OUT=1
    plain = another();
  }
  ASSERT_FALSE(plain->checks_out());
  for (ctrl::Controller* ctl : {c.get(), plain.get()}) {
    ctrl::Tile<float, 2> next({n, n}, "next"), cur({n, n}, "cur");
    fill_grid(cur);
    ctl->attach(next, cur);
    ctl->launch<FullSweep>(ctrl::Threads(n, n), next, cur);
    ctl->launch<FullSweep>(ctrl::Threads(n, n), cur, next);  // the tiles swap roles: no copy either way
    EXPECT_NO_THROW(ctl->wait());
    ctl->detach(next, cur);
    ctrl::Tile<float, 2> ref({n, n}, "ref"), once({n, n}, "once");
    fill_grid(ref);
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j) once(i, j) = on_boundary(i, j) ? ref(i, j) : interior(ref, i, j);
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j) {
        ASSERT_EQ(next(i, j), once(i, j)) << ctl->name() << " " << i << "," << j;
        ASSERT_EQ(cur(i, j), on_boundary(i, j) ? once(i, j) : interior(once, i, j)) << i << "," << j;
      }
    EXPECT_TRUE(ctrl::test::moved(*ctl, TransferStats{cur.bytes(), 1, 2 * next.bytes(), 2}));
  }
  EXPECT_EQ(c->transfers(), plain->transfers());
}

TEST_P(OutCheckTest, EveryElementSizeIsPoisonedAndEveryTileReported) {
  auto c = checked();
  const index_t m = 40;
  ctrl::Tile<std::uint8_t, 1> bytes({m}, "bytes");
  ctrl::Tile<std::uint16_t, 1> halves({m}, "halves");
  ctrl::Tile<float, 1> floats({m}, "floats");
  ctrl::Tile<double, 1> doubles({m}, "doubles");
  ctrl::Tile<Rgb, 1> colours({m}, "colours");
  c->attach(bytes, halves, floats, doubles, colours);
  c->launch<AllButLastThree>(ctrl::Threads(m), bytes, halves, floats, doubles, colours);
  std::vector<std::string> parts = {"kernel 'all_but_last_three'"};
  for (const char* t : {"bytes", "halves", "floats", "doubles", "colours"}) {
    parts.push_back(std::string("3 of 40 elements of Out tile '") + t + "'");
  }
  parts.emplace_back("(first at (37))");
  EXPECT_TRUE(throws_naming<ctrl::KernelError>([&] { c->wait(); }, parts));
  c->detach(bytes, halves, floats, doubles, colours);
  EXPECT_EQ(bytes(36), 36U);
  EXPECT_EQ(bytes(37), 0xa5U);
  EXPECT_EQ(halves(39), 0x7da5U);
  EXPECT_EQ(colours(36).b, 36.0f);
}

TEST_P(OutCheckTest, InternalOutTilesAreCheckedToo) {
  auto c = checked();
  ctrl::Tile<float, 2> scratch({n, n}, ctrl::shape_only, "scratch"), cur({n, n}, "cur");
  fill_grid(cur);
  c->attach(cur);
  c->create_internal(scratch);
  c->launch<Stencil<ctrl::Out>>(ctrl::Threads(n, n), scratch, cur);
  EXPECT_TRUE(throws_naming<ctrl::KernelError>([&] { c->wait(); }, {"'stencil'", "Out tile 'scratch'", "60 of 256"}));
  c->destroy_internal(scratch);
  c->detach(cur);
}

TEST_P(OutCheckTest, TileBothReadAndWrittenByOneLaunchIsNotPoisoned) {
  auto c = checked();
  ctrl::Tile<u32, 1> a({100}, "a");
  for (index_t i = 0; i < 100; ++i) a(i) = static_cast<u32>(i);
  c->attach(a);
  c->launch<Twice>(ctrl::Threads(100), a, a);
  EXPECT_NO_THROW(c->wait());
  c->detach(a);
  for (index_t i = 0; i < 100; ++i) ASSERT_EQ(a(i), 2U * static_cast<u32>(i)) << i;
}

// The poison of a launch's Out tile must wait for the launches before it that read the tile (on
// CUDA the poison goes on the copy stream, the kernels on the compute stream).
TEST_P(OutCheckTest, PoisonComesAfterEarlierLaunchesThatReadTheTile) {
  auto c = checked();
  const index_t m = index_t{1} << 20;
  ctrl::Tile<u32, 1> a({m}, "a"), b({m}, "b");
  for (index_t i = 0; i < m; ++i) a(i) = static_cast<u32>(i);
  c->attach(a, b);
  c->launch<Twice>(ctrl::Threads(m), b, a);     // reads a
  c->launch<CheckedIota>(ctrl::Threads(m), a);  // then poisons and writes it
  EXPECT_NO_THROW(c->wait());
  c->detach(a, b);
  for (index_t i = 0; i < m; ++i) ASSERT_EQ(b(i), 2U * static_cast<u32>(i)) << i;
  for (index_t i = 0; i < m; ++i) ASSERT_EQ(a(i), static_cast<u32>(i)) << i;
}

TEST_P(OutCheckTest, LaterLaunchesRunAndTheControllerStaysUsable) {
  auto c = checked();
  ctrl::Tile<float, 2> next({n, n}, "next"), cur({n, n}, "cur");
  ctrl::Tile<u32, 1> a({n}, "a");
  fill_grid(cur);
  c->attach(next, cur, a);
  c->launch<Stencil<ctrl::Out>>(ctrl::Threads(n, n), next, cur);
  c->launch<CheckedIota>(ctrl::Threads(n), a);
  EXPECT_THROW(c->wait(), ctrl::KernelError);
  c->launch<CheckedIota>(ctrl::Threads(n), a);
  EXPECT_NO_THROW(c->wait());
  c->detach(next, cur, a);
  for (index_t i = 0; i < n; ++i) ASSERT_EQ(a(i), static_cast<u32>(i));
}

TEST_P(OutCheckTest, EnvironmentTurnsCheckingOnForEveryController) {
  {
    ScopedEnv on("CTRL_CHECK_OUT", "1");
    auto c = another();
    EXPECT_TRUE(c->checks_out());
    ctrl::Tile<float, 2> next({n, n}, "next"), cur({n, n}, "cur");
    fill_grid(cur);
    c->attach(next, cur);
    c->launch<Stencil<ctrl::Out>>(ctrl::Threads(n, n), next, cur);
    EXPECT_TRUE(throws_naming<ctrl::KernelError>([&] { c->detach(next, cur); }, {"'stencil'", "'next'"}));
  }
  {
    ScopedEnv off("CTRL_CHECK_OUT", "0");
    EXPECT_FALSE(another()->checks_out());
    EXPECT_TRUE(another(ctrl::ControllerOptions{.check_out = true})->checks_out());
  }
  ScopedEnv unset("CTRL_CHECK_OUT", nullptr);
  EXPECT_FALSE(another()->checks_out());
}

TEST_P(OutCheckTest, MisspeltEnvironmentValueIsRefused) {
  ScopedEnv bad("CTRL_CHECK_OUT", "yes");
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { another(); }, {"CTRL_CHECK_OUT='yes'", "1"}));
}

CTRL_INSTANTIATE_DEVICE_TESTS(OutCheckTest);

}  // namespace
