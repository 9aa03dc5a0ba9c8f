#include <ctrl/partition/classes.hpp>
#include <ctrl/partition/pareto_dp.hpp>

#include "buffer.hpp"
#include "class_walk.hpp"
#include "dp_kernels.hpp"
#include "instance.hpp"
#include "pool.hpp"
#include "probes.hpp"
#include "simd.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

namespace ctrl::partition {

namespace {

using detail::Buffer;
using detail::inf;
using detail::Instance;
using detail::Item;
using detail::Pool;
using detail::Probes;
using Clock = std::chrono::steady_clock;

constexpr std::uint32_t none = UINT32_MAX;

// The class walk's tables (the copy-count rows of every class) are kept within this.
constexpr std::size_t class_walk_memory_cap = std::size_t{2} << 30;

// The first i in [0, len) with a + b[i] < c[i], or len. Blocks of 8 are tested with vector
// compares and no branch per element, so the common case (no improvement) costs little; the last
// block too, whole: b and c must be readable up to 8 entries past len (the sweep's arrays have
// that much room), and what lies past len is never an answer.
constexpr std::int32_t block_pad = 8;
using Vec4 = double __attribute__((vector_size(32)));
using Mask4 = long long __attribute__((vector_size(32)));

inline std::int32_t next_improvement(double a, const double* b, const double* c, std::int32_t len) {
  const Vec4 a4 = {a, a, a, a};
  for (std::int32_t i = 0; i < len; i += 8) {
    Vec4 b0, b1, c0, c1;
    std::memcpy(&b0, b + i, sizeof b0);
    std::memcpy(&b1, b + i + 4, sizeof b1);
    std::memcpy(&c0, c + i, sizeof c0);
    std::memcpy(&c1, c + i + 4, sizeof c1);
    const Mask4 m = ((a4 + b0) < c0) | ((a4 + b1) < c1);
    if ((m[0] | m[1]) | (m[2] | m[3])) {
      for (const std::int32_t last = std::min(i + 8, len); i < last; ++i)
        if (a + b[i] < c[i]) return i;
      return len;  // only past len: this was the last block
    }
  }
  return len;
}

struct Record {
  std::uint32_t rank;    // time (rank), already raised to the target's least possible final time
  std::int32_t part;     // size given to this level's processor (normalised)
  std::uint32_t source;  // index of the previous level's point it extends
  double energy;
};

// What a kept point remembers for the walk back: 8 bytes a point.
struct Back {
  std::int32_t part;
  std::uint32_t source;
};

// The Pareto points of one level, all workloads together (CSR by workload). Two are kept and
// swapped, so their storage is reused from level to level.
struct Level {
  std::vector<std::uint32_t> offset;  // n + 2
  Buffer<std::uint32_t> rank;
  Buffer<double> energy;
  std::size_t size() const { return offset.back(); }
};

// A level's source points bucketed by rank (a stable counting sort, so each bucket lists them in
// workload order, as one thread would): the sweep's events.
struct Events {
  std::vector<std::uint32_t> start;  // by rank: where the source points of that rank begin
  Buffer<std::uint32_t> w;           // workload of each source point, in rank order
  Buffer<double> energy;             // and its energy (read in order by every thread's sweep)
  std::vector<std::uint32_t> count;  // [thread][rank]: points of its chunk, then where they go
  std::vector<std::uint32_t> sum;    // per slice of ranks: its points
};

// Everything one level's sweep reads.
struct SweepInput {
  const Instance* in = nullptr;
  const Level* src = nullptr;
  const std::uint32_t* event_start = nullptr;
  const std::uint32_t* event_w = nullptr;
  const double* event_energy = nullptr;
  const std::vector<Item>* items = nullptr;  // usable items of this level's processor, by rank
  std::vector<std::uint32_t> clip;           // per target: least final time (rank), or none
  const double* bound = nullptr;             // per (probe, remaining workload): energy to beat
  const double* each = nullptr;              // the same for a final time in that probe interval only
  double slack = 0.0;                        // added to every bound
  const std::uint32_t* probe_of = nullptr;   // per rank: the probe interval it lies in
  std::size_t probes = 0;
  std::uint32_t last_rank = 0;
};

// Per-thread state of the sweep, reused across levels.
struct Sweeper {
  void run(const SweepInput& s, std::int32_t lo, std::int32_t hi, std::vector<std::vector<Record>>& out);
  void cap(const SweepInput& s, std::int32_t lo, std::int32_t hi, std::uint32_t rank);

  std::vector<double> cv, nv, eact;
  std::vector<std::uint32_t> cur, pos;
  std::vector<std::int32_t> active;
  std::vector<Record> last;  // per target: its latest point, not yet in `out` (rank none: no point)
};

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
      else if (s.bound != nullptr)
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

// The sweep of one level for the targets [lo, hi) (compiled for AVX2 beside the baseline, the
// improvement test inlined in each).
CTRL_PARTITION_SIMD void Sweeper::run(const SweepInput& s, std::int32_t lo, std::int32_t hi,
                                      std::vector<std::vector<Record>>& out) {
  const std::int32_t n = s.in->n;
  const std::size_t size = static_cast<std::size_t>(n) + 1;
  cv.assign(size + block_pad, inf);  // next_improvement reads whole blocks past the end
  nv.assign(size + block_pad, inf);
  eact.assign(size + block_pad, inf);
  cur.assign(size, 0);
  pos.assign(s.src->offset.begin(), s.src->offset.end() - 1);
  active.clear();
  last.assign(size, Record{none, 0, 0, 0.0});
  std::int32_t xmax = -1;
  for (std::int32_t w = lo; w < hi; ++w) {
    // Fronts grow slowly from level to level: room for a quarter more points than last time,
    // so that the records are seldom moved to larger storage while the sweep runs.
    auto& v = out[static_cast<std::size_t>(w)];
    const std::size_t want = v.size() + v.size() / 4 + 8;
    v.clear();
    if (v.capacity() < want) v.reserve(want);
  }

  // A point of target w is only ever extended to final times before the target's next point (at
  // later times the next one costs less, by more than the slack): it is dropped when the probes
  // bound it in the intervals of those times alone. So each point waits in `last` for the next
  // one (a point of the same time replaces it); `out` is only written, never read, here.
  const auto superseded = [&](std::int32_t w, const Record& q, std::uint32_t r, double c) {
    if (s.each == nullptr || !(q.energy > c + s.slack)) return false;
    const double* each = s.each + static_cast<std::size_t>(n - w);
    for (std::uint32_t i = s.probe_of[q.rank], to = s.probe_of[r - 1]; i <= to; ++i)
      if (q.energy < each[i * size]) return false;
    return true;
  };
  // Every candidate recorded is below its bound (cap), so it is a point.
  auto record = [&](std::int32_t w, std::uint32_t rank, double c, std::int32_t x, std::uint32_t j) {
    const std::uint32_t r = std::max(rank, s.clip[static_cast<std::size_t>(w)]);
    Record& q = last[static_cast<std::size_t>(w)];
    if (q.rank != r && q.rank != none && !superseded(w, q, r, c)) out[static_cast<std::size_t>(w)].push_back(q);
    q = Record{r, x, j, c};
  };

  cap(s, lo, hi, 0);
  const std::vector<Item>& items = *s.items;
  std::int32_t reach = 0;  // the largest usable size
  for (const Item& it : items) reach = std::max(reach, it.size);
  const auto a = static_cast<std::uint32_t>(std::max(lo - reach, 0)), b = static_cast<std::uint32_t>(hi);
  const bool whole = a == 0 && hi > n;
  std::size_t ai = 0;
  for (std::uint32_t rank = 0; rank <= s.last_rank; ++rank) {
    if (s.bound != nullptr && rank > 0 && s.probe_of[rank] != s.probe_of[rank - 1]) cap(s, lo, hi, rank);
    // Items of this time become usable: combine them with every source's current point.
    for (; ai < items.size() && items[ai].rank == rank; ++ai) {
      const std::int32_t x = items[ai].size;
      const double e = items[ai].energy;
      eact[static_cast<std::size_t>(x)] = e;
      active.push_back(x);
      xmax = std::max(xmax, x);
      const std::int32_t w0 = std::max(lo - x, 0), w1 = std::min(hi, n + 1) - x;  // sources [w0, w1)
      for (std::int32_t wp = w0; wp < w1;) {
        wp += next_improvement(e, &cv[static_cast<std::size_t>(wp)], &nv[static_cast<std::size_t>(wp + x)], w1 - wp);
        if (wp >= w1) break;
        const double c = cv[static_cast<std::size_t>(wp)] + e;
        nv[static_cast<std::size_t>(wp + x)] = c;
        record(wp + x, rank, c, x, cur[static_cast<std::size_t>(wp)]);
        ++wp;
      }
    }
    // Sources whose front improves at this time: combine with every usable item. Only sources in
    // [a, b) reach these targets; a time's sources are in workload order, so they are a range.
    std::uint32_t i = s.event_start[rank], end = s.event_start[rank + 1];
    if (i != end && whole == false) {
      i = static_cast<std::uint32_t>(std::lower_bound(s.event_w + i, s.event_w + end, a) - s.event_w);
      end = static_cast<std::uint32_t>(std::lower_bound(s.event_w + i, s.event_w + end, b) - s.event_w);
    }
    for (; i < end; ++i) {
      const std::int32_t wp = static_cast<std::int32_t>(s.event_w[i]);
      const std::uint32_t j = pos[static_cast<std::size_t>(wp)]++;
      const double e = s.event_energy[i];
      cv[static_cast<std::size_t>(wp)] = e;
      cur[static_cast<std::size_t>(wp)] = j;
      const std::int32_t x0 = std::max(lo - wp, 0), x1 = std::min({hi - wp, xmax + 1, n + 1 - wp});  // [x0, x1)
      if (x1 <= x0) continue;
      if (active.size() * 4 < static_cast<std::size_t>(x1 - x0)) {  // few usable sizes: visit them
        for (const std::int32_t x : active) {
          if (x < x0 || x >= x1) continue;
          const double c = e + eact[static_cast<std::size_t>(x)];
          if (c < nv[static_cast<std::size_t>(wp + x)]) {
            nv[static_cast<std::size_t>(wp + x)] = c;
            record(wp + x, rank, c, x, j);
          }
        }
        continue;
      }
      for (std::int32_t x = x0; x < x1;) {
        x += next_improvement(e, &eact[static_cast<std::size_t>(x)], &nv[static_cast<std::size_t>(wp + x)], x1 - x);
        if (x >= x1) break;
        const double c = e + eact[static_cast<std::size_t>(x)];
        nv[static_cast<std::size_t>(wp + x)] = c;
        record(wp + x, rank, c, x, j);
        ++x;
      }
    }
  }
  for (std::int32_t w = lo; w < std::min(hi, n + 1); ++w) {
    const Record& q = last[static_cast<std::size_t>(w)];
    if (q.rank != none) out[static_cast<std::size_t>(w)].push_back(q);
  }
}

// As asked; by default every core this process may use (rank 0's node computes the front while
// the others wait), and one for small instances, where starting threads at every level would cost
// more than it saves. The front does not depend on it.
unsigned thread_count(const DpOptions& opt, const Instance& in) {
  if (opt.threads != 0) return opt.threads;
  std::size_t items = 0;
  for (const auto& v : in.items) items += v.size();
  if (items * static_cast<std::size_t>(in.n) < (std::size_t{1} << 22)) return 1;
  return detail::usable_cores();
}

// Buckets the points of `src` by rank into `ev` (ranks 0 .. ranks - 1). Each thread counts the
// ranks of one chunk of the points, the counts become positions (by rank, then by chunk), and each
// thread places its chunk: the order of one pass over the points, on any number of threads.
void bucket_by_rank(Pool& pool, const Level& src, std::uint32_t ranks, Events& ev) {
  const std::size_t N = src.size(), R = ranks;
  const unsigned T = static_cast<unsigned>(std::clamp<std::size_t>(N >> 10, 1, pool.size()));
  ev.start.resize(R + 1);
  ev.w.reserve_discard(N);
  ev.energy.reserve_discard(N);
  ev.count.resize(T * R);
  ev.sum.resize(T);
  const auto chunk = [&](unsigned t) { return std::pair{N * t / T, N * (t + 1) / T}; };
  const auto slice = [&](unsigned t) { return std::pair{R * t / T, R * (t + 1) / T}; };
  pool.run(T, [&](unsigned t) {
    std::uint32_t* c = &ev.count[t * R];
    std::fill(c, c + R, 0u);
    const auto [lo, hi] = chunk(t);
    for (std::size_t j = lo; j < hi; ++j) ++c[src.rank[j]];
  });
  pool.run(T, [&](unsigned t) {  // the points of each slice of ranks
    const auto [lo, hi] = slice(t);
    std::uint32_t total = 0;
    for (std::size_t r = lo; r < hi; ++r)
      for (unsigned u = 0; u < T; ++u) total += ev.count[u * R + r];
    ev.sum[t] = total;
  });
  pool.run(T, [&](unsigned t) {  // counts to positions, each slice from the points before it
    const auto [lo, hi] = slice(t);
    std::uint32_t at = 0;
    for (unsigned u = 0; u < t; ++u) at += ev.sum[u];
    for (std::size_t r = lo; r < hi; ++r) {
      ev.start[r] = at;
      for (unsigned u = 0; u < T; ++u) at += std::exchange(ev.count[u * R + r], at);
    }
  });
  ev.start[R] = static_cast<std::uint32_t>(N);
  pool.run(T, [&](unsigned t) {
    std::uint32_t* c = &ev.count[t * R];
    const auto [lo, hi] = chunk(t);
    if (lo == hi) return;
    auto w =
        static_cast<std::size_t>(std::upper_bound(src.offset.begin(), src.offset.end(), lo) - src.offset.begin()) - 1;
    for (std::size_t j = lo; j < hi; ++j) {
      while (src.offset[w + 1] <= j) ++w;
      const std::uint32_t at = c[src.rank[j]]++;
      ev.w[at] = static_cast<std::uint32_t>(w);
      ev.energy[at] = src.energy[j];
    }
  });
}

// The targets a level keeps ([wlo, whi], empty when whi < wlo) and their least final times: a
// point of workload w can end no sooner than the remaining processors allow.
std::pair<std::int32_t, std::int32_t> clip_targets(const Instance& in, const std::vector<double>& tau, int k,
                                                   double tstar, double tmax, std::vector<std::uint32_t>& clip) {
  const std::int32_t n = in.n;
  const std::size_t s = in.stride();
  clip.assign(s, none);
  std::int32_t wlo = n + 1, whi = -1;
  double seen = -inf;  // neighbouring workloads mostly share their least time: search it once
  std::uint32_t seen_rank = 0;
  for (std::int32_t w = k == in.p - 1 ? n : 0; w <= n; ++w) {
    const double rest = tau[static_cast<std::size_t>(k + 1) * s + static_cast<std::size_t>(n - w)];
    const double least = std::max(rest, tstar);
    if (!(least <= tmax)) continue;
    if (least != seen) {
      seen = least;
      seen_rank = in.rank_of(least);
    }
    clip[static_cast<std::size_t>(w)] = seen_rank;
    wlo = std::min(wlo, w);
    whi = std::max(whi, w);
  }
  return {wlo, whi};
}

// Splits the targets [wlo, whi] between at most `threads` threads by their estimated work: the
// source points within reach of each target (at most the largest usable size below it).
std::vector<std::int32_t> split_targets(const Level& src, const std::vector<Item>& items, std::int32_t wlo,
                                        std::int32_t whi, unsigned threads) {
  const unsigned T = whi < wlo ? 1 : std::min<unsigned>(threads, static_cast<unsigned>(whi - wlo + 1));
  std::vector<std::int32_t> cut(T + 1, wlo);
  cut[T] = whi + 1;
  if (T == 1) return cut;
  std::int32_t reach = 0;
  for (const Item& it : items) reach = std::max(reach, it.size);
  std::vector<double> work(static_cast<std::size_t>(whi - wlo) + 2, 0.0);  // cumulative
  for (std::int32_t w = wlo; w <= whi; ++w) {
    const auto below = src.offset[static_cast<std::size_t>(w) + 1],
               from = src.offset[static_cast<std::size_t>(std::max(0, w - reach))];
    work[static_cast<std::size_t>(w - wlo) + 1] =
        work[static_cast<std::size_t>(w - wlo)] + static_cast<double>(below - from) + 1.0;
  }
  unsigned t = 1;
  for (std::int32_t w = wlo; w <= whi && t < T; ++w)
    if (work[static_cast<std::size_t>(w - wlo) + 1] >= work.back() * t / T) cut[t++] = w + 1;
  for (; t < T; ++t) cut[t] = whi + 1;
  return cut;
}

// The records of targets [lo, hi) into the next level, at their offsets, and their parent pointers.
void collect(const std::vector<std::vector<Record>>& out, std::int32_t lo, std::int32_t hi, Level& next, Back* back) {
  for (std::int32_t w = lo; w < hi; ++w) {
    std::size_t j = next.offset[static_cast<std::size_t>(w)];
    for (const Record& r : out[static_cast<std::size_t>(w)]) {
      next.rank[j] = r.rank;
      next.energy[j] = r.energy;
      back[j] = Back{r.part, r.source};
      ++j;
    }
  }
}

// What bounds the sweep: the corners of the front, the items a front point may use, the probes.
struct Bounds {
  std::vector<double> tau;  // suffix_min_max_time
  double tstar = 0.0, tmax = 0.0, eps = 0.0;
  std::uint32_t rmax = 0;
  std::vector<std::vector<Item>> usable;  // per processor, by rank, with size 0 first
  Probes probes;
};

// The bounds; false when no distribution exists.
bool bounds(const Profile& profile, Size workload, const Instance& in, int probes, Pool& pool, Bounds& b) {
  // Corners of the front: the time-optimal point (HPOPTA) and an energy-optimal distribution.
  b.tau = detail::suffix_min_max_time(in, true, &pool);
  b.tstar = b.tau[static_cast<std::size_t>(in.n)];
  if (!(b.tstar < inf)) return false;
  const auto fast = detail::min_energy_parts(in, in.same_time_limit(b.tstar), inf, true, &pool);
  b.eps = make_solution(profile, in.to_distribution(*fast), workload).energy;
  const auto frugal = detail::min_energy_parts(in, inf, b.eps, true, &pool);
  b.tmax = make_solution(profile, in.to_distribution(*frugal), workload).time;
  const std::uint32_t rstar = in.rank_of(b.tstar);
  b.rmax = in.rank_of(b.tmax);

  // No front point uses an item costlier than eps or slower than tmax.
  b.usable.assign(in.items.size(), {});
  for (std::size_t k = 0; k < in.items.size(); ++k) {
    auto& u = b.usable[k];
    u.push_back(Item{0, 0.0, 0.0, 0});
    for (const Item& it : in.items[k])
      if (it.time <= b.tmax && it.energy <= b.eps) u.push_back(it);
    std::stable_sort(u.begin(), u.end(), [](const Item& x, const Item& y) { return x.rank < y.rank; });
  }
  if (probes > 0) b.probes = detail::make_probes(in, rstar, b.rmax, b.eps, probes, pool.size());
  return true;
}

// The storage of the sweep, kept from level to level: the sources and the next level's points
// (swapped), their events, the records of every target, the threads' sweepers and the parent
// pointers of every level.
struct SweepState {
  SweepState(const Instance& in, unsigned threads)
      : back(static_cast<std::size_t>(in.p)), out(in.stride()), sweepers(threads) {
    const std::size_t s = in.stride();
    src.offset.assign(s + 1, 1);  // one point, (time 0, energy 0), of workload 0
    src.offset[0] = 0;
    src.rank.reserve_discard(1);
    src.energy.reserve_discard(1);
    src.rank[0] = 0;
    src.energy[0] = 0.0;
    next.offset.resize(s + 1);
  }

  Level src, next;
  Events events;
  std::vector<const Back*> back;
  detail::Arena<Back> arena;
  std::vector<std::vector<Record>> out;
  std::vector<Sweeper> sweepers;
};

// Sets next.offset from the records of targets [wlo, whi] and makes room for them; their count.
std::size_t next_offsets(SweepState& st, std::int32_t wlo, std::int32_t whi) {
  Level& next = st.next;
  next.offset[0] = 0;
  for (std::size_t w = 0; w + 1 < next.offset.size(); ++w) {
    const bool kept = static_cast<std::int32_t>(w) >= wlo && static_cast<std::int32_t>(w) <= whi;
    next.offset[w + 1] = next.offset[w] + static_cast<std::uint32_t>(kept ? st.out[w].size() : 0);
  }
  const std::size_t count = next.size();
  next.rank.reserve_discard(count);
  next.energy.reserve_discard(count);
  return count;
}

// The sweep, level by level; calls found(parts) for every point of the whole workload (walked
// back through the parent pointers). Returns the points kept and the tables' peak bytes.
template <class Found>
std::pair<std::size_t, std::size_t> sweep(const Instance& in, Bounds& b, Pool& pool, Found&& found) {
  const std::size_t s = in.stride();
  const double slack = 1e-9 * b.eps;
  SweepState st(in, pool.size());
  SweepInput si;
  si.in = &in;
  si.last_rank = b.rmax;
  std::vector<double> bound, each;
  std::size_t states = 0, peak = 0;
  for (int k = 0; k < in.p; ++k) {
    const auto [wlo, whi] = clip_targets(in, b.tau, k, b.tstar, b.tmax, si.clip);
    if (b.probes.count() > 0) {
      b.probes.level_bound(in, k, slack, bound, &pool, &each);
      si.bound = bound.data();
      si.each = each.data();
      si.slack = slack;
      si.probe_of = b.probes.probe_of.data();
      si.probes = b.probes.count();
    }
    bucket_by_rank(pool, st.src, b.rmax + 1, st.events);
    si.src = &st.src;
    si.items = &b.usable[static_cast<std::size_t>(k)];
    si.event_start = st.events.start.data();
    si.event_w = st.events.w.data();
    si.event_energy = st.events.energy.data();
    const std::vector<std::int32_t> cut = split_targets(st.src, *si.items, wlo, whi, pool.size());
    const auto T = static_cast<unsigned>(cut.size() - 1);
    if (whi >= wlo) pool.run(T, [&](unsigned t) { st.sweepers[t].run(si, cut[t], cut[t + 1], st.out); });
    // Collect this level's points (the next level's sources) and their parent pointers, each
    // thread its own targets.
    const std::size_t count = next_offsets(st, wlo, whi);
    Back* back = st.arena.take(count);
    st.back[static_cast<std::size_t>(k)] = back;
    if (whi >= wlo) pool.run(T, [&](unsigned t) { collect(st.out, cut[t], cut[t + 1], st.next, back); });
    states += count;
    peak = std::max(peak, states * 8 + (st.src.size() + count) * 12 + b.probes.bytes());
    std::swap(st.src, st.next);
  }
  std::vector<std::int32_t> parts(static_cast<std::size_t>(in.p));
  for (std::uint32_t j = st.src.offset[static_cast<std::size_t>(in.n)]; j < st.src.offset[s]; ++j) {
    std::uint32_t at = j;
    for (std::size_t k = static_cast<std::size_t>(in.p); k-- > 0;) {
      parts[k] = st.back[k][at].part;
      at = st.back[k][at].source;
    }
    found(parts);
  }
  return {states, peak};
}

}  // namespace

Front pareto_front_dp(const Profile& profile, Size workload, const DpOptions& opt, DpStats* stats) {
  const auto t0 = Clock::now();
  const std::optional<Instance> maybe = detail::make_instance(profile, workload);
  if (!maybe) return {};
  const Instance& in = *maybe;
  const unsigned threads = thread_count(opt, in);
  Pool pool(threads);  // kept for all the steps that follow, the walk's or the sweep's
  if (opt.classes != ClassUse::sweep) {
    const ProcessorClasses classes = processor_classes(profile);
    if ((opt.classes == ClassUse::walk || detail::class_walk_pays(in, classes)) &&
        detail::class_walk_bytes(in, classes, class_walk_memory_cap)) {
      detail::ClassWalkStats ws;
      std::vector<Solution> candidates;
      for (const auto& parts : detail::class_walk(in, classes, pool, &ws))
        candidates.push_back(make_solution(profile, in.to_distribution(parts), workload));
      if (stats != nullptr) {
        *stats = DpStats{};
        stats->classes = classes.count();
        stats->thresholds = ws.thresholds;
        stats->threads = threads;
        stats->table_bytes = ws.table_bytes;
        stats->bound_seconds = ws.bound_seconds;
        stats->sweep_seconds = ws.walk_seconds;
      }
      return pareto_filter(std::move(candidates));
    }
  }

  Bounds b;
  if (!bounds(profile, workload, in, opt.probes, pool, b)) return {};
  const auto t1 = Clock::now();
  std::vector<Solution> candidates;
  const auto [states, peak] = sweep(in, b, pool, [&](const std::vector<std::int32_t>& parts) {
    candidates.push_back(make_solution(profile, in.to_distribution(parts), workload));
  });
  Front front = pareto_filter(std::move(candidates));
  if (stats != nullptr) {
    stats->states = states;
    stats->probes = b.probes.count();
    stats->threads = threads;
    stats->table_bytes = peak + b.tau.size() * sizeof(double);
    stats->bound_seconds = std::chrono::duration<double>(t1 - t0).count();
    stats->sweep_seconds = std::chrono::duration<double>(Clock::now() - t1).count();
  }
  return front;
}

}  // namespace ctrl::partition
