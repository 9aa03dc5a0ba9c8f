// Recorded launches (include/ctrl/graph.hpp): a replay gives what the same launches made one by
// one give, moves the same data, takes ctrl::ref values as they are when it is queued, reports a
// failure as a launch's, and every misuse is a UsageError naming what was wrong.
#include "test_devices.hpp"

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace {

using ctrl::index_t;
using ctrl::TransferStats;
using ctrl::test::throws_naming;
using u32 = std::uint32_t;

// Jacobi's shape with integers (exact on every device): a scratch copy, then an update that reads
// the copy's neighbours and a value.
struct GraphCopy {
  static constexpr const char* name = "graph_copy";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<u32, 1> dst, ctrl::In<u32, 1> src) const {
    dst(t.x) = src(t.x);
  }
};
struct GraphUpdate {
  static constexpr const char* name = "graph_update";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<u32, 1> m, ctrl::In<u32, 1> copy, u32 k) const {
    const index_t size = copy.extent(0);
    m(t.x) = copy(t.x) * 3U + copy((t.x + 1) % size) + k;
  }
};
// A launch that fails wherever it runs: its CPU variant throws; on a GPU its block (64x64) is more
// than a CUDA block holds.
struct GraphFails {
  static constexpr const char* name = "graph_fails";
  static constexpr ctrl::Traits traits = ctrl::Traits::fixed_block(64, 64);
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<u32, 2> a) const { a(t.x, t.y) += 1U; }
  void cpu(const ctrl::CpuBlock&, ctrl::InOut<u32, 2>) const { throw std::runtime_error("fails on purpose"); }
};
// Writes only element 0 of an Out tile: breaks the Out contract (checking mode finds it).
struct GraphWritesOne {
  static constexpr const char* name = "graph_writes_one";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<u32, 1> a) const {
    if (t.x == 0) a(0) = 1U;
  }
};

constexpr index_t graph_n = 300;

std::vector<u32> graph_start() {
  std::vector<u32> v(graph_n);
  for (index_t i = 0; i < graph_n; ++i) v[static_cast<std::size_t>(i)] = static_cast<u32>(i * 7 + 1);
  return v;
}
// The host's answer after `steps` iterations with the values ks[0], ks[1], ...
std::vector<u32> graph_expected(const std::vector<u32>& ks) {
  std::vector<u32> m = graph_start(), c(m.size());
  for (const u32 k : ks) {
    c = m;
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = c[i] * 3U + c[(i + 1) % m.size()] + k;
  }
  return m;
}
void graph_load(ctrl::Tile<u32, 1>& t) {
  const auto v = graph_start();
  for (index_t i = 0; i < graph_n; ++i) t(i) = v[static_cast<std::size_t>(i)];
}
::testing::AssertionResult graph_holds(const ctrl::Tile<u32, 1>& t, const std::vector<u32>& want) {
  for (index_t i = 0; i < graph_n; ++i) {
    if (t(i) != want[static_cast<std::size_t>(i)]) {
      return ::testing::AssertionFailure()
             << "element " << i << ": " << t(i) << ", expected " << want[static_cast<std::size_t>(i)];
    }
  }
  return ::testing::AssertionSuccess();
}

class GraphsTest : public ctrl::test::DeviceTest {
 protected:
  // Records one iteration on m with the scratch tile c (internal) and the value bound to k.
  ctrl::Graph record_step(ctrl::Tile<u32, 1>& m, ctrl::Tile<u32, 1>& c, const u32& k) {
    return ctl().record([&] {
      ctl().launch<GraphCopy>(ctrl::Threads(graph_n), c, m);
      ctl().launch<GraphUpdate>(ctrl::Threads(graph_n), m, c, ctrl::ref(k));
    });
  }
};

TEST_P(GraphsTest, ReplaysGiveTheResultAndTransfersOfTheSameLaunchesMadeOneByOne) {
  ctrl::Tile<u32, 1> a({graph_n}, "a"), b({graph_n}, "b"), ca({graph_n}, ctrl::shape_only, "ca"),
      cb({graph_n}, ctrl::shape_only, "cb");
  graph_load(a);
  graph_load(b);
  const u32 k = 5;
  ctl().create_internal(ca, cb);
  ctl().attach(a);
  for (int i = 0; i < 13; ++i) {
    ctl().launch<GraphCopy>(ctrl::Threads(graph_n), ca, a);
    ctl().launch<GraphUpdate>(ctrl::Threads(graph_n), a, ca, k);
  }
  ctl().detach(a);
  const TransferStats one_by_one = ctl().transfers();
  ctl().reset_transfers();

  ctl().attach(b);
  const ctrl::Graph step = record_step(b, cb, k);
  EXPECT_EQ(step.launches(), 2U);
  EXPECT_EQ(step.controller(), ctl().name());
  ctl().replay(step);
  ctl().replay(step, 7);  // one entry: on a GPU, unrolled graphs of 4, 2 and 1 copies
  ctl().replay(step, 5);
  ctl().detach(b);
  EXPECT_TRUE(graph_holds(a, graph_expected(std::vector<u32>(13, k))));
  EXPECT_TRUE(graph_holds(b, graph_expected(std::vector<u32>(13, k))));
  EXPECT_EQ(ctl().transfers(), one_by_one);
  EXPECT_TRUE(ctrl::test::moved(ctl(), TransferStats{b.bytes(), 1, b.bytes(), 1}));
  ctl().destroy_internal(ca, cb);
}

TEST_P(GraphsTest, NothingRunsOrMovesWhileRecording) {
  ctrl::Tile<u32, 1> m({graph_n}, "m"), c({graph_n}, ctrl::shape_only, "c");
  graph_load(m);
  ctl().attach(m);
  ctl().create_internal(c);
  const u32 k = 1;
  const ctrl::Graph step = record_step(m, c, k);
  EXPECT_EQ(ctl().transfers(), TransferStats{});
  ctl().detach(m);  // the recording ran nothing: the host data is the valid one still
  EXPECT_TRUE(graph_holds(m, graph_start()));
  EXPECT_EQ(ctl().transfers(), TransferStats{});
  ctl().destroy_internal(c);
}

// Replays of many counts: above what one CUDA graph launch holds (1024 copies of a 2-launch
// step), and more distinct rests than the GPU keeps graphs of exactly that many copies (8; the
// others are launched as graphs of 2^k copies). Every copy runs once, in order.
TEST_P(GraphsTest, EveryReplayCountRunsThatManyCopies) {
  ctrl::Tile<u32, 1> m({graph_n}, "m"), c({graph_n}, ctrl::shape_only, "c");
  graph_load(m);
  ctl().attach(m);
  ctl().create_internal(c);
  u32 k = 0;
  const ctrl::Graph step = record_step(m, c, k);
  std::vector<u32> ks;
  u32 r = 0;
  for (const std::uint64_t times : {1000, 1025, 2049, 3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 1000, 999, 3}) {
    k = r++ / 4 + 1;  // a new value every fourth replay: the kept graphs are updated too
    ctl().replay(step, times);
    ks.insert(ks.end(), times, k);
  }
  ctl().detach(m);
  EXPECT_TRUE(graph_holds(m, graph_expected(ks)));
  ctl().destroy_internal(c);
}

TEST_P(GraphsTest, RefValuesAreReadWhenEachReplayIsQueued) {
  ctrl::Tile<u32, 1> m({graph_n}, "m"), c({graph_n}, ctrl::shape_only, "c");
  graph_load(m);
  ctl().attach(m);
  ctl().create_internal(c);
  u32 k = 1;
  const ctrl::Graph step = record_step(m, c, k);
  std::vector<u32> ks;
  for (u32 r = 0; r < 6; ++r) {
    k = 10U * r + 1U;  // every replay with another value; the second half twice each
    const std::uint64_t times = r < 3 ? 1 : 2;
    ctl().replay(step, times);
    ks.insert(ks.end(), times, k);
  }
  k = 99;  // changed after the last replay was queued: it must not reach it
  ctl().detach(m);
  EXPECT_TRUE(graph_holds(m, graph_expected(ks)));
  // An unrecorded launch reads a ref at the launch.
  ctl().attach(m);
  ctl().launch<GraphCopy>(ctrl::Threads(graph_n), c, m);
  ctl().launch<GraphUpdate>(ctrl::Threads(graph_n), m, c, ctrl::ref(k));
  k = 7;
  ctl().detach(m);
  ks.push_back(99);
  EXPECT_TRUE(graph_holds(m, graph_expected(ks)));
  ctl().destroy_internal(c);
}

TEST_P(GraphsTest, ATileAttachedAgainIsUsedWhereItNowLives) {
  ctrl::Tile<u32, 1> m({graph_n}, "m"), c({graph_n}, ctrl::shape_only, "c"), other({graph_n * 4}, "other");
  graph_load(m);
  ctl().create_internal(c);
  ctl().attach(m);
  const u32 k = 3;
  const ctrl::Graph step = record_step(m, c, k);
  ctl().replay(step, 2);
  ctl().detach(m);
  ctl().attach(other);  // may take the image m had
  ctl().attach(m);
  ctl().replay(step, 3);
  ctl().detach(m, other);
  EXPECT_TRUE(graph_holds(m, graph_expected(std::vector<u32>(5, k))));
  ctl().destroy_internal(c);
}

TEST_P(GraphsTest, AFailureInAReplayIsReportedAtWaitAndTheControllerCarriesOn) {
  ctrl::Tile<u32, 2> a({64, 64}, "a");
  ctrl::Tile<u32, 1> m({graph_n}, "m"), c({graph_n}, ctrl::shape_only, "c");
  a.fill(0);
  graph_load(m);
  ctl().attach(a, m);
  ctl().create_internal(c);
  const ctrl::Graph bad = ctl().record([&] {
    ctl().launch<GraphCopy>(ctrl::Threads(graph_n), c, m);
    ctl().launch<GraphFails>(ctrl::Threads(64, 64), a);
  });
  ctl().replay(bad);
  EXPECT_TRUE(throws_naming<ctrl::Error>([&] { ctl().wait(); }, {"'graph_fails'", ctl().name(), "replay #1"}));
  const u32 k = 2;
  const ctrl::Graph step = record_step(m, c, k);
  ctl().replay(step, 3);
  ctl().detach(a, m);
  EXPECT_TRUE(graph_holds(m, graph_expected(std::vector<u32>(3, k))));
  ctl().destroy_internal(c);
}

TEST_P(GraphsTest, CheckingModeChecksEveryLaunchOfAReplay) {
  auto checked = another(ctrl::ControllerOptions{.check_out = true});
  ctrl::Tile<u32, 1> a({graph_n}, "a");
  a.fill(0);
  checked->attach(a);
  const ctrl::Graph g = checked->record([&] { checked->launch<GraphWritesOne>(ctrl::Threads(graph_n), a); });
  checked->replay(g, 2);
  EXPECT_TRUE(throws_naming<ctrl::KernelError>([&] { checked->wait(); },
                                               {"'graph_writes_one'", "replay #1", "'a'", "unwritten"}));
  checked->detach(a);
}

TEST_P(GraphsTest, AGraphReplaysOnlyOnTheControllerThatRecordedIt) {
  auto other = another();
  ctrl::Tile<u32, 1> m({graph_n}, "m"), c({graph_n}, ctrl::shape_only, "c");
  ctl().attach(m);
  ctl().create_internal(c);
  const u32 k = 0;
  const ctrl::Graph step = record_step(m, c, k);
  EXPECT_TRUE(throws_naming<ctrl::UsageError>(
      [&] { other->replay(step); },
      {"replay on controller " + other->name(), "recorded on controller " + ctl().name()}));
  ctl().detach(m);
  ctl().destroy_internal(c);
}

TEST_P(GraphsTest, ReplayingWithADetachedOrFreedTileIsAUsageError) {
  ctrl::Tile<u32, 1> c({graph_n}, ctrl::shape_only, "c");
  ctl().create_internal(c);
  const u32 k = 0;
  ctrl::Graph step;
  {
    ctrl::Tile<u32, 1> m({graph_n}, "m");
    ctl().attach(m);
    step = record_step(m, c, k);
    ctl().detach(m);
    EXPECT_TRUE(
        throws_naming<ctrl::UsageError>([&] { ctl().replay(step); }, {"'m'", ctl().name(), "no longer attached"}));
  }
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { ctl().replay(step); }, {"'m'", ctl().name(), "freed"}));
  ctl().destroy_internal(c);
  EXPECT_EQ(ctl().transfers(), TransferStats{});  // a refused replay moves nothing
}

TEST_P(GraphsTest, OnlyLaunchesMayBeMadeWhileRecording) {
  ctrl::Tile<u32, 1> m({graph_n}, "m"), x({graph_n}, "x");
  graph_load(m);
  ctl().attach(m);
  auto refused = [&](auto&& call, const std::string& what) {
    return throws_naming<ctrl::UsageError>([&] { (void)ctl().record([&] { call(); }); },
                                           {what, ctl().name(), "while it records a graph"});
  };
  EXPECT_TRUE(refused([&] { ctl().attach(x); }, "attach of tile 'x'"));
  EXPECT_TRUE(refused([&] { ctl().detach(m); }, "detach of tile 'm'"));
  EXPECT_TRUE(refused([&] { ctl().wait(); }, "wait"));
  EXPECT_TRUE(refused([&] { ctl().update_host(m, 0, 1); }, "update_host of tile 'm'"));
  EXPECT_TRUE(refused([&] { ctl().replay(ctrl::Graph{}); }, "replay"));
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { (void)ctl().record([&] { (void)ctl().record([] {}); }); },
                                              {"record on controller " + ctl().name(), "already recording"}));
  // Each refusal ended its recording: the controller launches again, and m was never moved.
  ctrl::Tile<u32, 1> one({1}, "one");
  ctl().attach(one);
  ctl().launch<GraphWritesOne>(ctrl::Threads(1), one);
  ctl().wait();
  ctl().detach(m, one);
  EXPECT_EQ(one(0), 1U);
  EXPECT_TRUE(graph_holds(m, graph_start()));
}

TEST_P(GraphsTest, EmptyGraphsReplayNothing) {
  const ctrl::Graph none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.controller(), "");
  ctl().replay(none, 10);
  const ctrl::Graph nothing = ctl().record([] {});
  EXPECT_TRUE(nothing.empty());
  ctl().replay(nothing, 3);
  ctl().wait();
}

CTRL_INSTANTIATE_DEVICE_TESTS(GraphsTest);

}  // namespace
