#include "probes.hpp"

#include "dp_kernels.hpp"
#include "simd.hpp"

#include <algorithm>
#include <cmath>
#include <climits>
#include <cstdint>
#include <cstring>
#include <utility>

namespace ctrl::partition::detail {

namespace {

// Rows kept per threshold with one in B: rows 0, B, 2B, ... and p.
std::size_t kept_count(int p, int block) { return static_cast<std::size_t>((p + block - 1) / block) + 1; }

// The largest float not above each double (the tables hold lower bounds: rounding to nearest
// could raise one); branch-free, so that the loop is vectorised.
CTRL_PARTITION_SIMD void store_below(const double* __restrict from, float* __restrict to, std::size_t len) {
  for (std::size_t r = 0; r < len; ++r) {
    const float f = static_cast<float>(from[r]);
    std::int32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    const std::int32_t down = f > 0.0f ? bits - 1 : f < 0.0f ? bits + 1 : std::int32_t{INT32_MIN + 1};  // -0 less 1
    float g;
    std::memcpy(&g, &down, sizeof g);
    to[r] = static_cast<double>(f) > from[r] ? g : f;
  }
}

// The kept rows of one threshold's suffix table, computed from row p downwards in doubles and
// stored as floats below them; returns row 0's entry n, the least total energy, exact.
double fill_kept(const Instance& in, double tlimit, double elimit, int block, float* kept) {
  const std::size_t s = in.stride();
  std::vector<double> rows(3 * s);  // row p, then two rows in turn
  double* below = &rows[2 * s];
  std::fill(below, below + s, inf);  // row p: only workload 0 is free
  below[0] = 0.0;
  store_below(below, kept + (kept_count(in.p, block) - 1) * s, s);
  for (int k = in.p - 1; k >= 0; --k) {
    double* dst = &rows[static_cast<std::size_t>(k & 1) * s];
    suffix_min_energy_row(in, k, tlimit, elimit, below, dst);
    if (k % block == 0) store_below(dst, kept + static_cast<std::size_t>(k / block) * s, s);
    below = dst;
  }
  return below[static_cast<std::size_t>(in.n)];
}

// One interval's bounds over `len` workloads: `most` (the largest energy so far, from the later
// intervals) takes this interval's into account; compiled for AVX2 beside the baseline.
CTRL_PARTITION_SIMD void bound_row(const float* __restrict lower, double best, double slack, double* __restrict most,
                                   double* __restrict bound, std::size_t len) {
  for (std::size_t r = 0; r < len; ++r) {
    most[r] = std::max(most[r], best - static_cast<double>(lower[r]));
    bound[r] = next_up(most[r] + slack);
  }
}

}  // namespace

const float* Probes::row(const Instance& in, std::size_t j, int k) {
  const std::size_t s = in.stride();
  if (k % block == 0 || k == in.p)  // kept; row p is kept number ceil(p / B)
    return &kept[(slot[j] * kept_rows + static_cast<std::size_t>((k + block - 1) / block)) * s];
  const int b = k / block;
  if (b != loaded) load_block(in, b);
  return &rows[(j * static_cast<std::size_t>(block - 1) + static_cast<std::size_t>(k - b * block - 1)) * s];
}

std::pair<std::int32_t, std::int32_t> Probes::read_range(const Instance& in, int k) const {
  if (reads.empty() || k == 0 || k > in.p) return {0, static_cast<std::int32_t>(in.stride())};
  return reads[static_cast<std::size_t>(k - 1)];
}

void Probes::narrow_reads(int k, std::pair<std::int32_t, std::int32_t> range) {
  auto& r = reads[static_cast<std::size_t>(k)];
  r = {std::max(r.first, range.first), std::min(r.second, range.second)};
  loaded = -1;  // the loaded block's rows were computed for the wider ranges
}

void Probes::load_block(const Instance& in, int b) {
  const std::size_t s = in.stride(), J = count(), per = static_cast<std::size_t>(block - 1);
  const int lo = b * block, hi = std::min(lo + block, in.p);  // kept rows; hi is kept number b + 1
  // The entries each row of the block needs: what its level reads, and what the row computed from
  // it (row k - 1) needs, widened by processor k - 1's largest size.
  std::vector<std::pair<std::int32_t, std::int32_t>> need(static_cast<std::size_t>(std::max(hi - lo, 1)));
  for (int k = lo + 1; k < hi; ++k) {
    auto r = read_range(in, k);
    if (k > lo + 1) {
      const auto next = need[static_cast<std::size_t>(k - 1 - lo)];
      const std::int32_t reach = largest_size(in.items[static_cast<std::size_t>(k - 1)]);
      if (next.first < next.second)
        r = r.first < r.second ? std::pair{std::min(r.first, next.first - reach), std::max(r.second, next.second)}
                               : std::pair{next.first - reach, next.second};
    }
    r.first = std::max(r.first, 0);
    need[static_cast<std::size_t>(k - lo)] = r;
  }
  const unsigned T = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(J)));
  parallel(T, [&](unsigned t) {
    std::vector<double> chain(3 * s);  // the kept row, then two rows in turn
    for (std::size_t j = t; j < J; j += T) {
      const float* kept_row = &kept[(slot[j] * kept_rows + static_cast<std::size_t>(b + 1)) * s];
      double* below = &chain[2 * s];
      std::copy_n(kept_row, s, below);
      for (int k = hi - 1; k > lo; --k) {
        const auto [from, to] = need[static_cast<std::size_t>(k - lo)];
        if (from >= to) continue;  // nothing reads it, nor any row computed from it
        double* dst = &chain[static_cast<std::size_t>(k & 1) * s];
        suffix_min_energy_row(in, k, limit[j], elimit, below, dst, from, to);
        store_below(dst + from,
                    &rows[(j * per + static_cast<std::size_t>(k - lo - 1)) * s + static_cast<std::size_t>(from)],
                    static_cast<std::size_t>(to - from));
        below = dst;
      }
    }
  });
  loaded = b;
}

void Probes::lower_rows(const Instance& in, int k, std::vector<const float*>& lower) {
  const std::size_t J = count();
  lower.resize(J);  // completions in [T_j, T_{j+1}) cost at least lower[j][r]
  for (std::size_t j = 0; j < J; ++j) lower[j] = row(in, std::min(j + 1, J - 1), k + 1);
}

// Interval by interval, from the last, over the workloads: contiguous rows, and the running
// maximum of a workload is not a chain through the intervals of one entry.
void Probes::bounds_of(const Instance& in, const float* const* lower, double slack, double* bound, std::int32_t from,
                       std::int32_t to) const {
  if (to <= from) return;
  const std::size_t s = in.stride(), lo = static_cast<std::size_t>(from), len = static_cast<std::size_t>(to - from);
  std::vector<double> most(len, -inf);
  for (std::size_t j = count(); j-- > 0;)
    bound_row(lower[j] + lo, best[j], slack, most.data(), &bound[j * s + lo], len);
}

// Thresholds: a few spread evenly over the ranks between the time-optimal and energy-optimal
// times, then more where the least energy falls most between two thresholds (where the front
// changes, the bounds between thresholds are loosest). Each is computed in parallel.
Probes make_probes(const Instance& in, std::uint32_t first, std::uint32_t last, double elimit, int wanted,
                   unsigned threads, std::size_t memory_cap) {
  const std::size_t s = in.stride();
  // Both ends are thresholds: the last interval's bound uses the energy-optimal time.
  const auto thresholds = [&](std::size_t cap) {
    return last == first ? std::size_t{1}
                         : std::clamp<std::size_t>(static_cast<std::size_t>(wanted), 2,
                                                   std::min<std::size_t>(cap, last - first + 1));
  };
  const std::size_t full = static_cast<std::size_t>(in.p + 1) * s * sizeof(float);
  int block = 1;
  if (thresholds(SIZE_MAX) * full > std::min(memory_cap, probe_memory_cap))  // full tables only where they are small
    block = std::max(2, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(in.p + 1)))));
  const std::size_t kept_rows = kept_count(in.p, block);
  const std::size_t per_probe = (kept_rows + static_cast<std::size_t>(block - 1)) * s * sizeof(float);
  const std::size_t J = thresholds(std::max<std::size_t>(2, memory_cap / per_probe));
  // The tables are written in place, in the order they are computed; `slot` finds them.
  Probes pr;
  pr.kept.resize(J * kept_rows * s);
  struct Done {
    std::uint32_t rank;
    std::size_t slot;
    double best;  // least total energy within the threshold's time
  };
  std::vector<Done> done;
  const auto table = [&](const Done& d) { return &pr.kept[d.slot * kept_rows * s]; };
  const auto compute = [&](const std::vector<std::uint32_t>& ranks) {
    const std::size_t first_new = done.size();
    for (const std::uint32_t r : ranks) done.push_back(Done{r, done.size(), inf});
    const unsigned T = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(ranks.size())));
    parallel(T, [&](unsigned t) {
      for (std::size_t j = first_new + t; j < done.size(); j += T)
        done[j].best = fill_kept(in, in.times[done[j].rank], elimit, block, table(done[j]));
    });
    std::sort(done.begin(), done.end(), [](const Done& a, const Done& b) { return a.rank < b.rank; });
  };
  const std::size_t even = std::min<std::size_t>(J, 8);
  std::vector<std::uint32_t> ranks;
  for (std::size_t j = 0; j < even; ++j)
    ranks.push_back(
        even == 1 ? first
                  : first + static_cast<std::uint32_t>(static_cast<double>(last - first) * static_cast<double>(j) /
                                                           static_cast<double>(even - 1) +
                                                       0.5));
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  compute(ranks);
  // Each round splits the intervals of largest drop, as one at a time would: a split interval's
  // halves count half its drop each (their own drops are known only once computed), so a round of
  // many thresholds (one per thread or more) places them about where rounds of one would.
  struct Gap {
    double drop;
    std::uint32_t lo, hi;
  };
  const auto before = [](const Gap& a, const Gap& b) { return a.drop < b.drop || (a.drop == b.drop && a.lo > b.lo); };
  while (done.size() < J) {
    std::vector<Gap> gaps;  // a max-heap by drop
    for (std::size_t j = 0; j + 1 < done.size(); ++j)
      if (done[j + 1].rank - done[j].rank >= 2)
        gaps.push_back(Gap{done[j].best - done[j + 1].best, done[j].rank, done[j + 1].rank});
    if (gaps.empty()) break;
    std::make_heap(gaps.begin(), gaps.end(), before);
    ranks.clear();
    const std::size_t batch = std::max<std::size_t>(4, 2 * threads);
    while (!gaps.empty() && ranks.size() < batch && done.size() + ranks.size() < J) {
      std::pop_heap(gaps.begin(), gaps.end(), before);
      const Gap g = gaps.back();
      gaps.pop_back();
      const std::uint32_t mid = g.lo + (g.hi - g.lo) / 2;
      ranks.push_back(mid);
      for (const Gap half : {Gap{g.drop / 2, g.lo, mid}, Gap{g.drop / 2, mid, g.hi}})
        if (half.hi - half.lo >= 2) {
          gaps.push_back(half);
          std::push_heap(gaps.begin(), gaps.end(), before);
        }
    }
    compute(ranks);
  }
  pr.block = block;
  pr.kept_rows = kept_rows;
  pr.elimit = elimit;
  pr.threads = std::max(1u, threads);
  pr.kept.resize(done.size() * kept_rows * s);  // the slots used are the first ones
  for (const Done& d : done) {
    pr.rank.push_back(d.rank);
    pr.limit.push_back(in.times[d.rank]);
    pr.best.push_back(d.best);
    pr.slot.push_back(d.slot);
  }
  pr.rows.resize(done.size() * static_cast<std::size_t>(block - 1) * s);
  pr.probe_of.assign(static_cast<std::size_t>(last) + 1, 0);
  for (std::size_t j = 0, r = 0; r <= last; ++r) {
    while (j + 1 < pr.count() && pr.rank[j + 1] <= r) ++j;
    pr.probe_of[r] = static_cast<std::uint32_t>(j);
  }
  return pr;
}

}  // namespace ctrl::partition::detail
