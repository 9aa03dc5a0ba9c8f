#include "sweeper.hpp"

#include "simd.hpp"

#include <algorithm>
#include <cstring>

namespace ctrl::partition::detail {

namespace {

// The first i in [0, len) with a + b[i] < c[i], or len. Blocks of 8 are tested with vector
// compares and no branch per element, so the common case (no improvement) costs little; the last
// block too, whole: b and c must be readable up to 8 entries past len (the sweep's arrays have
// that much room), and what lies past len is never an answer.
constexpr std::int32_t block_pad = 8;
using Vec4 = double __attribute__((vector_size(32)));
using Mask4 = long long __attribute__((vector_size(32)));
using Mask2 = long long __attribute__((vector_size(16)));

inline std::int32_t next_improvement(double a, const double* b, const double* c, std::int32_t len) {
  const Vec4 a4 = {a, a, a, a};
  for (std::int32_t i = 0; i < len; i += 8) {
    Vec4 b0, b1, c0, c1;
    std::memcpy(&b0, b + i, sizeof b0);
    std::memcpy(&b1, b + i + 4, sizeof b1);
    std::memcpy(&c0, c + i, sizeof c0);
    std::memcpy(&c1, c + i + 4, sizeof c1);
    const Mask4 m = ((a4 + b0) < c0) | ((a4 + b1) < c1);
    const Mask2 half = Mask2{m[0], m[1]} | Mask2{m[2], m[3]};  // one 128-bit or, then two lanes
    if (half[0] | half[1]) {
      for (const std::int32_t last = std::min(i + 8, len); i < last; ++i)
        if (a + b[i] < c[i]) return i;
      return len;  // only past len: this was the last block
    }
  }
  return len;
}

}  // namespace

// Buckets the points of src's workloads [a, b) by rank (ranks 0 .. ranks - 1) into the events.
void Sweeper::bucket(const Level& src, std::uint32_t ranks, std::int32_t a, std::int32_t b) {
  const double t0 = thread_cpu_seconds();
  const std::size_t first = src.offset[static_cast<std::size_t>(a)], end = src.offset[static_cast<std::size_t>(b)];
  event_start.assign(static_cast<std::size_t>(ranks) + 2, 0);
  std::uint32_t* c = event_start.data();
  for (std::size_t j = first; j < end; ++j) ++c[src.rank[j] + 2];
  for (std::size_t r = 2; r < event_start.size(); ++r) c[r] += c[r - 1];
  // c[r + 1]: where rank r's sources begin; advanced as they are placed, it ends where rank
  // r + 1's begin, so that afterwards c[r] is where rank r's begin.
  event_w.resize(end - first);
  event_energy.resize(end - first);
  for (auto w = static_cast<std::size_t>(a); w < static_cast<std::size_t>(b); ++w)
    for (std::size_t j = src.offset[w]; j < src.offset[w + 1]; ++j) {
      const std::uint32_t to = c[src.rank[j] + 1]++;
      event_w[to] = static_cast<std::uint32_t>(w);
      event_energy[to] = src.energy[j];
    }
  bucket_seconds = thread_cpu_seconds() - t0;
}

// A target's least energy so far starts at, and is lowered to, the most its points may cost (the
// probes' bound at its least final time, then at every probe threshold the sweep passes): a
// candidate above it would be dropped, and so would every later one it hid (they cost more, and
// the bound only falls with time), so it is never recorded. Targets no point may reach get -inf.
// At rank 0 every target starts; at a threshold, those whose least final time it has passed.
void Sweeper::cap(const SweepInput& s, std::int32_t lo, std::int32_t hi, std::uint32_t rank) {
  const std::int32_t n = s.in->n, top = std::min(hi, n + 1);
  if (rank == 0) {
    for (std::int32_t w = lo; w < top; ++w) {
      const std::uint32_t clip = s.clip[static_cast<std::size_t>(w)];
      double& v = nv[static_cast<std::size_t>(w)];
      if (clip == none)
        v = -inf;
      else if (s.probes != nullptr)
        v = s.bound[s.probe_of[clip] * s.in->stride() + static_cast<std::size_t>(n - w)];
    }
    return;
  }
  const double* b = s.bound + s.probe_of[rank] * s.in->stride() + static_cast<std::size_t>(n);  // b[-w]
  const std::uint32_t* clip = s.clip.data();
  double* v = nv.data();
  for (std::int32_t w = lo; w < top; ++w) {
    const double least = std::min(v[w], b[-w]);
    v[w] = clip[w] <= rank ? least : v[w];
  }
}

// Only the sources [a, h) reach the targets [lo, h): the arrays by workload are set there alone
// (next_improvement reads whole blocks past the end, whatever they hold, hence the padding).
void Sweeper::prepare(const SweepInput& s, std::size_t a, std::size_t lo, std::size_t h,
                      std::vector<std::vector<Record>>& out) {
  const std::size_t size = static_cast<std::size_t>(s.in->n) + 1;
  const auto reach = static_cast<std::size_t>(largest_size(*s.items));
  if (cv.size() != size + block_pad) {
    cv.assign(size + block_pad, inf);
    nv.assign(size + block_pad, inf);
    eact.assign(size + block_pad, inf);
    cur.assign(size, 0);
    pos.assign(size, 0);
    last.assign(size, Record{none, 0, 0, 0.0});
  }
  std::fill(cv.begin() + a, cv.begin() + h, inf);
  std::fill(cur.begin() + a, cur.begin() + h, 0u);
  std::copy(s.src->offset.begin() + a, s.src->offset.begin() + h, pos.begin() + a);
  std::fill(nv.begin() + lo, nv.begin() + h, inf);
  std::fill(last.begin() + lo, last.begin() + h, Record{none, 0, 0, 0.0});
  std::fill(eact.begin(), eact.begin() + reach + 1, inf);  // sizes become usable as the sweep goes
  active.clear();
  for (auto w = lo; w < h; ++w) {
    // Fronts grow slowly from level to level: room for a quarter more points than last time,
    // so that the records are seldom moved to larger storage while the sweep runs.
    auto& v = out[w];
    const std::size_t want = v.size() + v.size() / 4 + 8;
    v.clear();
    if (v.capacity() < want) v.reserve(want);
  }
}

// The sweep over the times (compiled for AVX2 beside the baseline, the improvement test inlined
// in each).
CTRL_PARTITION_SIMD void Sweeper::sweep(const SweepInput& s, std::int32_t lo, std::int32_t hi,
                                        std::vector<std::vector<Record>>& out) {
  const std::int32_t n = s.in->n, h = std::min(hi, n + 1);
  // A point of target w is only ever extended to final times before the target's next point (at
  // later times the next one costs less, by more than the slack): it is dropped when the probes
  // bound it in the intervals of those times alone. So each point waits in `last` for the next
  // one (a point of the same time replaces it); `out` is only written, never read, here.
  const auto superseded = [&](std::int32_t w, const Record& q, std::uint32_t r, double c) {
    if (s.probes == nullptr || !(q.energy > c + s.slack)) return false;
    const auto left = static_cast<std::size_t>(n - w);
    for (std::uint32_t i = s.probe_of[q.rank], to = s.probe_of[r - 1]; i <= to; ++i)
      if (q.energy < interval_bound(s.probes->best[i], s.lower[i][left], s.slack)) return false;
    return true;
  };
  // Every candidate recorded is below its bound (cap), so it is a point.
  const auto record = [&](std::int32_t w, std::uint32_t rank, double c, std::int32_t x, std::uint32_t j) {
    const std::uint32_t r = std::max(rank, s.clip[static_cast<std::size_t>(w)]);
    Record& q = last[static_cast<std::size_t>(w)];
    if (q.rank != r && q.rank != none && !superseded(w, q, r, c)) out[static_cast<std::size_t>(w)].push_back(q);
    q = Record{r, x, j, c};
  };
  // Target wp + x improves when source wp's energy e plus size x's beats it.
  const auto improve = [&](std::uint32_t rank, std::int32_t wp, std::int32_t x, double c, std::uint32_t j) {
    nv[static_cast<std::size_t>(wp + x)] = c;
    record(wp + x, rank, c, x, j);
  };
  const std::vector<Item>& items = *s.items;
  std::int32_t xmax = -1;
  std::size_t ai = 0;
  for (std::uint32_t rank = 0; rank <= s.last_rank; ++rank) {
    if (s.probes != nullptr && rank > 0 && s.probe_of[rank] != s.probe_of[rank - 1]) cap(s, lo, hi, rank);
    // Items of this time become usable: combine them with every source's current point.
    for (; ai < items.size() && items[ai].rank == rank; ++ai) {
      const std::int32_t x = items[ai].size;
      const double e = items[ai].energy;
      eact[static_cast<std::size_t>(x)] = e;
      active.push_back(x);
      xmax = std::max(xmax, x);
      const std::int32_t w1 = h - x;  // sources [max(lo - x, 0), w1)
      for (std::int32_t wp = std::max(lo - x, 0); wp < w1; ++wp) {
        wp += next_improvement(e, &cv[static_cast<std::size_t>(wp)], &nv[static_cast<std::size_t>(wp + x)], w1 - wp);
        if (wp < w1) improve(rank, wp, x, cv[static_cast<std::size_t>(wp)] + e, cur[static_cast<std::size_t>(wp)]);
      }
    }
    // Sources whose front improves at this time (those within reach of these targets, in
    // workload order): combine with every usable size.
    for (std::uint32_t i = event_start[rank]; i < event_start[rank + 1]; ++i) {
      const std::int32_t wp = static_cast<std::int32_t>(event_w[i]);
      const std::uint32_t j = pos[static_cast<std::size_t>(wp)]++;
      const double e = event_energy[i];
      cv[static_cast<std::size_t>(wp)] = e;
      cur[static_cast<std::size_t>(wp)] = j;
      const std::int32_t x0 = std::max(lo - wp, 0), x1 = std::min(h - wp, xmax + 1);  // sizes [x0, x1)
      if (x1 <= x0) continue;
      if (active.size() * 4 < static_cast<std::size_t>(x1 - x0)) {  // few usable sizes: visit them
        for (const std::int32_t x : active)
          if (x >= x0 && x < x1 && e + eact[static_cast<std::size_t>(x)] < nv[static_cast<std::size_t>(wp + x)])
            improve(rank, wp, x, e + eact[static_cast<std::size_t>(x)], j);
        continue;
      }
      for (std::int32_t x = x0; x < x1; ++x) {
        x += next_improvement(e, &eact[static_cast<std::size_t>(x)], &nv[static_cast<std::size_t>(wp + x)], x1 - x);
        if (x < x1) improve(rank, wp, x, e + eact[static_cast<std::size_t>(x)], j);
      }
    }
  }
}

void Sweeper::run(const SweepInput& s, std::int32_t lo, std::int32_t hi, std::vector<std::vector<Record>>& out) {
  const std::int32_t n = s.in->n, h = std::min(hi, n + 1);
  const std::int32_t a = std::max(lo - largest_size(*s.items), 0);  // the sources within reach
  prepare(s, static_cast<std::size_t>(a), static_cast<std::size_t>(lo), static_cast<std::size_t>(h), out);
  if (s.probes != nullptr) {
    const double t0 = thread_cpu_seconds();
    s.probes->bounds_of(*s.in, s.lower, s.slack, s.bound, n + 1 - h, n + 1 - lo);
    bound_seconds = thread_cpu_seconds() - t0;
  }
  cap(s, lo, h, 0);
  bucket(*s.src, s.last_rank + 1, a, h);
  sweep(s, lo, h, out);
  for (std::int32_t w = lo; w < h; ++w) {
    const Record& q = last[static_cast<std::size_t>(w)];
    if (q.rank != none) out[static_cast<std::size_t>(w)].push_back(q);
  }
}

}  // namespace ctrl::partition::detail
