// Private: how each level's targets are split between the sweep's threads (pareto_dp.cpp).
#pragma once
#include "sweeper.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace ctrl::partition::detail {

// Splits each level's targets between threads by their estimated work, corrected by what the
// threads' sweeps of the levels before cost. The estimate: the source points within reach of each
// target (at most the largest usable size below it), each a pass over the sizes, and the
// candidates it records, about as many as the points the target kept at the level before (the
// records still held), each weighted as half a pass. With the sources alone, the thread of the
// low targets (whose fronts are the long ones) recorded 4 to 8 times the other's candidates on the
// p = 32, m = 2000 instance: the busiest of two threads took 1.5 times the mean; with the records,
// 1.1 to 1.35. What the estimate misses (the cost of a pass depends on where the sweep stops it, a
// record's on the probes it is checked against, the caches on the thread's range) changes slowly
// from level to level, so each thread's CPU time scales the estimate of its targets for the next
// levels (a square root of the ratio, at most a factor of 2 a level, so that noise does not make
// it swing). A finer static price (each slice's events, passes, records and items fitted to the
// threads' CPU times) evened 2 to 4 threads a little but was 4 % slower on 16 cores
// (bench/results/partition-processors.md, session 16). The split does not change the front: a
// target's points depend only on the sources within reach, whichever thread sweeps it.
class TargetSplit {
 public:
  explicit TargetSplit(std::size_t targets) : scale_(targets, 1.0) {}

  // The cuts of [wlo, whi] between at most `threads` threads: thread t sweeps [cut[t], cut[t + 1]).
  std::vector<std::int32_t> cut(const Level& src, const std::vector<Item>& items,
                                const std::vector<std::vector<Record>>& before, std::int32_t wlo, std::int32_t whi,
                                unsigned threads) {
    const unsigned T = whi < wlo ? 1 : std::min<unsigned>(threads, static_cast<unsigned>(whi - wlo + 1));
    std::vector<std::int32_t> cut(T + 1, wlo);
    cut[T] = whi + 1;
    work_.clear();
    if (T == 1) return cut;
    wlo_ = wlo;
    const std::int32_t reach = largest_size(items);
    const double per_record = std::max(1.0, reach / 2.0);
    work_.assign(static_cast<std::size_t>(whi - wlo) + 2, 0.0);  // cumulative
    for (std::int32_t w = wlo; w <= whi; ++w) {
      const auto below = src.offset[static_cast<std::size_t>(w) + 1],
                 from = src.offset[static_cast<std::size_t>(std::max(0, w - reach))];
      const auto records = static_cast<double>(before[static_cast<std::size_t>(w)].size());
      const double estimate = static_cast<double>(below - from) + per_record * records + 1.0;
      work_[static_cast<std::size_t>(w - wlo) + 1] =
          work_[static_cast<std::size_t>(w - wlo)] + estimate * scale_[static_cast<std::size_t>(w)];
    }
    unsigned t = 1;
    for (std::int32_t w = wlo; w <= whi && t < T; ++w)
      if (work_[static_cast<std::size_t>(w - wlo) + 1] >= work_.back() * t / T) cut[t++] = w + 1;
    for (; t < T; ++t) cut[t] = whi + 1;
    return cut;
  }

  // What the threads' sweeps of the last cut cost (CPU seconds, by thread).
  void learn(const std::vector<std::int32_t>& cut, const std::vector<double>& seconds) {
    if (work_.empty()) return;
    const auto predicted = [&](std::size_t t) {
      return work_[static_cast<std::size_t>(cut[t + 1] - wlo_)] - work_[static_cast<std::size_t>(cut[t] - wlo_)];
    };
    double spent = 0.0;
    for (const double x : seconds) spent += x;
    const double estimated = work_.back();
    if (!(spent > 0.0) || !(estimated > 0.0)) return;
    std::vector<double> factor(seconds.size(), 1.0);
    double mean = 0.0;  // of the factors, weighted by the estimate: brought back to 1
    for (std::size_t t = 0; t < seconds.size(); ++t) {
      if (predicted(t) > 0.0 && seconds[t] > 0.0)
        factor[t] = std::clamp(std::sqrt((seconds[t] / spent) / (predicted(t) / estimated)), 0.5, 2.0);
      mean += factor[t] * predicted(t) / estimated;
    }
    for (std::size_t t = 0; t < seconds.size(); ++t)
      for (auto w = static_cast<std::size_t>(cut[t]); w < static_cast<std::size_t>(cut[t + 1]); ++w)
        scale_[w] = std::clamp(scale_[w] * factor[t] / mean, 1.0 / 64, 64.0);
  }

 private:
  std::vector<double> scale_;  // per target: what its work cost against its estimate (relative)
  std::vector<double> work_;   // the last cut's estimates, cumulative from wlo_ (empty: one thread)
  std::int32_t wlo_ = 0;
};

}  // namespace ctrl::partition::detail
