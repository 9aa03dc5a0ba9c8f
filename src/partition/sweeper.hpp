// Private: one level's sweep over the targets of one thread, the kernel of the exact dynamic
// programme (pareto_dp.cpp drives it level by level; docs/partition.md describes the sweep).
#pragma once
#include "buffer.hpp"
#include "instance.hpp"
#include "probes.hpp"

#include <cstdint>
#include <ctime>
#include <vector>

namespace ctrl::partition::detail {

inline constexpr std::uint32_t none = UINT32_MAX;

// The calling thread's CPU time: what its share of a level cost, even where threads outnumber
// the cores (DpStats::imbalance).
inline double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
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

// Everything one level's sweep reads.
struct SweepInput {
  const Instance* in = nullptr;
  const Level* src = nullptr;
  const std::vector<Item>* items = nullptr;  // usable items of this level's processor, by rank
  std::vector<std::uint32_t> clip;           // per target: least final time (rank), or none
  const Probes* probes = nullptr;            // null: no bounds (and none of the four below)
  double* bound = nullptr;                   // per (probe, remaining workload): energy to beat
  const float* const* lower = nullptr;       // per probe: the rows `bound` comes from (interval_bound)
  double slack = 0.0;                        // added to every bound
  const std::uint32_t* probe_of = nullptr;   // per rank: the probe interval it lies in
  std::uint32_t last_rank = 0;
};

// Per-thread state of the sweep, reused across levels.
struct Sweeper {
  // Sweeps the targets [lo, hi) of level s (their bounds first, where there are probes): each
  // target's points, in time order, into out[w].
  void run(const SweepInput& s, std::int32_t lo, std::int32_t hi, std::vector<std::vector<Record>>& out);

  // Sets the arrays by workload for the sources [a, h) and the targets [lo, h), and makes room
  // for the targets' records.
  void prepare(const SweepInput& s, std::size_t a, std::size_t lo, std::size_t h,
               std::vector<std::vector<Record>>& out);
  void cap(const SweepInput& s, std::int32_t lo, std::int32_t hi, std::uint32_t rank);
  void bucket(const Level& src, std::uint32_t ranks, std::int32_t a, std::int32_t b);
  void sweep(const SweepInput& s, std::int32_t lo, std::int32_t hi, std::vector<std::vector<Record>>& out);

  std::vector<double> cv, nv, eact;
  std::vector<std::uint32_t> cur, pos;
  std::vector<std::int32_t> active;
  std::vector<Record> last;  // per target: its latest point, not yet in `out` (rank none: no point)
  // The sources this thread's targets can reach, bucketed by rank (a stable counting sort, so each
  // rank lists them in workload order): the sweep's events. Each thread buckets its own, in its
  // own cache, with no step between threads; neighbouring threads share only the sources within
  // the largest usable size below their first target.
  std::vector<std::uint32_t> event_start;  // by rank: where its sources begin
  UninitVector<std::uint32_t> event_w;
  UninitVector<double> event_energy;
  double bucket_seconds = 0.0;  // CPU time of the last bucket()
  double bound_seconds = 0.0;   // and of the last level's bounds of this thread's targets
};

}  // namespace ctrl::partition::detail
