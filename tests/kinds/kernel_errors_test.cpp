// A kernel that throws surfaces at the next wait() or detach() as a ctrl::KernelError naming the
// kernel and the controller, with the original exception nested; later launches still run, and
// the controller stays usable. Kernels throw only where they run as host code: these kernels have
// CPU variants only, and the tests skip on other kinds.
#include "test_devices.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace {

using ctrl::index_t;
using ctrl::test::throws_naming;
using u32 = std::uint32_t;

struct Boom : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws from the block of worker `which` (-1: the last worker).
struct Thrower {
  static constexpr const char* name = "thrower";
  void cpu(const ctrl::CpuBlock& b, ctrl::InOut<u32, 1> a, int which) const {
    for (index_t x : b.x) a(x) += 1U;
    if (b.worker == (which < 0 ? b.workers - 1 : which)) throw Boom("boom in worker " + std::to_string(b.worker));
  }
};

struct ThrowsInt {
  static constexpr const char* name = "throws_int";
  void cpu(const ctrl::CpuBlock& b, ctrl::InOut<u32, 1>) const {
    if (b.worker == 0) throw 42;
  }
};

struct LibraryThrower {
  static constexpr const char* name = "library_thrower";
  void cpu_library(ctrl::CpuContext&, ctrl::InOut<u32, 1>) const { throw Boom("library boom"); }
};

struct UnnamedThrower {
  void cpu(const ctrl::CpuBlock& b, ctrl::InOut<u32, 1>) const {
    if (b.worker == 0) throw Boom("unnamed boom");
  }
};

struct ErrorsIncrement {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<u32, 1> a) const { a(t.x) += 1U; }
};

class KernelErrorsTest : public ctrl::test::DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (ctl_ && !host_code()) GTEST_SKIP() << "kernels cannot throw on " << spec() << " (not host code)";
  }
};

TEST_P(KernelErrorsTest, ThrowSurfacesAtWaitNamingKernelAndController) {
  ctrl::Tile<u32, 1> a({64}, "a");
  a.fill(0);
  ctl().attach(a);
  ctl().launch<Thrower>(ctrl::Threads(64), a, 0);
  EXPECT_TRUE(throws_naming<ctrl::KernelError>([&] { ctl().wait(); }, {"'thrower'", ctl().name(), "boom in worker 0"}));
  ctl().detach(a);
}

TEST_P(KernelErrorsTest, OriginalExceptionIsNested) {
  ctrl::Tile<u32, 1> a({8}, "a");
  a.fill(0);
  ctl().attach(a);
  ctl().launch<Thrower>(ctrl::Threads(8), a, 0);
  bool nested_boom = false;
  try {
    ctl().wait();
  } catch (const ctrl::KernelError& e) {
    try {
      std::rethrow_if_nested(e);
    } catch (const Boom& inner) {
      nested_boom = std::string(inner.what()) == "boom in worker 0";
    }
  }
  EXPECT_TRUE(nested_boom);
  ctl().detach(a);
}

TEST_P(KernelErrorsTest, ThrowSurfacesAtDetachAndTheTileIsDetached) {
  ctrl::Tile<u32, 1> a({1024}, "a");  // enough rows for every worker of a large machine
  a.fill(0);
  ctl().attach(a);
  ctl().launch<Thrower>(ctrl::Threads(1024), a, -1);
  EXPECT_TRUE(throws_naming<ctrl::KernelError>([&] { ctl().detach(a); }, {"'thrower'", ctl().name()}));
  auto other = another();
  EXPECT_NO_THROW(other->attach(a));  // the detach completed before the error was raised
  other->detach(a);
}

TEST_P(KernelErrorsTest, ControllerStaysUsableAfterAKernelError) {
  ctrl::Tile<u32, 1> a({32}, "a");
  a.fill(0);
  ctl().attach(a);
  ctl().launch<Thrower>(ctrl::Threads(32), a, 0);
  EXPECT_THROW(ctl().wait(), ctrl::KernelError);
  EXPECT_NO_THROW(ctl().wait());  // reported once
  ctl().launch<ErrorsIncrement>(ctrl::Threads(32), a);
  EXPECT_NO_THROW(ctl().detach(a));
  for (u32 v : a.elements()) EXPECT_EQ(v, 2U);  // the failed launch ran its other blocks; then +1
}

TEST_P(KernelErrorsTest, LaunchesQueuedAfterAFailureStillRun) {
  ctrl::Tile<u32, 1> a({10}, "a"), b({10}, "b");
  a.fill(0);
  b.fill(0);
  ctl().attach(a, b);
  ctl().launch<UnnamedThrower>(ctrl::Threads(10), a);
  for (int i = 0; i < 5; ++i) ctl().launch<ErrorsIncrement>(ctrl::Threads(10), b);
  EXPECT_THROW(ctl().wait(), ctrl::KernelError);
  ctl().detach(a, b);
  for (u32 v : b.elements()) EXPECT_EQ(v, 5U);
}

TEST_P(KernelErrorsTest, SeveralFailuresAreReportedOnceWithTheirCount) {
  ctrl::Tile<u32, 1> a({4}, "a");
  a.fill(0);
  ctl().attach(a);
  ctl().launch<Thrower>(ctrl::Threads(4), a, 0);
  ctl().launch<ErrorsIncrement>(ctrl::Threads(4), a);
  ctl().launch<LibraryThrower>(ctrl::Threads(4), a);
  ctl().launch<ThrowsInt>(ctrl::Threads(4), a);
  // The first failure, counting the others.
  EXPECT_TRUE(throws_naming<ctrl::KernelError>([&] { ctl().wait(); },
                                               {"'thrower'", ctl().name(), "and 2 later launches failed"}));
  EXPECT_NO_THROW(ctl().wait());
  // The count starts afresh: a single later failure is reported alone.
  ctl().launch<LibraryThrower>(ctrl::Threads(4), a);
  try {
    ctl().wait();
    ADD_FAILURE() << "the failure was not reported";
  } catch (const ctrl::KernelError& e) {
    EXPECT_EQ(std::string(e.what()).find("later launches failed"), std::string::npos) << e.what();
  }
  ctl().detach(a);
}

TEST_P(KernelErrorsTest, NonStandardExceptionBecomesAKernelError) {
  ctrl::Tile<u32, 1> a({4}, "a");
  ctl().attach(a);
  ctl().launch<ThrowsInt>(ctrl::Threads(4), a);
  EXPECT_TRUE(throws_naming<ctrl::KernelError>([&] { ctl().wait(); },
                                               {"'throws_int'", ctl().name(), "non-standard exception"}));
  ctl().detach(a);
}

TEST_P(KernelErrorsTest, LibraryVariantThrowSurfaces) {
  ctrl::Tile<u32, 1> a({4}, "a");
  ctl().attach(a);
  ctl().launch<LibraryThrower>(ctrl::Threads(4), a);
  EXPECT_TRUE(throws_naming<ctrl::KernelError>([&] { ctl().wait(); },
                                               {"'library_thrower'", "(library)", ctl().name(), "library boom"}));
  ctl().detach(a);
}

TEST_P(KernelErrorsTest, KernelWithoutANameIsNamedByItsType) {
  ctrl::Tile<u32, 1> a({4}, "a");
  ctl().attach(a);
  ctl().launch<UnnamedThrower>(ctrl::Threads(4), a);
  EXPECT_TRUE(
      throws_naming<ctrl::KernelError>([&] { ctl().wait(); }, {"UnnamedThrower", ctl().name(), "unnamed boom"}));
  ctl().detach(a);
}

// A controller destroyed with a failure still unreported must not throw, and must leave every
// tile it had (attached or internal) free for other controllers.
TEST_P(KernelErrorsTest, DestroyingAControllerWithAPendingFailureFreesItsTiles) {
  ctrl::Tile<u32, 1> a({6}, "a"), s({6}, ctrl::shape_only, "scratch");
  a.fill(0);
  ctl().attach(a);
  ctl().create_internal(s);
  ctl().launch<Thrower>(ctrl::Threads(6), a, 0);
  EXPECT_NO_THROW(ctl_.reset());
  EXPECT_EQ(a(0), 1U);  // the part that ran came home
  auto other = another();
  EXPECT_NO_THROW(other->attach(a));
  EXPECT_NO_THROW(other->create_internal(s));
}

CTRL_INSTANTIATE_DEVICE_TESTS(KernelErrorsTest);

}  // namespace
