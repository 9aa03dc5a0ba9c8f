// Private: the probes of the Pareto dynamic programme, exact energy bounds at a few time
// thresholds (see pareto_dp.hpp and docs/partition.md), and the small thread helper it uses.
#pragma once
#include "instance.hpp"

#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

namespace ctrl::partition::detail {

// Runs body(0) .. body(threads - 1), each but the first on its own thread, and waits for all.
template <class F>
void parallel(unsigned threads, F&& body) {
  if (threads <= 1) {
    body(0u);
    return;
  }
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back([&body, t] { body(t); });
  body(0u);
  for (std::thread& th : pool) th.join();
}

// Energy bounds at a few time thresholds: for each, the least energy of the remaining processors
// (suffix programme) and the least energy of a whole distribution within that time.
struct Probes {
  std::vector<std::uint32_t> rank;    // thresholds, increasing
  std::vector<double> best;           // least total energy within each threshold
  std::vector<double> rest;           // [j][k][r]: least energy of processors k.. for workload r
  std::vector<std::uint32_t> probe_of;  // per rank up to the last threshold

  std::size_t count() const { return rank.size(); }

  // bound[r * J + j]: the largest energy a partial point may have at level k (processors 0..k) with
  // remaining workload r and final time in probe interval j or later.
  void level_bound(const Instance& in, int k, double slack, std::vector<double>& bound) const;
};

// At most `wanted` thresholds between ranks `first` (the time-optimal time) and `last` (an
// energy-optimal distribution's time), both included; items costlier than `elimit` are left out.
Probes make_probes(const Instance& in, std::uint32_t first, std::uint32_t last, double elimit, int wanted,
                   unsigned threads);

}  // namespace ctrl::partition::detail
