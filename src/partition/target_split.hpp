// Private: how each level's targets are split between the sweep's threads (pareto_dp.cpp).
#pragma once
#include "sweeper.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ctrl::partition::detail {

// Splits the targets [wlo, whi] between at most `threads` threads by their estimated work: the
// source points within reach of each target (at most the largest usable size below it), each a
// pass over the sizes, and the candidates it records, about as many as the points the target kept
// at the level before (`before`, the records still held), each weighted as half a pass. Thread t
// sweeps [cut[t], cut[t + 1]). With the sources alone, the thread of the low targets (whose
// fronts are the long ones) recorded 4 to 8 times the other's candidates on the p = 32, m = 2000
// instance: the busiest of two threads took 1.5 times the mean; with the records, 1.1 to 1.35.
// Two refinements were measured on 16 cores and not kept (bench/results/partition-processors.md,
// sessions 16 and 17): a finer price of each slice (4 % slower), and scaling each target's
// estimate by what its thread's CPU time said at the level before (no faster: the threads' times
// vary by up to half from level to level at random, which no estimate follows). The split does
// not change the front: a target's points depend only on the sources within reach.
inline std::vector<std::int32_t> split_targets(const Level& src, const std::vector<Item>& items,
                                               const std::vector<std::vector<Record>>& before, std::int32_t wlo,
                                               std::int32_t whi, unsigned threads) {
  const unsigned T = whi < wlo ? 1 : std::min<unsigned>(threads, static_cast<unsigned>(whi - wlo + 1));
  std::vector<std::int32_t> cut(T + 1, wlo);
  cut[T] = whi + 1;
  if (T == 1) return cut;
  const std::int32_t reach = largest_size(items);
  const double per_record = std::max(1.0, reach / 2.0);
  std::vector<double> work(static_cast<std::size_t>(whi - wlo) + 2, 0.0);  // cumulative
  for (std::int32_t w = wlo; w <= whi; ++w) {
    const auto below = src.offset[static_cast<std::size_t>(w) + 1],
               from = src.offset[static_cast<std::size_t>(std::max(0, w - reach))];
    const auto records = static_cast<double>(before[static_cast<std::size_t>(w)].size());
    work[static_cast<std::size_t>(w - wlo) + 1] =
        work[static_cast<std::size_t>(w - wlo)] + static_cast<double>(below - from) + per_record * records + 1.0;
  }
  unsigned t = 1;
  for (std::int32_t w = wlo; w <= whi && t < T; ++w)
    if (work[static_cast<std::size_t>(w - wlo) + 1] >= work.back() * t / T) cut[t++] = w + 1;
  for (; t < T; ++t) cut[t] = whi + 1;
  return cut;
}

}  // namespace ctrl::partition::detail
