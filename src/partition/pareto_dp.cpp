#include <ctrl/partition/classes.hpp>
#include <ctrl/partition/pareto_dp.hpp>

#include "class_walk.hpp"
#include "dp_kernels.hpp"
#include "instance.hpp"
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

using detail::inf;
using detail::Instance;
using detail::Item;
using detail::parallel;
using detail::Probes;
using Clock = std::chrono::steady_clock;

constexpr std::uint32_t none = UINT32_MAX;

// The class walk's tables (the copy-count rows of every class) are kept within this.
constexpr std::size_t class_walk_memory_cap = std::size_t{2} << 30;

// The first i in [0, len) with a + b[i] < c[i], or len. Blocks of 8 are tested with vector
// compares and no branch per element, so the common case (no improvement) costs little.
using Vec4 = double __attribute__((vector_size(32)));
using Mask4 = long long __attribute__((vector_size(32)));

inline std::int32_t next_improvement(double a, const double* b, const double* c, std::int32_t len) {
  std::int32_t i = 0;
  const Vec4 a4 = {a, a, a, a};
  for (; i + 8 <= len; i += 8) {
    Vec4 b0, b1, c0, c1;
    std::memcpy(&b0, b + i, sizeof b0);
    std::memcpy(&b1, b + i + 4, sizeof b1);
    std::memcpy(&c0, c + i, sizeof c0);
    std::memcpy(&c1, c + i + 4, sizeof c1);
    const Mask4 m = ((a4 + b0) < c0) | ((a4 + b1) < c1);
    if ((m[0] | m[1]) | (m[2] | m[3])) break;
  }
  for (; i < len; ++i)
    if (a + b[i] < c[i]) return i;
  return len;
}

struct Record {
  std::uint32_t rank;    // time (rank), already raised to the target's least possible final time
  std::int32_t part;     // size given to this level's processor (normalised)
  std::uint32_t source;  // index of the previous level's point it extends
  double energy;
};

// The Pareto points of one level, all workloads together (CSR by workload).
struct Level {
  std::vector<std::uint32_t> offset;  // n + 2
  std::vector<std::uint32_t> rank;
  std::vector<double> energy;
};

// Everything one level's sweep reads.
struct SweepInput {
  const Instance* in = nullptr;
  const Level* src = nullptr;
  std::vector<std::uint32_t> event_start;   // by rank: where the source points of that rank begin
  std::vector<std::uint32_t> event_w;       // workload of each source point, in rank order
  std::vector<Item> items;                  // usable items of this level's processor, by rank
  std::vector<std::uint32_t> clip;          // per target: least final time (rank), or none
  const double* bound = nullptr;            // per (remaining workload, probe): energy to beat
  const std::uint32_t* probe_of = nullptr;  // per rank: the probe interval it lies in
  std::size_t probes = 0;
  std::uint32_t last_rank = 0;
};

// Per-thread state of the sweep, reused across levels.
struct Sweeper {
  void run(const SweepInput& s, std::int32_t lo, std::int32_t hi, std::vector<std::vector<Record>>& out);

  std::vector<double> cv, nv, eact;
  std::vector<std::uint32_t> cur, pos;
  std::vector<std::int32_t> active;
};

// The sweep of one level for the targets [lo, hi) (compiled for AVX2 beside the baseline, the
// improvement test inlined in each).
CTRL_PARTITION_SIMD void Sweeper::run(const SweepInput& s, std::int32_t lo, std::int32_t hi,
                                      std::vector<std::vector<Record>>& out) {
  const std::int32_t n = s.in->n;
  const std::size_t size = static_cast<std::size_t>(n) + 1;
  cv.assign(size, inf);
  nv.assign(size, inf);
  eact.assign(size, inf);
  cur.assign(size, 0);
  pos.assign(s.src->offset.begin(), s.src->offset.end() - 1);
  active.clear();
  std::int32_t xmax = -1;
  for (std::int32_t w = lo; w < hi; ++w) out[static_cast<std::size_t>(w)].clear();

  auto record = [&](std::int32_t w, std::uint32_t rank, double c, std::int32_t x, std::uint32_t j) {
    const std::uint32_t clip = s.clip[static_cast<std::size_t>(w)];
    if (clip == none) return;
    const std::uint32_t r = std::max(rank, clip);
    if (s.bound != nullptr && c > s.bound[static_cast<std::size_t>(n - w) * s.probes + s.probe_of[r]]) return;
    auto& v = out[static_cast<std::size_t>(w)];
    if (!v.empty() && v.back().rank == r)
      v.back() = Record{r, x, j, c};
    else
      v.push_back(Record{r, x, j, c});
  };

  std::size_t ai = 0;
  for (std::uint32_t rank = 0; rank <= s.last_rank; ++rank) {
    // Items of this time become usable: combine them with every source's current point.
    for (; ai < s.items.size() && s.items[ai].rank == rank; ++ai) {
      const std::int32_t x = s.items[ai].size;
      const double e = s.items[ai].energy;
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
    // Sources whose front improves at this time: combine with every usable item.
    for (std::uint32_t i = s.event_start[rank]; i < s.event_start[rank + 1]; ++i) {
      const std::int32_t wp = static_cast<std::int32_t>(s.event_w[i]);
      const std::uint32_t j = pos[static_cast<std::size_t>(wp)]++;
      const double e = s.src->energy[j];
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

}  // namespace

Front pareto_front_dp(const Profile& profile, Size workload, const DpOptions& opt, DpStats* stats) {
  const auto t0 = Clock::now();
  const std::optional<Instance> maybe = detail::make_instance(profile, workload);
  if (!maybe) return {};
  const Instance& in = *maybe;
  const std::int32_t n = in.n;
  const std::size_t s = in.stride();
  const unsigned threads = thread_count(opt, in);
  if (opt.classes != ClassUse::sweep) {
    const ProcessorClasses classes = processor_classes(profile);
    if ((opt.classes == ClassUse::walk || detail::class_walk_pays(in, classes)) &&
        detail::class_walk_bytes(in, classes, class_walk_memory_cap)) {
      detail::ClassWalkStats ws;
      std::vector<Solution> candidates;
      const unsigned walkers = opt.threads != 0 ? opt.threads : detail::usable_cores();
      for (const auto& parts : detail::class_walk(in, classes, walkers, &ws))
        candidates.push_back(make_solution(profile, in.to_distribution(parts), workload));
      if (stats != nullptr) {
        *stats = DpStats{};
        stats->classes = classes.count();
        stats->thresholds = ws.thresholds;
        stats->threads = walkers;
        stats->table_bytes = ws.table_bytes;
        stats->bound_seconds = ws.bound_seconds;
        stats->sweep_seconds = ws.walk_seconds;
      }
      return pareto_filter(std::move(candidates));
    }
  }

  // Corners of the front: the time-optimal point (HPOPTA) and an energy-optimal distribution.
  const std::vector<double> tau = detail::suffix_min_max_time(in);
  const double tstar = tau[static_cast<std::size_t>(n)];
  if (!(tstar < inf)) return {};
  const auto fast = detail::min_energy_parts(in, in.same_time_limit(tstar), inf);
  const double eps = make_solution(profile, in.to_distribution(*fast), workload).energy;
  const auto frugal = detail::min_energy_parts(in, inf, eps);
  const double tmax = make_solution(profile, in.to_distribution(*frugal), workload).time;
  const std::uint32_t rstar = in.rank_of(tstar), rmax = in.rank_of(tmax);

  // No front point uses an item costlier than eps or slower than tmax.
  std::vector<std::vector<Item>> usable(in.items.size());
  for (std::size_t k = 0; k < in.items.size(); ++k) {
    usable[k].push_back(Item{0, 0.0, 0.0, 0});
    for (const Item& it : in.items[k])
      if (it.time <= tmax && it.energy <= eps) usable[k].push_back(it);
    std::stable_sort(usable[k].begin(), usable[k].end(), [](const Item& a, const Item& b) { return a.rank < b.rank; });
  }
  Probes probes;
  if (opt.probes > 0) probes = detail::make_probes(in, rstar, rmax, eps, opt.probes, threads);
  const double slack = 1e-9 * eps;
  const auto t1 = Clock::now();

  // The sweep, level by level.
  Level src;
  src.offset.assign(s + 1, 1);
  src.offset[0] = 0;
  src.rank = {0};
  src.energy = {0.0};
  std::vector<std::vector<std::int32_t>> part(static_cast<std::size_t>(in.p));
  std::vector<std::vector<std::uint32_t>> parent(static_cast<std::size_t>(in.p));
  std::vector<std::vector<Record>> out(s);
  std::vector<Sweeper> sweepers(threads);
  std::vector<double> bound;
  std::size_t states = 0, peak = 0;
  for (int k = 0; k < in.p; ++k) {
    SweepInput si;
    si.in = &in;
    si.src = &src;
    si.items = usable[static_cast<std::size_t>(k)];
    si.last_rank = rmax;
    const bool last = k == in.p - 1;
    si.clip.assign(s, none);
    std::int32_t wlo = n + 1, whi = -1;
    for (std::int32_t w = last ? n : 0; w <= n; ++w) {
      const double rest = tau[static_cast<std::size_t>(k + 1) * s + static_cast<std::size_t>(n - w)];
      const double least = std::max(rest, tstar);
      if (!(least <= tmax)) continue;
      si.clip[static_cast<std::size_t>(w)] = in.rank_of(least);
      wlo = std::min(wlo, w);
      whi = std::max(whi, w);
    }
    if (probes.count() > 0) {
      probes.level_bound(in, k, slack, bound);
      si.bound = bound.data();
      si.probe_of = probes.probe_of.data();
      si.probes = probes.count();
    }
    // Bucket the source points by rank (counting sort).
    si.event_start.assign(static_cast<std::size_t>(rmax) + 2, 0);
    for (const std::uint32_t r : src.rank) ++si.event_start[r + 1];
    for (std::size_t r = 0; r + 1 < si.event_start.size(); ++r) si.event_start[r + 1] += si.event_start[r];
    si.event_w.resize(src.rank.size());
    {
      std::vector<std::uint32_t> fill(si.event_start.begin(), si.event_start.end() - 1);
      for (std::size_t w = 0; w < s; ++w)
        for (std::uint32_t j = src.offset[w]; j < src.offset[w + 1]; ++j)
          si.event_w[fill[src.rank[j]]++] = static_cast<std::uint32_t>(w);
    }
    // Split the targets between threads by their estimated work: the source points within reach
    // of each target (at most the largest usable size below it).
    const unsigned T = whi < wlo ? 1 : std::min<unsigned>(threads, static_cast<unsigned>(whi - wlo + 1));
    std::vector<std::int32_t> cut(T + 1, wlo);
    cut[T] = whi + 1;
    if (T > 1) {
      std::int32_t reach = 0;
      for (const Item& it : si.items) reach = std::max(reach, it.size);
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
    }
    if (whi >= wlo) parallel(T, [&](unsigned t) { sweepers[t].run(si, cut[t], cut[t + 1], out); });

    // Collect this level's points: the next level's sources, and the parent pointers.
    Level next;
    next.offset.assign(s + 1, 0);
    auto& pk = part[static_cast<std::size_t>(k)];
    auto& ak = parent[static_cast<std::size_t>(k)];
    for (std::size_t w = 0; w < s; ++w) {
      next.offset[w + 1] =
          next.offset[w] + static_cast<std::uint32_t>(whi >= wlo && static_cast<std::int32_t>(w) >= wlo &&
                                                              static_cast<std::int32_t>(w) <= whi
                                                          ? out[w].size()
                                                          : 0);
    }
    next.rank.reserve(next.offset[s]);
    next.energy.reserve(next.offset[s]);
    pk.reserve(next.offset[s]);
    ak.reserve(next.offset[s]);
    for (std::int32_t w = wlo; w <= whi; ++w)
      for (const Record& r : out[static_cast<std::size_t>(w)]) {
        next.rank.push_back(r.rank);
        next.energy.push_back(r.energy);
        pk.push_back(r.part);
        ak.push_back(r.source);
      }
    states += next.rank.size();
    peak = std::max(peak, states * 8 + (src.rank.size() + next.rank.size()) * 12 + probes.bytes());
    src = std::move(next);
  }

  // Walk the parent pointers back from the points of the whole workload.
  std::vector<Solution> candidates;
  const std::uint32_t first = src.offset[static_cast<std::size_t>(n)], end = src.offset[s];
  for (std::uint32_t j = first; j < end; ++j) {
    std::vector<std::int32_t> parts(static_cast<std::size_t>(in.p));
    std::uint32_t at = j;
    for (std::size_t k = static_cast<std::size_t>(in.p); k-- > 0;) {
      parts[k] = part[k][at];
      at = parent[k][at];
    }
    candidates.push_back(make_solution(profile, in.to_distribution(parts), workload));
  }
  Front front = pareto_filter(std::move(candidates));
  if (stats != nullptr) {
    stats->states = states;
    stats->probes = probes.count();
    stats->threads = threads;
    stats->table_bytes = peak + tau.size() * sizeof(double);
    stats->bound_seconds = std::chrono::duration<double>(t1 - t0).count();
    stats->sweep_seconds = std::chrono::duration<double>(Clock::now() - t1).count();
  }
  return front;
}

}  // namespace ctrl::partition
