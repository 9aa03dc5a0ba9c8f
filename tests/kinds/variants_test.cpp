// Kernel variants (the Controllers paper §3.1.1): the runtime picks the best one a kernel defines for the
// controller's device — a library wrapper, then a native body, then the generic one — or runs the
// one asked for; asking for one the kernel lacks is a UsageError. Each variant leaves its mark:
// generic 1, native 2, library 3.
#include "test_devices.hpp"

#include <atomic>
#include <cstdint>
#include <vector>

namespace {

using ctrl::index_t;
using ctrl::Variant;
using ctrl::test::throws_naming;

constexpr int generic_mark = 1, native_mark = 2, library_mark = 3;

struct GenericOnly {
  static constexpr const char* name = "generic_only";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<int, 1> m) const { m(t.x) = generic_mark; }
};

struct GenericAndNative {
  static constexpr const char* name = "generic_and_native";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<int, 1> m) const { m(t.x) = generic_mark; }
  void cpu(const ctrl::CpuBlock& b, ctrl::Out<int, 1> m) const {
    for (index_t x : b.x) m(x) = native_mark;
  }
};

struct AllThree {
  static constexpr const char* name = "all_three";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<int, 1> m) const { m(t.x) = generic_mark; }
  void cpu(const ctrl::CpuBlock& b, ctrl::Out<int, 1> m) const {
    for (index_t x : b.x) m(x) = native_mark;
  }
  void cpu_library(ctrl::CpuContext& ctx, ctrl::Out<int, 1> m) const {
    ctx.parallel_for(m.extent(0), [&](index_t begin, index_t end, int) {
      for (index_t x = begin; x < end; ++x) m(x) = library_mark;
    });
  }
};

struct NativeOnly {
  static constexpr const char* name = "native_only";
  void cpu(const ctrl::CpuBlock& b, ctrl::Out<int, 1> m) const {
    for (index_t x : b.x) m(x) = native_mark;
  }
};

struct LibraryOnly {
  static constexpr const char* name = "library_only";
  void cpu_library(ctrl::CpuContext&, ctrl::Out<int, 1> m) const {
    for (index_t x = 0; x < m.extent(0); ++x) m(x) = library_mark;
  }
};

// Records which worker ran each element, and the block each worker saw.
struct RecordBlocks {
  static constexpr const char* name = "record_blocks";
  // blocks is InOut: the rows of workers without a block keep the host's -1.
  void cpu(const ctrl::CpuBlock& b, ctrl::Out<int, 2> owner, ctrl::InOut<index_t, 2> blocks) const {
    for (index_t x : b.x)
      for (index_t y : b.y) owner(x, y) = b.worker;
    blocks(b.worker, 0) = b.x.lo;
    blocks(b.worker, 1) = b.x.hi;
    blocks(b.worker, 2) = b.y.lo;
    blocks(b.worker, 3) = b.y.hi;
    blocks(b.worker, 4) = b.workers;
    blocks(b.worker, 5) = b.space.x();
  }
};

struct LibraryContext {
  static constexpr const char* name = "library_context";
  void cpu_library(ctrl::CpuContext& ctx, ctrl::Out<int, 1> hits, ctrl::Out<int, 1> info,
                   std::atomic<int>* calls) const {
    calls->fetch_add(1);
    info(0) = ctx.workers();
    info(1) = static_cast<int>(ctx.cores().size());
    for (index_t x = 0; x < hits.extent(0); ++x) hits(x) = 0;
    ctx.parallel_for(hits.extent(0), [&](index_t begin, index_t end, int w) {
      for (index_t x = begin; x < end; ++x) hits(x) += 1 + 100 * w;
    });
  }
};

class VariantsTest : public ctrl::test::DeviceTest {
 protected:
  // The mark a launch of K leaves, or 0 when the launch was refused with a UsageError.
  template <class K>
  int mark_of(Variant v = Variant::automatic) {
    ctrl::Tile<int, 1> m({37}, "marks");
    m.fill(0);
    ctl().attach(m);
    try {
      ctl().launch<K>(v, ctrl::Threads(37), m);
    } catch (const ctrl::UsageError&) {
      ctl().detach(m);
      return 0;
    }
    ctl().detach(m);
    for (index_t x = 1; x < 37; ++x) EXPECT_EQ(m(x), m(0)) << "row " << x << " ran another variant";
    return m(0);
  }
};

TEST_P(VariantsTest, AutomaticPrefersLibraryThenNativeThenGeneric) {
  EXPECT_EQ(mark_of<GenericOnly>(), generic_mark);
  if (host_code()) {
    EXPECT_EQ(mark_of<GenericAndNative>(), native_mark);
    EXPECT_EQ(mark_of<AllThree>(), library_mark);
    EXPECT_EQ(mark_of<NativeOnly>(), native_mark);
    EXPECT_EQ(mark_of<LibraryOnly>(), library_mark);
  } else {  // CPU variants do not apply: the generic body runs, and kernels without one cannot
    EXPECT_EQ(mark_of<GenericAndNative>(), generic_mark);
    EXPECT_EQ(mark_of<AllThree>(), generic_mark);
    EXPECT_EQ(mark_of<NativeOnly>(), 0);
    EXPECT_EQ(mark_of<LibraryOnly>(), 0);
  }
}

TEST_P(VariantsTest, ForcedVariantRuns) {
  EXPECT_EQ(mark_of<AllThree>(Variant::generic), generic_mark);
  EXPECT_EQ(mark_of<GenericAndNative>(Variant::generic), generic_mark);
  if (host_code()) {
    EXPECT_EQ(mark_of<AllThree>(Variant::native), native_mark);
    EXPECT_EQ(mark_of<AllThree>(Variant::library), library_mark);
    EXPECT_EQ(mark_of<GenericAndNative>(Variant::native), native_mark);
  }
}

TEST_P(VariantsTest, AskingForAMissingVariantIsAUsageErrorNamingKernelAndController) {
  ctrl::Tile<int, 1> m({4}, "m");
  ctl().attach(m);
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { ctl().launch<GenericOnly>(Variant::native, ctrl::Threads(4), m); },
                                              {"'generic_only'", ctl().name(), "native"}));
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { ctl().launch<GenericOnly>(Variant::library, ctrl::Threads(4), m); },
                                              {"'generic_only'", ctl().name(), "library"}));
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { ctl().launch<NativeOnly>(Variant::generic, ctrl::Threads(4), m); },
                                              {"'native_only'", ctl().name(), "generic"}));
  EXPECT_TRUE(
      throws_naming<ctrl::UsageError>([&] { ctl().launch<GenericAndNative>(Variant::library, ctrl::Threads(4), m); },
                                      {"'generic_and_native'", ctl().name(), "library"}));
  ctl().detach(m);
  EXPECT_TRUE(ctrl::test::moved(ctl(), ctrl::TransferStats{}));  // refused launches leave no trace
}

// A regular kernel's native variant gets one box per worker; with rows to spare (here 101 rows,
// for up to 12 workers) the boxes are whole contiguous row blocks, as OpenMP's schedule(static).
TEST_P(VariantsTest, NativeBlocksAreOneBoxPerWorkerCoveringTheSpace) {
  if (!host_code()) GTEST_SKIP() << "CPU blocks exist on CPU kinds only";
  const index_t n = 101, m = 3;
  ctrl::Tile<int, 2> owner({n, m}, "owner");
  ctrl::Tile<index_t, 2> blocks({256, 6}, "blocks");
  owner.fill(-1);
  blocks.fill(-1);
  ctl().attach(owner, blocks);
  ctl().launch<RecordBlocks>(ctrl::Threads(n, m), owner, blocks);
  ctl().detach(owner, blocks);
  const index_t workers = blocks(0, 4);
  ASSERT_GE(workers, 1);
  ASSERT_LE(workers, 256);
  index_t covered = 0;
  for (index_t w = 0; w < workers; ++w) {
    if (blocks(w, 0) < 0) continue;  // no block: more workers than this space needs
    EXPECT_EQ(blocks(w, 4), workers);
    EXPECT_EQ(blocks(w, 5), n);
    covered += (blocks(w, 1) - blocks(w, 0)) * (blocks(w, 3) - blocks(w, 2));
    if (workers * 8 <= n) {
      EXPECT_TRUE(blocks(w, 2) == 0 && blocks(w, 3) == m) << "worker " << w << " got part of the rows";
      index_t b = 0, e = 0;
      ctrl::split_range(n, static_cast<int>(workers), static_cast<int>(w), b, e);
      EXPECT_EQ(blocks(w, 0), b) << "worker " << w;
      EXPECT_EQ(blocks(w, 1), e) << "worker " << w;
    }
  }
  EXPECT_EQ(covered, n * m);  // with every element owned by the worker whose box holds it: no overlap
  for (index_t x = 0; x < n; ++x)
    for (index_t y = 0; y < m; ++y) {
      const int w = owner(x, y);
      ASSERT_GE(w, 0) << x << "," << y << " never ran";
      EXPECT_TRUE(x >= blocks(w, 0) && x < blocks(w, 1) && y >= blocks(w, 2) && y < blocks(w, 3))
          << x << "," << y << " ran outside worker " << w << "'s block";
    }
  if (!ctl().spec().cores.empty()) {
    EXPECT_EQ(static_cast<std::size_t>(workers), ctl().spec().cores.size());
  }
}

TEST_P(VariantsTest, LibraryVariantRunsOncePerLaunchOverTheControllersWorkers) {
  if (!host_code()) GTEST_SKIP() << "cpu_library variants run on CPU kinds only";
  const index_t n = 1000;
  std::atomic<int> calls{0};
  ctrl::Tile<int, 1> hits({n}, "hits"), info({2}, "info");
  ctl().attach(hits, info);
  ctl().launch<LibraryContext>(ctrl::Threads(n), hits, info, &calls);
  ctl().detach(hits, info);
  EXPECT_EQ(calls.load(), 1);
  const int workers = info(0);
  EXPECT_EQ(info(1), workers);
  if (!ctl().spec().cores.empty()) {
    EXPECT_EQ(static_cast<std::size_t>(workers), ctl().spec().cores.size());
  }
  std::vector<int> per_worker(static_cast<std::size_t>(workers), 0);
  for (index_t x = 0; x < n; ++x) {
    ASSERT_EQ(hits(x) % 100, 1) << "row " << x << " ran " << hits(x) % 100 << " times";
    ++per_worker[static_cast<std::size_t>(hits(x) / 100)];
  }
  for (int w = 0; w < workers; ++w) EXPECT_GE(per_worker[static_cast<std::size_t>(w)], n / workers) << w;
}

CTRL_INSTANTIATE_DEVICE_TESTS(VariantsTest);

}  // namespace
