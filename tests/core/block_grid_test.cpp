// The CPU kinds' block split (src/cpu/block_grid.hpp) for worker counts this machine lacks: static
// grids give at most one block per worker, cover the space exactly once, cut the dimension that
// has the work, keep whole-row blocks (as split_range) when rows suffice, and keep the largest
// block within 1/8 of the best grid's; chunk grids give about 16 chunks per worker.
#include "block_grid.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace {

using ctrl::index_t;
using ctrl::Threads;
using ctrl::detail::BlockGrid;
using ctrl::detail::chunk_grid;
using ctrl::detail::static_grid;

const std::vector<Threads> spaces = {
    Threads(1),       Threads(5),       Threads(1000),  Threads(1, 1000),  Threads(1000, 1), Threads(1, 1, 1000),
    Threads(3, 1001), Threads(7, 13),   Threads(33, 3), Threads(5, 1, 97), Threads(2, 3, 5), Threads(1, 3, 1001),
    Threads(64, 64),  Threads(9, 9, 9), Threads(1, 1),  Threads(1, 1, 1),  Threads(2, 1, 2)};
const std::vector<int> worker_counts = {1, 2, 3, 4, 5, 7, 8, 16, 24, 64};

// Every element of the space lies in exactly one block; returns the largest block's size.
index_t expect_exact_cover(const BlockGrid& g, int workers) {
  const Threads& s = g.space;
  std::vector<int> hits(static_cast<std::size_t>(s.size()), 0);
  index_t largest = 0;
  for (index_t i = 0; i < g.count(); ++i) {
    const ctrl::CpuBlock b = g.block(i, 0, workers);
    EXPECT_GT(b.size(), 0) << "block " << i << " of " << s.str() << " is empty";
    largest = std::max(largest, b.size());
    for (index_t x : b.x)
      for (index_t y : b.y)
        for (index_t z : b.z) ++hits[static_cast<std::size_t>((x * s.y() + y) * s.z() + z)];
  }
  for (std::size_t e = 0; e < hits.size(); ++e) EXPECT_EQ(hits[e], 1) << "element " << e << " of " << s.str();
  return largest;
}

// The oracle: the smallest largest-block over every grid of at most `workers` blocks.
index_t best_largest(const Threads& s, index_t w) {
  auto cd = [](index_t a, index_t b) { return (a + b - 1) / b; };
  index_t best = s.size();
  for (index_t px = 1; px <= std::min(s.x(), w); ++px)
    for (index_t py = 1; py <= std::min(s.y(), w / px); ++py)
      for (index_t pz = 1; pz <= std::min(s.z(), w / (px * py)); ++pz)
        best = std::min(best, cd(s.x(), px) * cd(s.y(), py) * cd(s.z(), pz));
  return best;
}

TEST(BlockGrid, StaticBlocksCoverOnceAtMostOnePerWorkerWithin1Of8OfTheBest) {
  for (const Threads& s : spaces)
    for (int w : worker_counts) {
      SCOPED_TRACE(s.str() + " on " + std::to_string(w) + " workers");
      const BlockGrid g = static_grid(s, w);
      EXPECT_LE(g.count(), w);
      const index_t largest = expect_exact_cover(g, w);
      EXPECT_LE(largest * 8, best_largest(s, w) * 9);
    }
}

TEST(BlockGrid, StaticBlocksCutTheDimensionThatHasTheWork) {
  for (int w : {2, 4, 16}) {
    EXPECT_EQ(static_grid(Threads(1, 1000), w).parts[1], w);
    EXPECT_EQ(static_grid(Threads(1000, 1), w).parts[0], w);
    EXPECT_EQ(static_grid(Threads(1, 1, 1000), w).parts[2], w);
    EXPECT_EQ(static_grid(Threads(1, 1, 1000), w).count(), w);
  }
  // 3 rows on 4 workers: 4 column blocks (3/4 of a row each) beat 3 row blocks (a row each).
  const BlockGrid g = static_grid(Threads(3, 1000), 4);
  EXPECT_EQ(g.parts[0], 1);
  EXPECT_EQ(g.parts[1], 4);
  // A tie keeps whole rows.
  EXPECT_EQ(static_grid(Threads(1000, 1000), 3).parts[0], 3);
  EXPECT_EQ(static_grid(Threads(1000, 1000), 3).parts[1], 1);
}

TEST(BlockGrid, StaticBlocksAreSplitRangeRowsWhenRowsSuffice) {
  for (int w : {1, 2, 3, 8, 12}) {
    const Threads s(101, 7);
    const BlockGrid g = static_grid(s, w);
    ASSERT_EQ(g.count(), w);
    for (int i = 0; i < w; ++i) {
      index_t b = 0, e = 0;
      ctrl::split_range(s.x(), w, i, b, e);
      const ctrl::CpuBlock blk = g.block(i, i, w);
      EXPECT_EQ(blk.x.lo, b);
      EXPECT_EQ(blk.x.hi, e);
      EXPECT_EQ(blk.y.lo, 0);
      EXPECT_EQ(blk.y.hi, 7);
      EXPECT_EQ(blk.worker, i);
      EXPECT_EQ(blk.workers, w);
    }
  }
}

TEST(BlockGrid, ChunksCoverOnceAndNumberAbout16PerWorker) {
  for (const Threads& s : spaces)
    for (int w : worker_counts) {
      SCOPED_TRACE(s.str() + " on " + std::to_string(w) + " workers");
      const BlockGrid g = chunk_grid(s, w);
      const index_t want = index_t{16} * w;
      EXPECT_GE(g.count(), std::min(want, s.size()));
      EXPECT_LT(g.count(), 2 * want);
      expect_exact_cover(g, w);
    }
  // Whole rows while there are rows enough.
  const BlockGrid rows = chunk_grid(Threads(1000, 50), 4);
  EXPECT_EQ(rows.parts[0], 64);
  EXPECT_EQ(rows.parts[1], 1);
}

TEST(BlockGrid, EmptySpacesHaveNoBlocks) {
  for (const Threads& s : {Threads(0), Threads(0, 5), Threads(5, 0), Threads(4, 4, 0)})
    for (int w : {1, 2, 16}) {
      EXPECT_EQ(static_grid(s, w).count(), 0) << s.str();
      EXPECT_EQ(chunk_grid(s, w).count(), 0) << s.str();
    }
}

TEST(BlockGrid, BlocksUseTheirRanges) {
  const ctrl::CpuBlock b = static_grid(Threads(1, 10), 2).block(1, 1, 2);
  EXPECT_EQ(b.size(), 5);
  EXPECT_TRUE(b.contains(ctrl::Thread{0, 7, 0}));
  EXPECT_FALSE(b.contains(ctrl::Thread{0, 2, 0}));
  EXPECT_EQ(b.range(1).lo, 5);
  index_t sum = 0;
  for (index_t y : b.y) sum += y;
  EXPECT_EQ(sum, 5 + 6 + 7 + 8 + 9);
  for (index_t i : ctrl::IndexRange{4, 2}) ADD_FAILURE() << "an inverted range yielded " << i;
}

}  // namespace
