// Private: the probes of the Pareto dynamic programme, exact energy bounds at a few time
// thresholds (see pareto_dp.hpp and docs/partition.md).
#pragma once
#include "buffer.hpp"
#include "instance.hpp"
#include "threads.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace ctrl::partition::detail {

// Energy bounds at a few time thresholds: for each, the least energy of the remaining processors
// (suffix programme) and the least energy of a whole distribution within that time.
//
// A threshold's suffix table has p + 1 rows of n + 1 floats, each the largest float below the
// exact (double) entry: lower bounds at half the memory of doubles, so twice the thresholds fit
// (a bound looser by a part in 10^7 prunes as well; the least total energy of each threshold,
// which points must beat, is kept exact). When all the rows would not fit the memory cap, only
// every B-th row (and row p) is kept, B about sqrt(p + 1), and the rows between two kept ones are
// recomputed from the kept row below when the sweep reaches them (levels come in increasing
// order, so each block once): memory (p / B + B) rows instead of p + 1, for one more suffix pass.
// Recomputed from a rounded row, they may lie a little below the full table's: still lower
// bounds, so the front is the same; on many processors the cap then allows all the thresholds
// asked for.
struct Probes {
  std::vector<std::uint32_t> rank;      // thresholds, increasing
  std::vector<double> best;             // least total energy within each threshold
  std::vector<double> limit;            // per threshold: its time (items up to it are usable)
  std::vector<std::uint32_t> probe_of;  // per rank up to the last threshold
  int block = 1;                        // B: 1 keeps every row
  UninitVector<float> kept;             // [slot[j]][c][r]: row min(c * B, p) of threshold j's table
  std::vector<std::size_t> slot;        // per threshold: where its table is in `kept`

  std::size_t count() const { return rank.size(); }
  std::size_t bytes() const { return (kept.size() + rows.size()) * sizeof(float); }

  // The bounds of level k (processors 0..k), in two steps, so that each thread of the sweep
  // computes those of its own targets. lower_rows: lower[j] = row(in, min(j + 1, J - 1), k + 1)
  // for every probe j, recomputing a block of rows where needed (valid until the next call; calls
  // come with increasing k). bounds_of, for the remaining workloads r in [from, to) (within what
  // `reads` allows): bound[j * (n + 1) + r], the least energy a partial point with remaining
  // workload r and final time in probe interval j or later must stay below (the double above the
  // largest it may have, so that a sweep's strict comparisons keep a point equal to it).
  // interval_bound(best[j], lower[j][r], slack) is the same bound for a final time in interval j
  // itself (bound is its maximum over j and the later intervals), computed where it is read
  // rather than stored (the sweep reads it for a few of its records; storing it took as long as
  // `bound`).
  void lower_rows(const Instance& in, int k, std::vector<const float*>& lower);
  void bounds_of(const Instance& in, const float* const* lower, double slack, double* bound, std::int32_t from,
                 std::int32_t to) const;

  // Row k of threshold j's table (valid until the next call for another block). Of a row
  // recomputed between kept ones, only the entries `reads` asks for and those they depend on.
  const float* row(const Instance& in, std::size_t j, int k);

  // The remaining workloads [first, second) at which the sweep of each level k reads its bounds
  // (those of its targets), k = 0..p - 1: bounds_of is asked for no others, and the rows between
  // kept ones only what those need. Empty: every workload.
  std::vector<std::pair<std::int32_t, std::int32_t>> reads;

  // Recomputes rows b * B + 1 .. min((b + 1) * B, p) - 1 of every threshold's table.
  void load_block(const Instance& in, int b);

  // The entries [first, second) of row k that level k - 1 reads (all without `reads`).
  std::pair<std::int32_t, std::int32_t> read_range(const Instance& in, int k) const;

  // Level k will read its bounds only within `range` of what it read so far (swept again over
  // fewer targets): reads[k] narrows, and the rows between kept ones are loaded again for it.
  void narrow_reads(int k, std::pair<std::int32_t, std::int32_t> range);

  double elimit = 0.0;        // items costlier than this are left out
  unsigned threads = 1;       // for recomputing blocks
  std::size_t kept_rows = 0;  // per threshold
  UninitVector<float> rows;   // [j][i][r]: row b * B + 1 + i of the loaded block
  int loaded = -1;            // the loaded block b
};

// The least double above b (b itself for +inf and NaN), as std::nextafter(b, inf) but without a
// branch, so that loops of it are vectorised: one more in the bits of a positive double (+0 too:
// -0 is made +0 first), one less in those of a negative one.
inline double next_up(double b) {
  const double z = b + 0.0;
  std::int64_t bits;
  std::memcpy(&bits, &z, sizeof bits);
  bits += bits >= 0 ? 1 : -1;
  double up;
  std::memcpy(&up, &bits, sizeof up);
  return b < inf ? up : b;
}

// The bound of one interval (Probes::bounds_of): the double above the largest energy a partial
// point may have, the interval's least total energy `best` less the least of the remaining
// processors (`lower`), with `slack`.
inline double interval_bound(double best, float lower, double slack) {
  return next_up((best - static_cast<double>(lower)) + slack);
}

// Default cap on the bytes of the probe tables, and the most that full (unthinned) tables take.
inline constexpr std::size_t probe_memory_cap = std::size_t{256} << 20;

// At most `wanted` thresholds between ranks `first` (the time-optimal time) and `last` (an
// energy-optimal distribution's time), both included; items costlier than `elimit` are left out.
// Every row is kept when `wanted` full tables fit in min(`memory_cap`, probe_memory_cap), else one
// in B (see Probes); as many thresholds as `memory_cap` holds. Thinned tables cost one more suffix
// pass, full ones about sqrt(p) / 2 times the memory: past 256 MiB the memory goes to more
// thresholds rather than to full tables.
Probes make_probes(const Instance& in, std::uint32_t first, std::uint32_t last, double elimit, int wanted,
                   unsigned threads, std::size_t memory_cap = probe_memory_cap);

}  // namespace ctrl::partition::detail
