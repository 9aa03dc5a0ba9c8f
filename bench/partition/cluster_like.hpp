// Profiles of a simulated heterogeneous cluster, for the growth of the optimisers with the number
// of abstract processors (processors_bench.cpp). Built on the measured DGEMM profile
// (dgemm_like.hpp's Measured: time and dynamic energy per flop at 200 measured sizes).
//
// The cluster has four kinds of node, as a machine room bought over the years:
//   A: 2 Haswell sockets + 2 K40-class GPUs     B: 2 Skylake sockets + 4 P100-class GPUs
//   C: 2 Skylake sockets + 4 V100-class GPUs    D: 2 Haswell sockets (CPU only)
// so five kinds of abstract processor (a socket is one CPU group) in the proportions 4 Haswell,
// 4 Skylake, 2 K40, 4 P100, 4 V100 per 18. They are listed by smooth weighted round robin, so every
// prefix of p processors has those proportions as nearly as p allows (p = 2 already mixes kinds).
//
// Processor i of kind k has sizes 1..m (units of 64 rows, as the paper's steps) with
//   t_i(x) = slow_k * jit_i * (x + o_k) * tau(j)     e_i(x) = cost_k * jit'_i * (x + o_k) * eps(j)
// tau, eps: DGEMM time and dynamic energy per flop at measured point j, which walks the 200
// measured points once over 1..m from a per-processor offset (so energy jumps fall in different
// places, as between real boards); o_k: a fixed overhead in units (GPU launches and transfers make
// small sizes inefficient); jit, jit': +-4 % between boards of one kind. Deterministic (fixed seed).
#pragma once
#include "dgemm_like.hpp"

#include <array>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

namespace ctrl::partition::bench {

struct ProcessorKind {
  const char* name;
  double slowness;  // time factor (the Haswell socket is 1)
  double cost;      // dynamic energy factor
  double overhead;  // fixed cost, in size units
  int weight;       // processors of this kind per 18 in the cluster
};

inline constexpr std::array<ProcessorKind, 5> cluster_kinds{{
    {"haswell", 1.00, 1.00, 0.0, 4},
    {"skylake", 0.60, 0.70, 0.0, 4},
    {"k40", 0.35, 0.45, 1.5, 2},
    {"p100", 0.15, 0.25, 1.5, 4},
    {"v100", 0.09, 0.18, 1.5, 4},
}};

// The kinds of the first p processors, by smooth weighted round robin over cluster_kinds.
inline std::vector<std::size_t> cluster_order(int p) {
  int total = 0;
  for (const ProcessorKind& k : cluster_kinds) total += k.weight;
  std::array<int, cluster_kinds.size()> current{};
  std::vector<std::size_t> order;
  for (int i = 0; i < p; ++i) {
    std::size_t pick = 0;
    for (std::size_t k = 0; k < cluster_kinds.size(); ++k) {
      current[k] += cluster_kinds[k].weight;
      if (current[k] > current[pick]) pick = k;
    }
    current[pick] -= total;
    order.push_back(pick);
  }
  return order;
}

// The profile of the first p processors of the cluster, m sizes (1..m) each. A processor's
// profile does not depend on p, so the platforms of different p are prefixes of one another.
// With `shared`, the processors of one kind share one profile (the profile measured once per
// node kind): no jitter between boards, one offset per kind, so five processor classes.
inline Profile cluster_like(const Measured& measured, int p, int m, unsigned seed = 7, bool shared = false) {
  const std::vector<std::size_t> order = cluster_order(p);
  const std::size_t points = measured.tau.size();
  std::vector<ProcessorProfile> procs;
  for (int i = 0; i < p; ++i) {
    const std::size_t k = order[static_cast<std::size_t>(i)];
    std::mt19937_64 rng(seed * 1'000'003ull + (shared ? 1'000'000'000ull + k : static_cast<unsigned long long>(i)));
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const ProcessorKind& kind = cluster_kinds[k];
    const double jitter_t = 0.96 + 0.08 * u(rng), jitter_e = 0.96 + 0.08 * u(rng);
    const double slow = kind.slowness * (shared ? 1.0 : jitter_t), cost = kind.cost * (shared ? 1.0 : jitter_e);
    const auto offset = static_cast<std::size_t>(u(rng) * static_cast<double>(points));
    std::vector<ProfilePoint> pts;
    for (int x = 1; x <= m; ++x) {
      const std::size_t j = (static_cast<std::size_t>(x - 1) * points / static_cast<std::size_t>(m) + offset) % points;
      const double work = x + kind.overhead;
      pts.push_back(ProfilePoint{x, slow * work * measured.tau[j], cost * work * measured.eps[j]});
    }
    procs.emplace_back(std::string(kind.name) + "-" + std::to_string(i), std::move(pts));
  }
  return Profile(std::move(procs));
}

}  // namespace ctrl::partition::bench
