// HEPOPTA as the HEPOPTA paper (section IV, Algorithm 1) describes it: a depth-first
// exploration of the solution tree with three operations.
//
//  - The energy threshold eps is the dynamic energy of the time-optimal distribution (HPOPTA,
//    least energy among the time-optimal ones); points of the profiles costing more than eps are
//    ignored, and each processor's points are scanned in non-decreasing order of energy.
//  - The size thresholds sigma_i = sum over j >= i of the largest size of P_j costing at most
//    eps: a node of level i whose workload exceeds sigma_i is not expanded (Cut).
//  - The Pareto set of every node of levels 1..p-2 is saved (SavePareto) in PMem, a
//    (p-2) x (n+1) table of quintuples <energy, time, part, active processors, key>, where key is
//    the energy of the child's saved point it extends; a node met again is read from PMem
//    (ReadParetoMem) instead of being explored.
//
// Cost: every (level, workload) node is expanded once, over at most m + 1 sizes, each combined
// with the child's saved set: O(p * n * m * L log(m L)) time and O(p * n * L) memory, L the
// size of a saved set. The result is the same exact front as pareto_front_dp (tests check it);
// that one is faster and is the default.
#pragma once
#include <ctrl/partition/front.hpp>
#include <ctrl/partition/profile.hpp>

#include <cstddef>
#include <optional>
#include <vector>

namespace ctrl::partition {

// One saved point of PMem: a Pareto-optimal distribution of a node's workload over processors
// i..p-1.
struct PaperMemoEntry {
  double energy = 0.0;        // dynamic energy of processors i..p-1 (summed from i onwards)
  double time = 0.0;          // their parallel time
  Size part = 0;              // the size given to P_i
  int active = 0;             // processors with non-zero work
  std::optional<double> key;  // energy of the child's saved point (absent: no saved child)
};

// What HEPOPTA computed on the way, for tests and for the curious.
struct PaperTrace {
  Solution time_optimal;              // HPOPTA's distribution (dynamic energy)
  double epsilon = 0.0;               // the energy threshold
  std::vector<Size> size_thresholds;  // sigma_0 .. sigma_{p-1}, in workload units
  std::size_t cuts = 0;               // nodes not expanded because of a size threshold
  std::size_t saves = 0;              // SavePareto operations
  std::size_t reads = 0;              // ReadParetoMem operations
  Size unit = 1;                      // sizes are handled in multiples of this gcd
  // PMem: memo[i - 1][w / unit] for level i = 1..p-2; `saved` says whether it was filled.
  std::vector<std::vector<std::vector<PaperMemoEntry>>> memo;
  std::vector<std::vector<char>> saved_flag;

  // The Pareto set saved for the node of level i (1..p-2) with workload w, sorted by increasing
  // energy, or nullptr when that node was never saved.
  const std::vector<PaperMemoEntry>* saved(int level, Size w) const;
};

// The exact (time, dynamic energy) Pareto front, by the paper's algorithm; empty when the
// workload cannot be split. Throws ctrl::UsageError for an empty profile or a workload that is
// not positive.
Front hepopta_paper(const Profile& profile, Size workload, PaperTrace* trace = nullptr);

}  // namespace ctrl::partition
