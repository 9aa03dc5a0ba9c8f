#include <ctrl/partition/classes.hpp>
#include <ctrl/partition/pareto_dp.hpp>

#include "buffer.hpp"
#include "class_walk.hpp"
#include "dp_kernels.hpp"
#include "instance.hpp"
#include "pool.hpp"
#include "probes.hpp"
#include "summary.hpp"
#include "sweeper.hpp"
#include "target_split.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ctrl::partition {

namespace {

using detail::Back;
using detail::Checkpoint;
using detail::inf;
using detail::Instance;
using detail::Item;
using detail::Level;
using detail::none;
using detail::Packed;
using detail::Pool;
using detail::Probes;
using detail::Record;
using detail::split_targets;
using detail::Summary;
using detail::Sweeper;
using detail::SweepInput;
using detail::thread_cpu_seconds;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The class walk's tables (the copy-count rows of every class) are kept within this.
constexpr std::size_t class_walk_memory_cap = std::size_t{2} << 30;

// An instance whose sweep is worth threads and more probes: items times workload units past 2^22.
bool large(const Instance& in) {
  std::size_t items = 0;
  for (const auto& v : in.items) items += v.size();
  return items * static_cast<std::size_t>(in.n) >= (std::size_t{1} << 22);
}

// As asked; by default every core this process may use (rank 0's node computes the front while
// the others wait), and one for small instances, where starting threads at every level would cost
// more than it saves. The front does not depend on it.
unsigned thread_count(const DpOptions& opt, const Instance& in) {
  if (opt.threads != 0) return opt.threads;
  return large(in) ? detail::usable_cores() : 1;
}

// DpOptions::probes, the default resolved: twice the thresholds where the sweep is large.
int probe_count(const DpOptions& opt, const Instance& in) {
  if (opt.probes >= 0) return opt.probes;
  return large(in) ? 128 : 64;
}

// The remaining workloads [first, second) of the targets [wlo, whi] (empty when whi < wlo): where
// a level reads its probes' bounds.
std::pair<std::int32_t, std::int32_t> remaining(const Instance& in, std::int32_t wlo, std::int32_t whi) {
  return whi < wlo ? std::pair{0, 0} : std::pair{in.n - whi, in.n - wlo + 1};
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
  std::vector<std::int32_t> reach;        // per level k: the largest usable sizes of 0..k together
  Probes probes;
};

// The probe tables' share of the memory limit: a quarter, within [256 MiB, 1 GiB] (past 256 MiB
// it buys more thresholds, not full tables: make_probes). More probes bound the sweep more
// tightly, so it keeps fewer points and needs fewer pointers: at p = 1000 (n = 16,000, 2 GiB) the
// old fixed 256 MiB held 32 of the 64 thresholds asked and the sweep kept 1.75 G points; 512 MiB
// holds all 64, 1.22 G points, the front 20 % sooner within the same limit (2 threads). The
// bounds are exact at every threshold, so the front is the same.
std::size_t probe_memory(std::size_t limit) {
  return std::clamp(limit / 4, detail::probe_memory_cap, std::size_t{1} << 30);
}

// The targets a level keeps ([wlo, whi], empty when whi < wlo) and their least final times: a
// point of workload w can end no sooner than the remaining processors allow, and no workload past
// the largest sizes of processors 0..k together has a point.
std::pair<std::int32_t, std::int32_t> clip_targets(const Instance& in, const Bounds& b, int k,
                                                   std::vector<std::uint32_t>& clip) {
  const std::int32_t n = in.n;
  const std::size_t s = in.stride();
  clip.assign(s, none);
  std::int32_t wlo = n + 1, whi = -1;
  double seen = -inf;  // neighbouring workloads mostly share their least time: search it once
  std::uint32_t seen_rank = 0;
  const std::int32_t most = std::min(n, b.reach[static_cast<std::size_t>(k)]);
  for (std::int32_t w = k == in.p - 1 ? n : 0; w <= most; ++w) {
    const double rest = b.tau[static_cast<std::size_t>(k + 1) * s + static_cast<std::size_t>(n - w)];
    const double least = std::max(rest, b.tstar);
    if (!(least <= b.tmax)) continue;
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

// The bounds; false when no distribution exists.
bool bounds(const Profile& profile, Size workload, const Instance& in, const DpOptions& opt, Pool& pool, Bounds& b) {
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
  b.reach.resize(in.items.size());
  for (std::size_t k = 0, sum = 0; k < in.items.size(); ++k) {
    sum = std::min<std::size_t>(sum + static_cast<std::size_t>(detail::largest_size(b.usable[k])), INT32_MAX);
    b.reach[k] = static_cast<std::int32_t>(sum);
  }
  if (const int asked = probe_count(opt, in); asked > 0) {
    b.probes = detail::make_probes(in, rstar, b.rmax, b.eps, asked, pool.size(), probe_memory(opt.memory_limit));
    // Each level reads its bounds only at the remaining workloads of the targets it keeps.
    std::vector<std::uint32_t> clip;
    b.probes.reads.resize(static_cast<std::size_t>(in.p));
    for (int k = 0; k < in.p; ++k) {
      const auto [wlo, whi] = clip_targets(in, b, k, clip);
      b.probes.reads[static_cast<std::size_t>(k)] = remaining(in, wlo, whi);
    }
  }
  return true;
}

// The storage of the sweep, kept from level to level: the sources and the next level's points
// (swapped), the records of every target, the threads' sweepers, and what gives the
// distributions back. While the memory limit allows, every level's parent pointers are kept (in
// `arena`). Past it, levels `kept` .. p - 1 are cut into segments, each starting after a
// checkpoint (the points of the level before it), and only the current segment's pointers are
// held (in `segment`). When a segment ends, its paths are summarised (Summary, kept with the next
// checkpoint) where the limit allows, and the checkpoint before it drops its points; at the end,
// the other segments are swept again from their checkpoints, last first, and the front's points
// are walked back through each, summaries and pointers.
struct SweepState {
  SweepState(const Instance& in, unsigned threads)
      : back(static_cast<std::size_t>(in.p)), out(in.stride()), sweepers(threads), kept(in.p) {
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
  std::vector<const Back*> back;  // per level, while its pointers are held
  std::vector<std::vector<Record>> out;
  std::vector<Sweeper> sweepers;

  detail::Arena<Back> arena;            // parent pointers of levels 0 .. kept - 1, kept to the end
  detail::Arena<Back> segment;          // those of the current segment
  std::vector<Checkpoint> checkpoints;  // checkpoints[i]: the level before segment i
  std::size_t checkpoint_bytes = 0;
  int kept;                    // p while every level's pointers are kept
  std::size_t quota = 0;       // most bytes of a segment's pointers
  int segment_levels = 0;      // levels in the current segment
  std::size_t recomputed = 0;  // levels swept again
  std::size_t summarised = 0;  // levels whose paths were summarised instead
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

// The sweep, level by level, within a memory limit (DpOptions::memory_limit), and the walk back
// from the front's points to their distributions.
class Sweep {
 public:
  Sweep(const Instance& in, Bounds& b, Pool& pool, std::size_t limit)
      : in_(in), b_(b), pool_(pool), st_(in, pool.size()), limit_(limit), slack_(1e-9 * b.eps) {
    si_.in = &in;
    si_.last_rank = b.rmax;
    if (b.probes.count() > 0) {
      bound_.resize(in.stride() * b.probes.count());  // each thread computes its targets' bounds
      si_.probes = &b.probes;
      si_.bound = bound_.data();
      si_.slack = slack_;
      si_.probe_of = b.probes.probe_of.data();
    }
  }

  // Every level; the points kept.
  std::size_t forward() {
    std::size_t states = 0;
    for (int k = 0; k < in_.p; ++k) states += level(k, true);
    return states;
  }

  // Calls found(parts) for every point of the whole workload, in time order.
  template <class Found>
  void recover(Found&& found);

  std::size_t peak() const { return peak_; }
  std::size_t recomputed() const { return st_.recomputed; }
  std::size_t summarised() const { return st_.summarised; }
  std::size_t checkpoints() const { return checkpoints_; }
  // The forward sweep's phases (DpStats).
  struct Phases {
    double bounds = 0.0, events = 0.0, targets = 0.0, collect = 0.0;
    double busiest = 0.0, mean = 0.0;  // threads' sweep times, summed over levels
  };
  const Phases& phases() const { return phases_; }

 private:
  std::size_t level(int k, bool forward, std::int32_t lo = 0, std::int32_t hi = INT32_MAX);
  Back* pointers(int k, std::size_t count);
  void resweep(std::size_t s, int last, std::int32_t lo, std::int32_t hi);
  std::optional<Summary> summarise(int k, std::size_t next_segment);
  std::size_t working() const;
  std::size_t held() const {
    return st_.arena.bytes() + st_.segment.bytes() + st_.checkpoint_bytes + working() + walk_bytes_;
  }
  // What the limit leaves beside the kept pointers, the checkpoints and the sweep's own storage.
  std::size_t room() const {
    const std::size_t used = st_.arena.bytes() + st_.checkpoint_bytes + working();
    return limit_ > used ? limit_ - used : 0;
  }

  const Instance& in_;
  Bounds& b_;
  Pool& pool_;
  SweepState st_;
  SweepInput si_;
  std::vector<double> bound_;
  std::vector<const float*> lower_;
  std::size_t limit_;
  double slack_;
  std::size_t peak_ = 0, walk_bytes_ = 0;
  std::size_t checkpoints_ = 0;  // made by the forward sweep
  Phases phases_;
  std::vector<double> thread_seconds_;
};

// Merges processor k: st.src (level k - 1) into level k, which becomes st.src; its parent
// pointers are kept where `pointers` says (forward) or in the segment (sweeping again, only the
// targets [lo, hi] that the walk back can reach). Returns the level's points.
std::size_t Sweep::level(int k, bool forward, std::int32_t lo, std::int32_t hi) {
  auto [wlo, whi] = clip_targets(in_, b_, k, si_.clip);
  wlo = std::max(wlo, lo);
  whi = std::min(whi, hi);
  if (si_.probes != nullptr) {
    const auto t0 = Clock::now();
    b_.probes.lower_rows(in_, k, lower_);
    si_.lower = lower_.data();
    if (forward) phases_.bounds += seconds_since(t0);
  }
  si_.src = &st_.src;
  si_.items = &b_.usable[static_cast<std::size_t>(k)];
  const std::vector<std::int32_t> cut = split_targets(st_.src, *si_.items, st_.out, wlo, whi, pool_.size());
  const auto T = static_cast<unsigned>(cut.size() - 1);
  auto t0 = Clock::now();
  thread_seconds_.assign(T, 0.0);
  if (whi >= wlo)
    pool_.run(T, [&](unsigned t) {
      const double start = thread_cpu_seconds();
      st_.sweepers[t].run(si_, cut[t], cut[t + 1], st_.out);
      thread_seconds_[t] = thread_cpu_seconds() - start;
    });
  if (forward) {
    phases_.targets += seconds_since(t0);
    phases_.busiest += *std::max_element(thread_seconds_.begin(), thread_seconds_.end());
    for (const double x : thread_seconds_) phases_.mean += x / T;
    for (unsigned t = 0; t < T; ++t) {
      phases_.events += st_.sweepers[t].bucket_seconds / T;
      phases_.bounds += st_.sweepers[t].bound_seconds / T;
    }
  }
  t0 = Clock::now();
  // Collect this level's points (the next level's sources) and their parent pointers, each
  // thread its own targets.
  const std::size_t count = next_offsets(st_, wlo, whi);
  Back* back = forward ? pointers(k, count) : st_.segment.take(count);
  st_.back[static_cast<std::size_t>(k)] = back;
  // Records' storage is given back where it is more than twice what the target's front needs
  // now: each target's storage would otherwise stay as large as its largest front so far (and
  // targets the level no longer keeps hold theirs), about ten times a level at p = 1000. Each
  // thread fits its own targets' (allocated on it, mostly: back to its own malloc arena), then
  // the targets the level does not keep are emptied here.
  const auto fit = [&](std::size_t from, std::size_t to, bool kept) {
    for (std::size_t w = from; w < to; ++w) {
      std::vector<Record>& v = st_.out[w];
      const std::size_t need = kept ? v.size() : 0;
      if (v.capacity() > 2 * need + 16) {
        std::vector<Record> fitted;
        if (need > 0) fitted.reserve(need + need / 4 + 8);
        v.swap(fitted);
      }
    }
  };
  if (whi >= wlo) {
    pool_.run(T, [&](unsigned t) {
      collect(st_.out, cut[t], cut[t + 1], st_.next, back);
      fit(static_cast<std::size_t>(cut[t]), static_cast<std::size_t>(cut[t + 1]), true);
    });
    fit(0, static_cast<std::size_t>(wlo), false);
    fit(static_cast<std::size_t>(whi) + 1, st_.out.size(), false);
  } else {
    fit(0, st_.out.size(), false);
  }
  peak_ = std::max(peak_, held());
  std::swap(st_.src, st_.next);
  if (forward) phases_.collect += seconds_since(t0);
  return count;
}

// Where level k's `count` parent pointers go. Every level's are kept while they, and as many for
// each level still to come (levels grow), fit the limit beside the sweep's own storage. Past
// that, level k - 1 becomes the first checkpoint and the levels from k are cut into segments
// whose pointers take at most `quota` bytes: half of what the limit leaves when the segment
// starts (the other half for the checkpoints still to come: a segment of L levels costs 8 L
// bytes a point, the checkpoints of p / L segments 12 p / L, so halves are about the fewest bytes
// in all), never more than the segment before (checkpoints only accumulate, and the last segment
// is the largest level's: shorter segments at the end keep the peak down). Where the limit
// leaves less, at least sqrt(1.5 (p - k)) levels of the size of the segment's first: the fewest
// bytes for levels of one size (checkpoints at every level would take more than the pointers).
Back* Sweep::pointers(int k, std::size_t count) {
  const std::size_t bytes = count * sizeof(Back);
  if (st_.kept == in_.p) {
    const double forecast = static_cast<double>(st_.arena.used_bytes()) +
                            static_cast<double>(bytes) * static_cast<double>(in_.p - k) +
                            static_cast<double>(working());
    if (limit_ == SIZE_MAX || forecast <= static_cast<double>(limit_)) return st_.arena.take(count);
    st_.kept = k;
    st_.quota = SIZE_MAX;
  } else if (st_.segment.used_bytes() + bytes <= st_.quota) {
    ++st_.segment_levels;
    return st_.segment.take(count);
  }
  const auto levels = static_cast<std::size_t>(std::ceil(std::sqrt(1.5 * (in_.p - k))));
  std::optional<Summary> summary;
  if (!st_.checkpoints.empty()) {  // a segment ends at k - 1
    summary = summarise(k, levels * bytes);
    for (int j = k - st_.segment_levels; j < k; ++j) st_.back[static_cast<std::size_t>(j)] = nullptr;
  }
  // Once a segment is summarised, the next ones take a quarter: a summary costs about a byte a
  // point of its segment however long, so shorter segments leave more room for the summaries.
  const std::size_t share = summary ? room() / 4 : room() / 2;
  st_.quota = std::max(std::min(st_.quota, share), levels * bytes);
  if (st_.segment.bytes() > st_.quota + st_.quota / 2)
    st_.segment = detail::Arena<Back>{};  // no more memory than the shorter segments need
  else
    st_.segment.rewind();
#if defined(__GLIBC__)
  // The records' storage, given up and taken again by every thread at every level, leaves free
  // chunks in each thread's malloc arena that are not given back by themselves: 200 MiB past the
  // sweep's count at p = 1000 on 16 threads, 80 MiB after this.
  malloc_trim(0);
#endif
  st_.checkpoints.emplace_back(st_.src, k - 1, pool_);  // a new segment starts at k
  st_.checkpoints.back().summary = std::move(summary);
  st_.checkpoint_bytes += st_.checkpoints.back().bytes();
  ++checkpoints_;
  st_.segment_levels = 1;
  return st_.segment.take(count);
}

// The summary of the segment that ends at level k - 1 (its pointers still held), made when it fits
// the limit both while it is made (beside everything held) and after (the segment's pointers and
// the points of the checkpoint before it gone, the checkpoint of level k - 1 and the next segment
// of at least the least length pointers() gives it come, `next_segment` bytes). The checkpoint
// before the segment then drops its points: the segment is never swept again. Empty where it does
// not fit: the segment will be swept again from that checkpoint.
std::optional<Summary> Sweep::summarise(int k, std::size_t next_segment) {
  Checkpoint& before = st_.checkpoints.back();
  const int first = before.level + 1, last = k - 1;
  std::int32_t most = 0;
  for (int j = first; j <= last; ++j)
    most = std::max(most, detail::largest_size(b_.usable[static_cast<std::size_t>(j)]));
  std::uint32_t longest = 0;  // front at level first - 1
  for (std::size_t w = 0; w + 1 < before.offset.size(); ++w)
    longest = std::max(longest, before.offset[w + 1] - before.offset[w]);
  const std::size_t points = st_.src.size(), L = static_cast<std::size_t>(last - first + 1);
  const std::size_t bytes =
      Packed::bytes_for(points * L, static_cast<std::uint32_t>(most)) + Packed::bytes_for(points, longest);
  const std::size_t while_made = held() + bytes + points * (sizeof(std::uint32_t) + sizeof(std::int32_t)),
                    after = held() - st_.segment.bytes() - before.point_bytes() + bytes +
                            Checkpoint::bytes_for(st_.src) + next_segment;
  if (while_made > limit_ || after > limit_ - limit_ / 16) return std::nullopt;  // a 16th for the allocator
  Summary sm;
  sm.first = first;
  sm.last = last;
  sm.points = points;
  sm.parts = Packed(points * L, static_cast<std::uint32_t>(most));
  sm.place = Packed(points, longest);
  // A level at a time for all of a thread's points: the loads of one level are independent (a
  // point's walk alone is a chain of dependent cache misses), the parts of a level are written in
  // order, and the sources of points in workload order mostly rise, so each level's pointers are
  // read nearly in order (on 2 threads at p = 1000: 4.5 s against 5.4-5.8 s in batches of 64
  // points, and 16 s point by point).
  const std::vector<std::uint32_t>& offset = st_.src.offset;  // level `last`
  pool_.slices(pool_.size(), points, [&](std::size_t lo, std::size_t hi) {
    std::vector<std::uint32_t> at(hi - lo);
    std::vector<std::int32_t> w(hi - lo);
    auto v = static_cast<std::size_t>(std::upper_bound(offset.begin(), offset.end(), lo) - offset.begin()) - 1;
    for (std::size_t i = 0; i < at.size(); ++i) {
      at[i] = static_cast<std::uint32_t>(lo + i);
      while (offset[v + 1] <= at[i]) ++v;
      w[i] = static_cast<std::int32_t>(v);
    }
    for (int j = last; j >= first; --j) {
      const Back* back = st_.back[static_cast<std::size_t>(j)];
      const std::size_t row = static_cast<std::size_t>(j - first) * points + lo;
      for (std::size_t i = 0; i < at.size(); ++i) {
        const Back b = back[at[i]];
        sm.parts.set(row + i, static_cast<std::uint32_t>(b.part));
        at[i] = b.source;
        w[i] -= b.part;
      }
    }
    for (std::size_t i = 0; i < at.size(); ++i)
      sm.place.set(lo + i, at[i] - before.offset[static_cast<std::size_t>(w[i])]);
  });
  peak_ = std::max(peak_, while_made);
  st_.checkpoint_bytes -= before.point_bytes();
  before.drop_points();
  st_.summarised += L;
  return sm;
}

// Sweeps segment s again (levels after its checkpoint up to `last`), its pointers in the segment,
// for the walk back from points of workloads [lo, hi] at level `last`: their ancestors have no
// more workload, and at most the largest usable size less a level down, so only those targets
// are swept (a target's points depend only on the sources within reach below it: the same points
// in the same order, at other offsets).
void Sweep::resweep(std::size_t s, int last, std::int32_t lo, std::int32_t hi) {
  st_.segment.rewind();
  const Checkpoint& cp = st_.checkpoints[s];
  std::vector<std::int32_t> from(static_cast<std::size_t>(last - cp.level));  // lo of each level
  for (int k = last; k > cp.level; --k) {
    from[static_cast<std::size_t>(k - cp.level - 1)] = lo;
    lo = std::max(lo - detail::largest_size(b_.usable[static_cast<std::size_t>(k)]), 0);
  }
  // The probes' bounds of these levels are needed only at the targets swept again: narrower than
  // the forward sweep's, so the rows between kept ones are recomputed for them alone (each level
  // is swept again once; a block of rows shared with another segment is computed again).
  if (!b_.probes.reads.empty())
    for (int k = cp.level + 1; k <= last; ++k)
      b_.probes.narrow_reads(k, remaining(in_, from[static_cast<std::size_t>(k - cp.level - 1)], hi));
  cp.restore(st_.src, pool_);
  for (int k = cp.level + 1; k <= last; ++k) level(k, false, from[static_cast<std::size_t>(k - cp.level - 1)], hi);
  st_.recomputed += static_cast<std::size_t>(last - cp.level);
}

template <class Found>
void Sweep::recover(Found&& found) {
  const std::size_t s = in_.stride(), p = static_cast<std::size_t>(in_.p);
  const std::uint32_t first = st_.src.offset[static_cast<std::size_t>(in_.n)], end = st_.src.offset[s];
  std::vector<std::uint32_t> at(end - first);  // per front point: its ancestor at the level walked
  for (std::size_t i = 0; i < at.size(); ++i) at[i] = first + static_cast<std::uint32_t>(i);
  std::vector<std::int32_t> parts(at.size() * p);  // [point][level]
  walk_bytes_ = at.size() * (sizeof(std::uint32_t) + p * sizeof(std::int32_t));
  peak_ = std::max(peak_, held());
  const auto walk = [&](int k) {
    const Back* back = st_.back[static_cast<std::size_t>(k)];
    for (std::size_t i = 0; i < at.size(); ++i) {
      parts[i * p + static_cast<std::size_t>(k)] = back[at[i]].part;
      at[i] = back[at[i]].source;
    }
  };
  int k = in_.p - 1;
  const std::size_t segments = st_.checkpoints.size();
  std::vector<std::uint32_t> offset;  // of the level reached, as the forward sweep numbered it
  std::vector<std::int32_t> workload(at.size());
  std::optional<Summary> summary;  // of the segment that ends at the level reached
  for (std::size_t c = segments; c-- > 0;) {
    if (summary) {  // read its paths; `offset` is its last level's, the checkpoint's its first's
      const std::vector<std::uint32_t>& below = st_.checkpoints[c].offset;
      for (std::size_t i = 0; i < at.size(); ++i) {
        auto w = static_cast<std::int32_t>(std::upper_bound(offset.begin(), offset.end(), at[i]) - offset.begin() - 1);
        for (int j = summary->first; j <= summary->last; ++j) {
          const std::int32_t part = summary->part(at[i], j);
          parts[i * p + static_cast<std::size_t>(j)] = part;
          w -= part;
        }
        at[i] = below[static_cast<std::size_t>(w)] + summary->place.get(at[i]);
      }
      k = summary->first - 1;
    } else if (c + 1 < segments) {  // the last segment's pointers are still held; sweep the others again
      std::int32_t lo = in_.n, hi = 0;
      for (std::size_t i = 0; i < at.size(); ++i) {
        const auto w = std::upper_bound(offset.begin(), offset.end(), at[i]) - offset.begin() - 1;
        workload[i] = static_cast<std::int32_t>(w);
        at[i] -= offset[static_cast<std::size_t>(w)];  // the point's place in its workload's front
        lo = std::min(lo, workload[i]);
        hi = std::max(hi, workload[i]);
      }
      resweep(c, k, lo, hi);
      for (std::size_t i = 0; i < at.size(); ++i) at[i] += st_.src.offset[static_cast<std::size_t>(workload[i])];
    }
    for (; k > st_.checkpoints[c].level; --k) walk(k);
    st_.checkpoint_bytes -= st_.checkpoints[c].bytes();
    offset = std::move(st_.checkpoints[c].offset);
    summary = std::move(st_.checkpoints[c].summary);
    st_.checkpoints.pop_back();
  }
  for (; k >= 0; --k) walk(k);
  std::vector<std::int32_t> one(p);
  for (std::size_t i = 0; i < at.size(); ++i) {
    std::copy_n(parts.begin() + static_cast<std::ptrdiff_t>(i * p), p, one.begin());
    found(one);
  }
}

// Bytes of the sweep's own storage: the two levels, the threads' events, the records, the bounds.
std::size_t Sweep::working() const {
  std::size_t records = 0;
  for (const auto& v : st_.out) records += v.capacity();
  const std::size_t points = st_.src.size() + st_.next.size();
  // The threads' events hold the sources about once between them (neighbours share those within
  // the largest size below a thread's first target): counted as once, so that what the limit
  // decides does not depend on how the targets were split.
  const std::size_t events = st_.src.size() * (sizeof(std::uint32_t) + sizeof(double));
  return points * (sizeof(std::uint32_t) + sizeof(double)) + events + records * sizeof(Record) +
         2 * st_.src.offset.size() * sizeof(std::uint32_t) + (bound_.size() + b_.tau.size()) * sizeof(double) +
         b_.probes.bytes();
}

}  // namespace

Front pareto_front_dp(const Profile& profile, Size workload, const DpOptions& opt, DpStats* stats) {
  detail::check_threads(opt.threads);
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
  if (!bounds(profile, workload, in, opt, pool, b)) return {};
  const auto t1 = Clock::now();
  std::vector<Solution> candidates;
  Sweep sweep(in, b, pool, opt.memory_limit);
  const std::size_t states = sweep.forward();
  const auto t2 = Clock::now();
  sweep.recover([&](const std::vector<std::int32_t>& parts) {
    candidates.push_back(make_solution(profile, in.to_distribution(parts), workload));
  });
  const double recover_seconds = seconds_since(t2);
  Front front = pareto_filter(std::move(candidates));
  if (stats != nullptr) {
    stats->states = states;
    stats->probes = b.probes.count();
    stats->threads = threads;
    stats->table_bytes = sweep.peak();
    stats->checkpoints = sweep.checkpoints();
    stats->recomputed_levels = sweep.recomputed();
    stats->summarised_levels = sweep.summarised();
    stats->bound_seconds = std::chrono::duration<double>(t1 - t0).count();
    stats->sweep_seconds = seconds_since(t1);
    const Sweep::Phases& ph = sweep.phases();
    stats->level_bound_seconds = ph.bounds;
    stats->events_seconds = ph.events;
    stats->targets_seconds = ph.targets;
    stats->collect_seconds = ph.collect;
    stats->recover_seconds = recover_seconds;
    stats->imbalance = ph.mean > 0.0 ? ph.busiest / ph.mean : 1.0;
  }
  return front;
}

}  // namespace ctrl::partition
