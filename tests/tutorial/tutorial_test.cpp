// docs/tutorial.md's code, run: the regions between "// tutorial: NAME" and "// tutorial end" are
// what the tutorial quotes (quotes.cmake); the checks around them are the suite's.
#include <ctrl/ctrl.hpp>
#include <ctrl/io/npy.hpp>
#include <ctrl/loop.hpp>

#include "scratch_dir.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

// tutorial: kernels
// y = a x: x is read (In), y written whole (Out).
struct Scale {
  static constexpr const char* name = "scale";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<float, 1> y, ctrl::In<float, 1> x, float a) const {
    y(t.x) = a * x(t.x);
  }
};

// sum += y: read and written (InOut).
struct Accumulate {
  static constexpr const char* name = "accumulate";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<float, 1> sum, ctrl::In<float, 1> y) const {
    sum(t.x) += y(t.x);
  }
};
// tutorial end

// tutorial: stencil_kernels
// to = from, element by element.
struct Copy {
  static constexpr const char* name = "copy";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<float, 2> to, ctrl::In<float, 2> from) const {
    to(t.x, t.y) = from(t.x, t.y);
  }
};

// One sweep of a vertical smoothing over rows 1 .. rows - 2 of the tile: each becomes the mean of
// itself and the rows above and below it, as they were before the sweep.
struct Smooth {
  static constexpr const char* name = "smooth";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<float, 2> u, ctrl::In<float, 2> before) const {
    const ctrl::index_t i = t.x + 1, j = t.y;
    u(i, j) = (before(i - 1, j) + before(i, j) + before(i + 1, j)) / 3.0F;
  }
};
// tutorial end

TEST(Tutorial, RolesDecideWhatMoves) {
  // tutorial: roles
  const ctrl::index_t n = 1 << 20;
  ctrl::Tile<float, 1> x({n}, "x"), sum({n}, "sum");
  x.fill(1.0F);
  sum.fill(0.0F);
  ctrl::Tile<float, 1> y({n}, ctrl::shape_only, "y");  // in the device's memory only

  ctrl::Controller dev{"offload:0"};  // a CPU core with a memory of its own: it copies as a GPU does
  dev.attach(x, sum);                 // the host keeps its hands off x and sum until detach
  dev.create_internal(y);
  for (int k = 0; k < 3; ++k) {
    dev.launch<Scale>(ctrl::Threads(n), y, x, 2.0F);  // queued; returns at once
    dev.launch<Accumulate>(ctrl::Threads(n), sum, y);
  }
  dev.detach(x, sum);  // waits for the launches; sum comes home, x (only read) does not
  dev.destroy_internal(y);
  const ctrl::TransferStats moved = dev.transfers();
  std::printf("in: %llu copies, out: %llu; sum[0] = %g\n", static_cast<unsigned long long>(moved.copies_in),
              static_cast<unsigned long long>(moved.copies_out), static_cast<double>(sum.data()[0]));
  // tutorial end
  EXPECT_EQ(moved.copies_in, 2U);  // x and sum, once each, for six launches
  EXPECT_EQ(moved.bytes_in, 2U * n * sizeof(float));
  EXPECT_EQ(moved.copies_out, 1U);  // sum
  EXPECT_EQ(moved.bytes_out, n * sizeof(float));
  for (const float v : sum.elements()) ASSERT_EQ(v, 6.0F);
}

TEST(Tutorial, AStencilSplitGivesTheOneControllerResult) {
  const ctrl::test::ScratchDir dir("ctrl-tutorial");
  const std::string split_file = (dir / "split.npy").string(), one_file = (dir / "one.npy").string();
  // tutorial: stencil
  using namespace ctrl::loop;
  const int sweeps = 20;
  Divisible smooth("smooth", "vertical smoothing sweeps, halos exchanged after each", 64);
  const auto u0 = smooth.input<float>("u0", {Rows, N}, random_values<float>(0, 1));
  const auto u = smooth.output<float>("u", {Rows, N});
  const auto before = smooth.scratch<float>("before", {Rows, N});
  for (auto a : {u0, u, before}) smooth.halo(a, 1);  // one row of each neighbour's in every tile
  smooth.compute([=](BlockRun& r) {
    // The tiles hold the block and a halo row on each side (none at the matrix's first and last
    // rows, which stay fixed): the sweep's rows 1 .. rows - 2 of the tile are the block's own.
    const ctrl::index_t rows = r[u].extent(0), n = r.cols();
    r.launch<Copy>(ctrl::Threads(rows, n), r[u], r[u0]);
    for (int s = 0; s < sweeps; ++s) {
      r.launch<Copy>(ctrl::Threads(rows, n), r[before], r[u]);
      if (rows > 2) r.launch<Smooth>(ctrl::Threads(rows - 2, n), r[u], r[before]);
      if (s + 1 < sweeps) r.exchange(u);  // the neighbours' new edge rows into this block's halo
    }
  });
  // tutorial end
  // tutorial: split
  Team team({ctrl::parse_device("cpu:0"), ctrl::parse_device("offload:1")});
  RunRequest run;
  run.rows = {100, 156};  // processor i's rows, in the team's order: 256 in all
  run.output = split_file;
  const RunOutcome outcome = run_distribution(smooth, run, team);
  for (const ProcessorRun& p : outcome.processors)
    std::printf("%-10s %4lld rows %8.3f ms\n", p.name.c_str(), static_cast<long long>(p.rows), 1e3 * p.time.mean);
  // tutorial end
  ASSERT_TRUE(outcome.output_written);
  Team alone({ctrl::parse_device("cpu:0")});
  RunRequest whole;
  whole.rows = {256};
  whole.output = one_file;
  ASSERT_TRUE(run_distribution(smooth, whole, alone).output_written);
  const auto a = ctrl::npy::load<float>(split_file), b = ctrl::npy::load<float>(one_file);
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.data, b.data);  // the same floating-point operations, element by element
}

}  // namespace
