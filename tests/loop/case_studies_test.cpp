// Every case study on the loop: a distribution over 2 and 3 controllers (blocks of 0 and 1 rows
// among them, kinds mixed) gives the one-controller result byte for byte, and passes its check;
// jacobi's halos move only their rows (the transfer counters); a block's failure in a halo
// exchange ends the round instead of hanging it; the Divisible description refuses misuse.
#include "catalog/catalog.hpp"
#include "run_together.hpp"

#include <ctrl/loop/divisible.hpp>
#include <ctrl/loop/workload.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace ctrl::loop {
namespace {

using testing::run_together;

std::vector<std::unique_ptr<Controller>> controllers(const std::vector<std::string>& devices) {
  std::vector<std::unique_ptr<Controller>> out;
  for (const auto& d : devices) out.push_back(std::make_unique<Controller>(d));
  return out;
}

// A kernel that copies `in` into `out`; for the description tests.
struct Fill {
  static constexpr const char* name = "fill";
  CTRL_HOST_DEVICE void operator()(Thread t, Out<float, 2> out, In<float, 2> in) const { out(t.x, t.y) = in(t.x, t.y); }
};

// A distribution's saved output and what each controller moved.
struct Ran {
  std::vector<std::byte> out;
  std::vector<TransferStats> moved;
};
Ran run_on(const Workload& app, index_t cols, const std::vector<std::string>& devices,
           const std::vector<index_t>& rows) {
  index_t m = 0;
  for (const index_t x : rows) m += x;
  auto problem = app.make_problem(m, cols, devices.size(), 7);
  auto ctls = controllers(devices);
  const auto blocks = consecutive_blocks(rows);
  run_together(*problem, ctls, blocks);
  const Check check = problem->verify(blocks);
  EXPECT_TRUE(check.ok) << app.name() << ": " << check.detail;
  Ran r;
  const auto bytes = problem->output_bytes({0, m});
  r.out.assign(bytes.begin(), bytes.end());
  if (problem->dealing() > 0 && m > 0)  // rows dealt: put in the instance's order, as `ctrl run --output` writes them
    r.out = in_instance_order(r.out, r.out.size() / static_cast<std::size_t>(m), dealt_rows(rows, problem->dealing()));
  for (const auto& c : ctls) r.moved.push_back(c->transfers());
  return r;
}

// The saved output of a distribution of `rows` (the instance is their sum), checked.
std::vector<std::byte> run_distribution(const Workload& app, index_t cols, const std::vector<std::string>& devices,
                                        const std::vector<index_t>& rows) {
  return run_on(app, cols, devices, rows).out;
}

struct Case {
  std::string app;
  index_t rows, cols;
  bool exact = true;  // false: a library sums in another order for other row counts (OpenBLAS)
};

class CaseStudy : public ::testing::TestWithParam<Case> {};

TEST_P(CaseStudy, AnyDistributionGivesTheOneControllerResult) {
  const Case& c = GetParam();
  const Workload& app = apps::catalog().find(c.app);
  const auto one = run_distribution(app, c.cols, {"cpu:0"}, {c.rows});  // each run passes its check
  const index_t r = c.rows;
  const std::vector<std::pair<std::vector<std::string>, std::vector<index_t>>> splits{
      {{"cpu:0", "offload:1"}, {r / 2, r - r / 2}},
      {{"offload:0", "cpu:1"}, {1, r - 1}},
      {{"cpu:0", "cpu:1", "offload:0-1"}, {r / 3, 1, r - r / 3 - 1}},
      {{"cpu:0", "offload:1", "cpu:1"}, {0, r - 1, 1}},
      {{"offload:0", "cpu:0", "cpu:1"}, {r - 2, 0, 2}},
  };
  for (const auto& [devices, rows] : splits) {
    SCOPED_TRACE(::testing::Message() << rows[0] << " + " << rows[1] << (rows.size() > 2 ? " + ..." : ""));
    const auto result = run_distribution(app, c.cols, devices, rows);
    if (c.exact) {
      EXPECT_EQ(result, one);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Loop, CaseStudy,
                         ::testing::Values(Case{"matadd", 29, 17}, Case{"blackscholes", 301, 1},
                                           Case{"matmul", 23, 19, false}, Case{"recurrence", 27, 13},
                                           Case{"jacobi", 31, 21}, Case{"jacobi", 5, 4}, Case{"mandelbrot", 37, 23}),
                         [](const auto& p) { return p.param.app + "_" + std::to_string(p.index); });

TEST(CaseStudy, TheCatalogListsEveryApplication) {
  const auto names = apps::catalog().names();
  for (const char* n : {"dgemm", "fft2d", "matadd", "blackscholes", "matmul", "jacobi", "recurrence", "mandelbrot"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  EXPECT_THROW(apps::catalog().find("mandelbrot2"), UsageError);
}

// Parameters: the catalog makes an application from their values; the values reach the kernels
// (fewer sweeps, another result), distributed runs still give the one-controller result, and the
// identity names what differs from the defaults.
TEST(CaseStudy, ParametersMakeAnotherWorkloadWithItsOwnIdentity) {
  const Catalog& cat = apps::catalog();
  Settings s = cat.defaults("jacobi");
  ASSERT_EQ(s.parameters().size(), 1U);
  EXPECT_EQ(s["iterations"], 100);
  EXPECT_EQ(s.text(), "");
  EXPECT_EQ(cat.make("jacobi", s).get(), &cat.find("jacobi"));  // the defaults: the catalog's own
  EXPECT_EQ(cat.find("jacobi").identity(), "jacobi");
  s.set("iterations", 3);
  EXPECT_EQ(s.integer("iterations"), 3);
  EXPECT_EQ(s.text(), "iterations=3");
  const auto three = cat.make("jacobi", s);
  EXPECT_EQ(three->identity(), "jacobi iterations=3");
  EXPECT_NE(three->summary(8).find("3 Jacobi sweeps"), std::string::npos) << three->summary(8);
  EXPECT_DOUBLE_EQ(three->flops(2, 5), 4.0 * 3 * 2 * 5);

  const auto one = run_distribution(*three, 12, {"cpu:0"}, {17});
  EXPECT_EQ(run_distribution(*three, 12, {"cpu:0", "offload:1", "cpu:1"}, {6, 1, 10}), one);
  EXPECT_NE(run_distribution(cat.find("jacobi"), 12, {"cpu:0"}, {17}), one);

  Settings bs = cat.defaults("blackscholes");
  bs.set("riskfree", 0.05).set("volatility", 0.2);
  EXPECT_EQ(cat.make("blackscholes", bs)->identity(), "blackscholes riskfree=0.05 volatility=0.2");
  EXPECT_NE(run_distribution(*cat.make("blackscholes", bs), 1, {"cpu:0"}, {40}),
            run_distribution(cat.find("blackscholes"), 1, {"cpu:0"}, {40}));

  EXPECT_THROW(s.set("volatility", 1), UsageError);  // not jacobi's
  EXPECT_THROW(s.set("iterations", 1.5), UsageError);
  EXPECT_THROW(s.set("iterations", -1), UsageError);
  EXPECT_THROW(bs.set("volatility", 0), UsageError);  // bound exclusive
  EXPECT_THROW(bs.set("riskfree", std::numeric_limits<double>::infinity()), UsageError);
  EXPECT_THROW((void)cat.make("blackscholes", s), UsageError);  // jacobi's settings
  EXPECT_THROW((void)cat.defaults("dgemm")["iterations"], UsageError);
  EXPECT_EQ(cat.defaults("dgemm").parameters().size(), 0U);
}

// A user's catalog: a parameter's name must be usable as an option, once; a default must be allowed.
TEST(CaseStudy, ACatalogRefusesBadParameters) {
  const auto make = [](const Settings&) { return std::unique_ptr<Workload>(); };
  Catalog c;
  EXPECT_THROW(c.add({{.name = "two words", .help = ""}}, make), UsageError);
  EXPECT_THROW(c.add({{.name = "k", .help = ""}, {.name = "k", .help = ""}}, make), UsageError);
  EXPECT_THROW(c.add({{.name = "k", .help = ""}}, make), UsageError);  // made nothing
  const auto fill = [](const Settings& s) {
    auto d = std::make_unique<Divisible>("filled", "fill " + std::to_string(s.integer("k")));
    const auto in = d->input<float>("in", {Rows, N});
    const auto out = d->output<float>("out", {Rows, N});
    d->compute([=](BlockRun& r) { r.launch<Fill>(Threads(r.rows(), r.cols()), r[out], r[in]); });
    return std::unique_ptr<Workload>(std::move(d));
  };
  EXPECT_THROW(c.add({{.name = "k", .help = "", .value = -1, .integer = true, .min = 0}}, fill), UsageError);
  c.add({{.name = "k", .help = "", .value = 2, .integer = true, .min = 0}}, fill);
  EXPECT_EQ(c.names(), std::vector<std::string>{"filled"});
  EXPECT_THROW(c.add({{.name = "k", .help = "", .value = 2, .integer = true}}, fill), UsageError);  // the name again
}

// With a GPU (the H200 machine): the generic kernels and cuBLAS beside CPU groups.
TEST(CaseStudy, WithAGpuEveryDistributionGivesTheOneControllerResult) {
  try {
    Controller probe("cuda:0");
  } catch (const std::exception& e) {
    GTEST_SKIP() << "no cuda:0 here: " << e.what();
  }
  // matadd and jacobi: the same float operations on every kind, so the same bytes. The others
  // pass their checks: the GPU's expf, logf and divisions round differently (blackscholes,
  // recurrence), cuBLAS sums in another order than OpenBLAS (matmul), a fused multiply-add changes
  // escape times on the set's boundary (mandelbrot).
  for (const char* name : {"matadd", "jacobi", "blackscholes", "recurrence", "matmul", "mandelbrot"}) {
    SCOPED_TRACE(name);
    const bool exact = std::string(name) == "matadd" || std::string(name) == "jacobi";
    const Workload& app = apps::catalog().find(name);
    const auto one = run_distribution(app, 33, {"cpu:0"}, {41});
    const auto gpu = run_distribution(app, 33, {"cuda:0"}, {41});
    const auto two = run_distribution(app, 33, {"cpu:0", "cuda:0"}, {20, 21});
    const auto three = run_distribution(app, 33, {"cpu:0", "offload:1", "cuda:0"}, {1, 19, 21});
    if (exact) {
      EXPECT_EQ(gpu, one);
      EXPECT_EQ(two, one);
      EXPECT_EQ(three, one);
    }
  }
}

// The profile's rounds run each block alone: a halo keeps its values, and the check knows it.
TEST(Halo, BlocksRunAloneAreCheckedAsAlone) {
  const Workload& app = apps::catalog().find("jacobi");
  auto problem = app.make_problem(40, 12, 2, 3);
  auto ctls = controllers({"cpu:0", "offload:1"});
  const std::vector<Block> blocks{{0, 15}, {20, 33}};  // as the profile lays them out: gaps between
  run_together(*problem, ctls, blocks, false);
  const Check check = problem->verify(blocks);
  EXPECT_TRUE(check.ok) << check.detail;
  EXPECT_EQ(check.rows_checked, 28U);
  // The same blocks checked as one execution of a distribution fail: their halos never moved.
  problem->prepare_round(blocks, true);
  EXPECT_FALSE(problem->verify(blocks).ok);
}

TEST(Halo, OnlyTheHaloRowsMove) {
  const Workload& app = apps::catalog().find("jacobi");
  const index_t cols = 16, rows = 30;
  auto problem = app.make_problem(rows, cols, 3, 5);
  auto ctls = controllers({"cpu:0", "offload:1", "cpu:1"});
  const std::vector<Block> blocks{{0, 10}, {10, 22}, {22, 30}};
  run_together(*problem, ctls, blocks);
  EXPECT_TRUE(problem->verify(blocks).ok);
  const TransferStats t = ctls[1]->transfers();
  const std::uint64_t row = cols * sizeof(float), block = 12 + 2;  // its rows and a halo row either side
  const std::uint64_t exchanges = 99;                              // after every sweep but the last
  // In: m's tile once, then the two halo rows of `out` at every exchange.
  EXPECT_EQ(t.bytes_in, block * row + exchanges * 2 * row);
  EXPECT_EQ(t.copies_in, 1 + exchanges * 2);
  // Out: its first and last rows at every exchange, then out's tile at the end.
  EXPECT_EQ(t.bytes_out, exchanges * 2 * row + block * row);
  EXPECT_EQ(t.copies_out, exchanges * 2 + 1);
  // Between a CPU group and the offload's memory through the host: no direct copy.
  EXPECT_EQ(t.bytes_peer, 0U);
  // A CPU group shares the host's memory: nothing moves.
  EXPECT_EQ(ctls[0]->transfers(), TransferStats{});
}

// With a GPU: two controllers of cuda:0 take their neighbours' halos straight from each other's
// images (copies within the GPU, counted as peer copies); beside CPU groups the GPU's halo rows go
// through the host, as many as before. The bytes are those of one CPU controller.
TEST(Halo, ControllersOfOneGpuTakeTheirHalosDirectly) {
  try {
    Controller probe("cuda:0");
  } catch (const std::exception& e) {
    GTEST_SKIP() << "needs a GPU (cuda:0): " << e.what();
  }
  const Workload& jacobi = apps::catalog().find("jacobi");
  const index_t cols = 16;
  const std::uint64_t row = cols * sizeof(float), tile = 12 + 2, exchanges = 99;
  const auto one = run_on(jacobi, cols, {"cpu:0"}, {30}).out;
  const Ran gpus = run_on(jacobi, cols, {"cuda:0", "cuda:0", "cuda:0"}, {10, 12, 8});
  EXPECT_EQ(gpus.out, one);
  EXPECT_EQ(gpus.moved[1], (TransferStats{tile * row, 1, tile * row, 1, exchanges * 2 * row, exchanges * 2}));
  const Ran mixed = run_on(jacobi, cols, {"cpu:0", "cuda:0", "cpu:1"}, {10, 12, 8});
  EXPECT_EQ(mixed.out, one);
  EXPECT_EQ(mixed.moved[1], (TransferStats{tile * row + exchanges * 2 * row, 1 + exchanges * 2,
                                           tile * row + exchanges * 2 * row, 1 + exchanges * 2, 0, 0}));
}

// A stencil that reaches 2 rows either way, in integers (the same bytes on every kind): each step
// brings the halo from the neighbours, then updates every row of the tile with 2 rows either side
// of it (the instance's first and last 2 rows stay as they were).
using u32 = std::uint32_t;
struct Reach2Copy {
  static constexpr const char* name = "reach2_copy";
  CTRL_HOST_DEVICE void operator()(Thread t, Out<u32, 2> to, In<u32, 2> from) const { to(t.x, t.y) = from(t.x, t.y); }
};
struct Reach2Update {
  static constexpr const char* name = "reach2_update";
  CTRL_HOST_DEVICE void operator()(Thread t, InOut<u32, 2> out, In<u32, 2> c) const {
    const index_t i = t.x + 2, j = t.y;
    out(i, j) = c(i - 2, j) + 3U * c(i - 1, j) + 5U * c(i, j) + 7U * c(i + 1, j) + 11U * c(i + 2, j);
  }
};

std::unique_ptr<Divisible> reach2(int steps) {
  auto w = std::make_unique<Divisible>("reach2", "a stencil of 2 rows either way, in integers");
  const auto out = w->output<u32>("out", {Rows, N}, [](index_t row, index_t k, std::uint64_t seed) {
    return static_cast<u32>(seed) ^ static_cast<u32>(row * 7919 + k * 104729);
  });
  const auto copy = w->scratch<u32>("copy", {Rows, N});
  w->halo(out, 2);
  w->halo(copy, 2);
  w->compute([=](BlockRun& r) {
    const index_t rows = r[out].extent(0), n = r.cols();
    for (int k = 0; k < steps; ++k) {
      r.exchange(out);
      if (rows <= 4) continue;
      r.launch<Reach2Copy>(Threads(rows, n), r[copy], r[out]);
      r.launch<Reach2Update>(Threads(rows - 4, n), r[out], r[copy]);
    }
  });
  return w;
}

// Neighbours on controllers whose memories reach each other take their halos straight from each
// other's tiles: two CPU groups (a memcpy, nothing counted), three offload controllers (a copy
// between their images, counted as peer copies; only the tiles themselves cross the host's
// boundary). The bytes are those of one controller, for halos of 1 and 2 rows.
TEST(Halo, NeighboursThatReachEachOtherTakeTheirHalosDirectly) {
  const Workload& jacobi = apps::catalog().find("jacobi");
  const auto wide = reach2(9);
  const index_t cols = 16;
  const std::uint64_t row = cols * 4;
  for (const Workload* app : {&jacobi, static_cast<const Workload*>(wide.get())}) {
    SCOPED_TRACE(app->name());
    const auto one = run_on(*app, cols, {"cpu:0"}, {30}).out;
    EXPECT_EQ(run_on(*app, cols, {"cpu:0", "cpu:1"}, {13, 17}).out, one);
    EXPECT_EQ(run_on(*app, cols, {"cpu:0", "cpu:1", "cpu:0"}, {2, 26, 2}).out, one);
    EXPECT_EQ(run_on(*app, cols, {"offload:0", "offload:1"}, {2, 28}).out, one);
    const Ran three = run_on(*app, cols, {"offload:0", "offload:1", "offload:0-1"}, {10, 12, 8});
    EXPECT_EQ(three.out, one);
    const TransferStats& mid = three.moved[1];
    const bool is_jacobi = app == &jacobi;
    const std::uint64_t h = is_jacobi ? 1 : 2, tile = 12 + 2 * h;
    // jacobi exchanges after every sweep but the last, its image in use from the first launch;
    // reach2 before every step, the first one between host memories (no image in use yet).
    const std::uint64_t peer_exchanges = is_jacobi ? 99 : 9 - 1;
    EXPECT_EQ(mid.bytes_peer, peer_exchanges * 2 * h * row);
    EXPECT_EQ(mid.copies_peer, peer_exchanges * 2);
    EXPECT_EQ(mid.bytes_in, tile * row);  // jacobi's m, reach2's out: the tile, once
    EXPECT_EQ(mid.copies_in, 1U);
    EXPECT_EQ(mid.bytes_out, tile * row);  // out's tile at the end
    EXPECT_EQ(mid.copies_out, 1U);
    EXPECT_EQ(three.moved[0].bytes_peer, peer_exchanges * h * row);  // one neighbour
  }
}

TEST(Halo, ABlockSmallerThanTheHaloIsRefusedInARun) {
  Divisible w("wide", "a halo of 2 rows");
  const auto in = w.input<float>("in", {Rows, N});
  const auto out = w.output<float>("out", {Rows, N});
  w.halo(out, 2);
  w.compute([=](BlockRun& r) { r.launch<Fill>(Threads(r[out].extent(0), r.cols()), r[out], r[in]); });
  auto problem = w.make_problem(6, 4, 2, 1);
  try {
    problem->prepare_round({{0, 5}, {5, 6}}, true);
    FAIL() << "a block of 1 row beside a halo of 2 was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("smaller than the halo of 'out'"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(problem->prepare_round({{0, 5}, {5, 6}}, false));  // alone, nothing reaches past it
}

TEST(Halo, AFailingBlockEndsTheRoundInsteadOfHangingIt) {
  Divisible w("failing", "slot 1 fails before its first exchange");
  const auto in = w.input<float>("in", {Rows, N});
  const auto out = w.output<float>("out", {Rows, N});
  w.halo(in, 1);
  w.halo(out, 1);
  w.compute([=](BlockRun& r) {
    r.launch<Fill>(Threads(r[out].extent(0), r.cols()), r[out], r[in]);
    if (r.block().begin == 4) throw DeviceError("the device of the second block failed");
    for (int i = 0; i < 3; ++i) r.exchange(out);
  });
  auto problem = w.make_problem(12, 4, 3, 1);
  auto ctls = controllers({"cpu:0", "offload:1", "cpu:1"});
  EXPECT_THROW(run_together(*problem, ctls, {{0, 4}, {4, 8}, {8, 12}}), DeviceError);
  // The controllers are usable again, and so is the problem.
  for (auto& c : ctls) EXPECT_NO_THROW(c->wait());
}

TEST(Divisible, RefusesMisuseNamingTheArray) {
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  Divisible w("d", "description tests");
  (void)w.input<float>("in", {Rows, N});
  const auto whole = w.input<float>("whole", {N, 3});
  EXPECT_NE(message([&] { w.input<float>("in", {Rows}); }).find("'in': an array of this name"), std::string::npos);
  EXPECT_NE(message([&] {
              w.input<float>("late", {N, Rows});
            }).find("Rows (the split dimension) must be the first"),
            std::string::npos);
  EXPECT_NE(message([&] { w.output<float>("o", {N}); }).find("output arrays are split by rows"), std::string::npos);
  EXPECT_NE(message([&] { w.halo(whole, 1); }).find("'whole' is whole"), std::string::npos);
  EXPECT_NE(message([&] { w.input<float>("neg", {Rows, -2}); }).find("extent 1 is negative"), std::string::npos);
  EXPECT_NE(message([] { Divisible bad("a b", "spaces"); }).find("not a valid name"), std::string::npos);
  // No compute function: refused when a problem is made, naming the workload.
  EXPECT_NE(message([&] { w.make_problem(4, 4, 1, 1); }).find("Divisible 'd': no compute function"), std::string::npos);
  // Sizes are checked before anything is allocated.
  w.compute([](BlockRun&) {});
  EXPECT_NE(message([&] { w.make_problem(index_t{1} << 62, 1 << 20, 1, 1); }).find("d's in"), std::string::npos);
  // An exchange of an input is refused.
  Divisible x("x", "exchange of an input");
  const auto xin = x.input<float>("xin", {Rows, N});
  x.halo(xin, 1);
  x.compute([=](BlockRun& r) { r.exchange(xin); });
  auto p = x.make_problem(4, 4, 1, 1);
  Controller c("cpu:0");
  p->prepare_round({{0, 4}}, true);
  EXPECT_NE(message([&] { p->run_block(c, {0, 4}, 0); }).find("only outputs exchange halos"), std::string::npos);
}

// A kernel that writes each row's place and a copy of its input, for the dealing tests.
struct Placed {
  static constexpr const char* name = "placed";
  CTRL_HOST_DEVICE void operator()(Thread t, Out<float, 2> out, In<float, 2> in, In<std::int64_t, 1> place) const {
    out(t.x, t.y) = t.y == 0 ? static_cast<float>(place(t.x)) : in(t.x, t.y);
  }
};

// Rows dealt: each stored row computes the instance row it stands for; inputs hold that row's
// values; a profile's block alone is an instance of its own rows; any distribution, put in
// instance order, is the one-controller result.
TEST(Divisible, RowsDealtSampleTheWholeInstance) {
  Divisible w("dealt", "rows dealt");
  const auto in = w.input<float>("in", {Rows, N});
  const auto out = w.output<float>("out", {Rows, N});
  const auto place = w.deal("place");
  auto seen = std::make_shared<std::vector<index_t>>(3, -1);
  w.compute([=](BlockRun& r) {
    (*seen)[static_cast<std::size_t>(r.block().begin == 0 ? 0 : r.block().begin <= 4 ? 1 : 2)] = r.instance_rows();
    r.launch<Placed>(Threads(r.rows(), r.cols()), r[out], r[in], r[place]);
  });
  const auto one = run_distribution(w, 5, {"cpu:0"}, {12});
  const auto split = run_distribution(w, 5, {"cpu:0", "offload:1", "cpu:1"}, {3, 4, 5});
  EXPECT_EQ(split, one);
  EXPECT_EQ(*seen, (std::vector<index_t>{12, 12, 12}));
  // Stored in the processors' order: the places of 3 + 4 + 5 rows, as dealt_rows deals them.
  auto problem = w.make_problem(12, 5, 3, 7);
  auto ctls = controllers({"cpu:0", "cpu:1", "offload:0"});
  run_together(*problem, ctls, consecutive_blocks({3, 4, 5}));
  const auto bytes = problem->output_bytes({0, 12});
  const auto* f = reinterpret_cast<const float*>(bytes.data());
  const std::vector<index_t> places = dealt_rows({3, 4, 5}, 1);
  for (std::size_t i = 0; i < 12; ++i) EXPECT_EQ(f[i * 5], static_cast<float>(places[i])) << "stored row " << i;
  // Each block alone (a profile's round, gaps between them): an instance of its own rows.
  run_together(*problem, ctls, {{0, 3}, {4, 6}, {7, 12}}, false);
  const auto alone = problem->output_bytes({0, 12});
  const auto* g = reinterpret_cast<const float*>(alone.data());
  for (const auto& [b, n] : std::vector<std::pair<std::size_t, std::size_t>>{{0, 3}, {4, 2}, {7, 5}})
    for (std::size_t j = 0; j < n; ++j) EXPECT_EQ(g[(b + j) * 5], static_cast<float>(j)) << "row " << b + j;
  EXPECT_EQ(*seen, (std::vector<index_t>{3, 2, 5}));
  EXPECT_TRUE(problem->verify({{0, 3}, {4, 6}, {7, 12}}).ok);
}

TEST(Divisible, RowsDealtRefuseHalosAndChunksTheGranularityCannotHold) {
  Divisible w("d", "dealing misuse");
  const auto out = w.output<float>("out", {Rows, N});
  w.halo(out, 1);
  EXPECT_THROW(w.deal("place"), UsageError);  // a halo, then dealing
  Divisible v("v", "dealing misuse");
  const auto o = v.output<float>("out", {Rows, N});
  (void)v.deal("place", 2);
  EXPECT_THROW(v.deal("again"), UsageError);
  EXPECT_THROW(v.halo(o, 1), UsageError);
  v.compute([](BlockRun&) {});
  try {
    (void)v.make_problem(4, 4, 1, 1);  // granularity 1, chunks of 2
    ADD_FAILURE() << "made";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("rows dealt in chunks of 2 need a granularity"), std::string::npos)
        << e.what();
  }
  v.granularity(4);
  EXPECT_NO_THROW((void)v.make_problem(8, 4, 1, 1));
}

TEST(Divisible, InputsDependOnlyOnTheirPositionInTheInstance) {
  // A window of rows [5, 9) holds what the whole instance holds there.
  const Workload& app = apps::catalog().find("matadd");
  auto whole = app.make_problem(12, 7, 1, 9);
  auto window = app.make_problem(4, 7, 1, 9, 5);
  auto ctls = controllers({"cpu:0"});
  run_together(*whole, ctls, {{5, 9}});
  run_together(*window, ctls, {{5, 9}});
  const auto a = whole->output_bytes({5, 9}), b = window->output_bytes({5, 9});
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size()), 0);
}

// The tiles a block runs on carry the user's array names, so that every message about them (an
// unwritten Out tile, a transfer that failed, an allocation) names `acc`, not an anonymous tile.
TEST(Divisible, ABlocksTilesAreNamedAfterTheUsersArrays) {
  Divisible w("named", "tile names");
  const auto in = w.input<float>("in", {Rows, N});
  const auto acc = w.output<float>("acc", {Rows, N});
  const auto whole = w.input<float>("whole", {N, 2});
  const auto tmp = w.scratch<float>("tmp", {Rows, N});
  const auto halo = w.output<float>("halo", {Rows, N});
  w.halo(halo, 1);
  auto names = std::make_shared<std::vector<std::string>>();
  w.compute([=](BlockRun& r) {
    r.launch<Fill>(Threads(r.rows(), r.cols()), r[acc], r[in]);
    for (const std::string& n : {r[in].name(), r[acc].name(), r[whole].name(), r[tmp].name(), r[halo].name()})
      names->push_back(n);
  });
  auto problem = w.make_problem(8, 4, 1, 1);
  auto ctls = controllers({"cpu:0"});
  run_together(*problem, ctls, {{0, 8}});
  ASSERT_EQ(names->size(), 5U);
  for (std::size_t i = 0; i < names->size(); ++i) {
    const std::string expected = std::vector<std::string>{"in", "acc", "whole", "tmp", "halo"}[i];
    EXPECT_EQ((*names)[i].rfind(expected, 0), 0U) << (*names)[i];
    EXPECT_EQ((*names)[i].find("tile#"), std::string::npos) << (*names)[i];
  }
}

}  // namespace
}  // namespace ctrl::loop
