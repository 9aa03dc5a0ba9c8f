// How a CPU launch's index space is cut into blocks: the one place that decides it, for the static
// blocks of a regular kernel and the chunks of an irregular one (docs/model.md, "CPU execution").
// Pure and header-only, so that tests/core can check it for worker counts the test machine lacks.
#pragma once
#include <ctrl/cpu/context.hpp>
#include <ctrl/threads.hpp>

namespace ctrl::detail {

constexpr index_t ceil_div(index_t a, index_t b) { return (a + b - 1) / b; }

// Part p of [0, n) cut into `parts` contiguous ranges whose sizes differ by at most one (the
// ranges of split_range, so that a launch whose rows suffice is cut exactly like an OpenMP
// schedule(static) loop over its rows, which the native twins in apps/ rely on).
constexpr IndexRange part_of(index_t n, index_t parts, index_t p) {
  const index_t base = n / parts, extra = n % parts;
  const index_t lo = p * base + (p < extra ? p : extra);
  return {lo, lo + base + (p < extra ? 1 : 0)};
}

// parts[0] × parts[1] × parts[2] boxes over a space, numbered row-major over the grid: consecutive
// blocks are neighbours in memory, and a dynamic launch hands them out in that order.
struct BlockGrid {
  Threads space{0};
  index_t parts[3] = {1, 1, 1};

  constexpr index_t count() const { return space.empty() ? 0 : parts[0] * parts[1] * parts[2]; }

  constexpr CpuBlock block(index_t i, int worker, int workers) const {
    CpuBlock b;
    b.x = part_of(space.x(), parts[0], i / (parts[1] * parts[2]));
    b.y = part_of(space.y(), parts[1], i / parts[2] % parts[1]);
    b.z = part_of(space.z(), parts[2], i % parts[2]);
    b.space = space;
    b.worker = worker;
    b.workers = workers;
    return b;
  }
};

// Static blocks for a regular kernel: at most one per worker, so a launch costs one call per
// worker and nothing shared is touched while it runs. Equal costs per element make the largest
// block the launch's time, so the grid is chosen by that size, over every way of giving the
// workers px × py × pz blocks. Among the grids whose largest block is within 1/8 of the best, the
// one that cuts the outer dimensions most wins: a cut through an inner dimension makes every
// block a strided set of shorter rows (shorter innermost loops, and a cache line shared by two
// workers at every cut), which costs more than a slightly larger block. Hence Threads(n, m) with
// n ≥ 8 × workers keeps whole-row blocks, Threads(1, m) cuts columns, and Threads(3, m) on 4
// workers cuts columns into 4 (3 row blocks would idle one worker and give the others 1/3 each).
constexpr BlockGrid static_grid(const Threads& s, int workers) {
  BlockGrid g{s};
  const index_t w = workers;
  if (s.empty() || w <= 1) return g;
  if (s.x() >= 8 * w) {  // what the search below would choose, without the search
    g.parts[0] = w;
    return g;
  }
  // Every (px, py) with pz as large as the workers allow: a larger pz never makes blocks larger.
  auto largest = [&](index_t px, index_t py) {
    const index_t pz = s.z() < w / (px * py) ? s.z() : w / (px * py);
    return ceil_div(s.x(), px) * ceil_div(s.y(), py) * ceil_div(s.z(), pz);
  };
  const index_t max_px = s.x() < w ? s.x() : w;
  index_t best = s.size();
  for (index_t px = 1; px <= max_px; ++px)
    for (index_t py = 1; py <= s.y() && px * py <= w; ++py) best = largest(px, py) < best ? largest(px, py) : best;
  for (index_t px = max_px; px >= 1; --px) {
    for (index_t py = s.y() < w / px ? s.y() : w / px; py >= 1; --py) {
      if (largest(px, py) * 8 > best * 9) continue;
      const index_t pz_max = s.z() < w / (px * py) ? s.z() : w / (px * py);
      g.parts[0] = px;
      g.parts[1] = py;
      g.parts[2] = ceil_div(s.z(), ceil_div(s.z(), pz_max));  // no more z cuts than that size needs
      return g;
    }
  }
  return g;  // not reached: the best grid is within its own tolerance
}

// Chunks per worker of an irregular launch. Taking a chunk costs one atomic increment on a shared
// cache line and one call (well under a microsecond), so 16 per worker bound the whole overhead
// to about one launch's own cost (a few µs, bench/results/cpu-launch.md) whatever the space's size
// or the element's cost; the tail, the last chunk one worker still runs while the others are done,
// is then about 1/16 of a worker's share when chunks cost alike. Fewer chunks leave a longer tail;
// many more add overhead without shortening the tail much more.
inline constexpr int chunks_per_worker = 16;

// Chunks for an irregular kernel: about chunks_per_worker × workers boxes, handed out in order to
// whichever worker is free. The outer dimension is cut as far as it goes (whole rows, contiguous
// in memory), the next only when there are too few rows. Equal chunk sizes matter less here than
// for static blocks, since no worker waits for a given chunk: the chunks may differ by 2×.
constexpr BlockGrid chunk_grid(const Threads& s, int workers) {
  BlockGrid g{s};
  if (s.empty()) return g;
  index_t want = index_t{workers} * chunks_per_worker;
  for (int d = 0; d < 3 && want > 1; ++d) {
    g.parts[d] = s.extent(d) < want ? s.extent(d) : want;
    want = ceil_div(want, g.parts[d]);
  }
  return g;
}

}  // namespace ctrl::detail
