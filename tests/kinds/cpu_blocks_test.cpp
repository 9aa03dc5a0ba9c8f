// How CPU kinds cut a launch into blocks, seen from kernels: spaces whose work lies along any
// dimension (1×N, N×1, 1×1×N), ragged sizes, more workers than elements and empty spaces run
// every logical thread exactly once at its row-major indexes, for regular kernels (static blocks)
// and irregular ones (chunks balanced dynamically); native variants get boxes in every dimension;
// a regular launch gives each worker at most one block and spreads 1×N over every worker; an
// irregular one lets free workers take a held worker's share; an exception in a chunk leaves the
// other chunks running. Generic-kernel tests run on every kind; native ones on CPU kinds only.
#include "host_sync.hpp"
#include "test_devices.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using ctrl::cost;
using ctrl::index_t;
using ctrl::Threads;
using u32 = std::uint32_t;

// The element's row-major position + 1: a thread that ran twice, at the wrong indexes or not at
// all leaves another value.
CTRL_HOST_DEVICE inline u32 code_of(const ctrl::InOut<u32, 3>& a, index_t x, index_t y, index_t z) {
  return static_cast<u32>((x * a.extent(1) + y) * a.extent(2) + z) + 1U;
}

template <cost Cost>
struct Visit {
  static constexpr const char* name = Cost == cost::irregular ? "visit_irregular" : "visit_regular";
  static constexpr ctrl::Traits traits{Cost};
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<u32, 3> a) const {
    a(t.x, t.y, t.z) += code_of(a, t.x, t.y, t.z);
  }
};

// What the calls of a native variant saw. Each worker writes only its own entry of per_worker.
struct CallLog {
  static constexpr int max_workers = 1024;
  std::atomic<int> calls{0}, workers{0}, malformed{0};
  std::array<std::atomic<int>, max_workers> per_worker{};

  void record(const ctrl::CpuBlock& b, const Threads& space) {
    calls.fetch_add(1);
    workers.store(b.workers);
    const bool inside =
        b.x.hi <= space.x() && b.y.hi <= space.y() && b.z.hi <= space.z() && b.x.lo >= 0 && b.y.lo >= 0 && b.z.lo >= 0;
    const bool same_space = b.space.x() == space.x() && b.space.y() == space.y() && b.space.z() == space.z() &&
                            b.space.dims() == space.dims();
    if (b.size() == 0 || !inside || !same_space || b.worker < 0 || b.worker >= b.workers || b.workers > max_workers) {
      malformed.fetch_add(1);
      return;
    }
    per_worker[static_cast<std::size_t>(b.worker)].fetch_add(1);
  }
};

template <cost Cost>
struct NativeVisit {
  static constexpr const char* name = Cost == cost::irregular ? "native_visit_irregular" : "native_visit_regular";
  static constexpr ctrl::Traits traits{Cost};
  void cpu(const ctrl::CpuBlock& b, ctrl::InOut<u32, 3> a, Threads space, CallLog* log) const {
    for (index_t x : b.x)
      for (index_t y : b.y)
        for (index_t z : b.z) a(x, y, z) += code_of(a, x, y, z);
    log->record(b, space);
  }
};

// The first chunk taken holds its worker until every other element is done: that happens only
// if the other workers take the held worker's share (dynamic balance). With static blocks the
// held worker's other rows would stay undone, and the bounded wait fails the kernel.
struct Hold {
  std::atomic<bool> taken{false};
  std::atomic<index_t> done{0}, held{0};
};
struct HoldFirstChunk {
  static constexpr const char* name = "hold_first_chunk";
  static constexpr ctrl::Traits traits{cost::irregular};
  void cpu(const ctrl::CpuBlock& b, ctrl::InOut<u32, 1> a, Hold* h) const {
    for (index_t x : b.x) a(x) += 1U;
    if (!h->taken.exchange(true)) {
      h->held.store(b.size());
      if (!ctrl::test::wait_until([&] { return h->done.load() == b.space.size() - b.size(); })) {
        throw std::runtime_error("the other workers never took the held worker's share");
      }
    }
    h->done.fetch_add(b.size());
  }
};

struct BlockBoom : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Visits its chunk, then throws if the chunk holds a multiple of 50: most chunks throw.
struct ThrowingChunks {
  static constexpr const char* name = "throwing_chunks";
  static constexpr ctrl::Traits traits{cost::irregular};
  void cpu(const ctrl::CpuBlock& b, ctrl::InOut<u32, 1> a) const {
    for (index_t x : b.x) a(x) += 1U;
    for (index_t x : b.x)
      if (x % 50 == 0) throw BlockBoom("boom at " + std::to_string(x));
  }
};

struct WorkerCount {
  static constexpr const char* name = "worker_count";
  void cpu(const ctrl::CpuBlock& b, ctrl::Out<int, 1> n) const {
    if (b.worker == 0) n(0) = b.workers;
  }
};

// A launch's space, and the tile it covers (extents of missing dimensions are 1).
struct Case {
  Threads space;
  const char* what;
};
ctrl::Tile<u32, 3> tile_for(const Threads& s) { return ctrl::Tile<u32, 3>({s.x(), s.y(), s.z()}, "a"); }

const std::vector<Case>& spaces() {
  static const std::vector<Case> cases = {
      {Threads(1000), "1-D"},
      {Threads(1, 1000), "1xN"},
      {Threads(1000, 1), "Nx1"},
      {Threads(1, 1, 1000), "1x1xN"},
      {Threads(7, 13), "ragged 2-D"},
      {Threads(3, 1001), "fewer rows than most machines' workers"},
      {Threads(33, 3), "ragged, rows over columns"},
      {Threads(5, 1, 97), "ragged 3-D, one column"},
      {Threads(2, 3, 5), "small 3-D"},
      {Threads(1, 3, 1001), "1xMxN"},
      {Threads(1), "one element"},
      {Threads(1, 1), "one element, 2-D"},
      {Threads(1, 1, 1), "one element, 3-D"},
      {Threads(1, 2), "two elements"},
      {Threads(3), "three elements"},
  };
  return cases;
}

class CpuBlocksTest : public ctrl::test::DeviceTest {
 protected:
  template <class K>
  void expect_each_thread_once(const Case& c) {
    SCOPED_TRACE(std::string(K::name) + " over " + c.space.str() + " (" + c.what + ")");
    ctrl::Tile<u32, 3> a = tile_for(c.space);
    a.fill(0);
    ctl().attach(a);
    ctl().launch<K>(c.space, a);
    ctl().detach(a);
    for (index_t x = 0; x < c.space.x(); ++x)
      for (index_t y = 0; y < c.space.y(); ++y)
        for (index_t z = 0; z < c.space.z(); ++z)
          ASSERT_EQ(a(x, y, z), static_cast<u32>((x * c.space.y() + y) * c.space.z() + z) + 1U)
              << x << "," << y << "," << z;
  }

  // Runs a native variant over the case's space; the elements are checked as for generic ones.
  template <class K>
  void run_native(const Case& c, CallLog& log) {
    SCOPED_TRACE(std::string(K::name) + " over " + c.space.str() + " (" + c.what + ")");
    ctrl::Tile<u32, 3> a = tile_for(c.space);
    a.fill(0);
    ctl().attach(a);
    ctl().launch<K>(c.space, a, c.space, &log);
    ctl().detach(a);
    for (index_t i = 0; i < static_cast<index_t>(a.size()); ++i) ASSERT_EQ(a[i], static_cast<u32>(i) + 1U) << i;
    EXPECT_EQ(log.malformed.load(), 0);
  }

  int workers() {
    ctrl::Tile<int, 1> n({1}, "n");
    ctl().attach(n);
    ctl().launch<WorkerCount>(Threads(1), n);
    ctl().detach(n);
    return n(0);
  }
};

TEST_P(CpuBlocksTest, RegularKernelsRunEveryThreadOnceWhereverTheWorkLies) {
  for (const Case& c : spaces()) expect_each_thread_once<Visit<cost::regular>>(c);
}

TEST_P(CpuBlocksTest, IrregularKernelsRunEveryThreadOnceWhereverTheWorkLies) {
  for (const Case& c : spaces()) expect_each_thread_once<Visit<cost::irregular>>(c);
}

TEST_P(CpuBlocksTest, EmptySpacesRunNothing) {
  ctrl::Tile<u32, 3> a({5, 5, 5}, "a");
  a.fill(7);
  CallLog log;
  ctl().attach(a);
  for (const Threads& s : {Threads(0), Threads(0, 5), Threads(5, 0), Threads(4, 4, 0), Threads(0, 0, 0)}) {
    ctl().launch<Visit<cost::regular>>(s, a);
    ctl().launch<Visit<cost::irregular>>(s, a);
    if (host_code()) {  // native variants run on CPU kinds only
      ctl().launch<NativeVisit<cost::regular>>(s, a, s, &log);
      ctl().launch<NativeVisit<cost::irregular>>(s, a, s, &log);
    }
  }
  ctl().detach(a);
  for (u32 v : a.elements()) ASSERT_EQ(v, 7U);
  EXPECT_EQ(log.calls.load(), 0);
}

TEST_P(CpuBlocksTest, RegularNativeBlocksAreBoxesOnePerWorkerAtMost) {
  if (!host_code()) GTEST_SKIP() << "native variants run on CPU kinds only";
  for (const Case& c : spaces()) {
    CallLog log;
    run_native<NativeVisit<cost::regular>>(c, log);
    const int w = log.workers.load();
    for (int i = 0; i < w; ++i)
      EXPECT_LE(log.per_worker[static_cast<std::size_t>(i)].load(), 1) << c.what << ", worker " << i;
    EXPECT_LE(log.calls.load(), std::min<index_t>(w, c.space.size())) << c.what;
  }
}

TEST_P(CpuBlocksTest, WorkAlongAnyOneDimensionUsesEveryWorker) {
  if (!host_code()) GTEST_SKIP() << "native variants run on CPU kinds only";
  for (const Threads& s : {Threads(1000), Threads(1, 1000), Threads(1000, 1), Threads(1, 1, 1000)}) {
    CallLog log;
    run_native<NativeVisit<cost::regular>>({s, "one long dimension"}, log);
    const int w = log.workers.load();
    ASSERT_LE(w, 1000) << "more workers than this test's elements";
    for (int i = 0; i < w; ++i)
      EXPECT_EQ(log.per_worker[static_cast<std::size_t>(i)].load(), 1) << s.str() << ": worker " << i << " idle";
  }
}

TEST_P(CpuBlocksTest, IrregularNativeChunksAreBoxesAndOutnumberTheWorkers) {
  if (!host_code()) GTEST_SKIP() << "native variants run on CPU kinds only";
  for (const Case& c : spaces()) {
    CallLog log;
    run_native<NativeVisit<cost::irregular>>(c, log);
    const int w = log.workers.load();
    if (w > 1 && c.space.size() >= 16 * w) {
      EXPECT_GT(log.calls.load(), w) << c.what << ": no smaller chunks";
    }
    if (w == 1) {
      EXPECT_EQ(log.calls.load(), 1) << c.what << ": one worker needs no balance";
    }
  }
}

TEST_P(CpuBlocksTest, FreeWorkersTakeTheShareOfAHeldOne) {
  if (!host_code()) GTEST_SKIP() << "native variants run on CPU kinds only";
  const int w = workers();
  if (w < 2) GTEST_SKIP() << "one worker: nothing to balance";
  const index_t n = 64 * static_cast<index_t>(w);
  ctrl::Tile<u32, 1> a({n}, "a");
  a.fill(0);
  Hold hold;
  ctl().attach(a);
  ctl().launch<HoldFirstChunk>(Threads(n), a, &hold);
  EXPECT_NO_THROW(ctl().detach(a));
  for (index_t x = 0; x < n; ++x) ASSERT_EQ(a(x), 1U) << x;
  EXPECT_EQ(hold.done.load(), n);
  // The held chunk was smaller than a static block: the others ran more than their static shares.
  EXPECT_LT(hold.held.load(), n / w);
}

TEST_P(CpuBlocksTest, ThrowingChunksLeaveTheOtherChunksRunning) {
  if (!host_code()) GTEST_SKIP() << "kernels throw only where they run as host code";
  const index_t n = 1000;
  ctrl::Tile<u32, 1> a({n}, "a");
  a.fill(0);
  ctl().attach(a);
  ctl().launch<ThrowingChunks>(Threads(n), a);
  EXPECT_TRUE(ctrl::test::throws_naming<ctrl::KernelError>([&] { ctl().wait(); },
                                                           {"'throwing_chunks'", ctl().name(), "boom at"}));
  EXPECT_NO_THROW(ctl().wait());  // reported once
  ctl().detach(a);
  for (index_t x = 0; x < n; ++x) ASSERT_EQ(a(x), 1U) << "element " << x;
  // The controller stays usable.
  const Case again{Threads(1, 1, 300), "after a failure"};
  expect_each_thread_once<Visit<cost::irregular>>(again);
}

CTRL_INSTANTIATE_DEVICE_TESTS(CpuBlocksTest);

}  // namespace
