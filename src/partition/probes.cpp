#include "probes.hpp"

#include "dp_kernels.hpp"

#include <algorithm>
#include <utility>

namespace ctrl::partition::detail {

namespace {

constexpr std::size_t probe_memory_cap = std::size_t{256} << 20;  // bytes of probe tables

}  // namespace

void Probes::level_bound(const Instance& in, int k, double slack, std::vector<double>& bound) const {
  const std::size_t J = count(), s = in.stride();
  bound.resize(s * J);
  for (std::size_t r = 0; r < s; ++r) {
    double b = -inf;
    for (std::size_t j = J; j-- > 0;) {
      const std::size_t next = std::min(j + 1, J - 1);  // completions in [T_j, T_{j+1})
      const double lower = rest[(next * static_cast<std::size_t>(in.p + 1) + static_cast<std::size_t>(k + 1)) * s + r];
      b = std::max(b, best[j] - lower);
      bound[r * J + j] = b + slack;
    }
  }
}

// Thresholds: a few spread evenly over the ranks between the time-optimal and energy-optimal
// times, then more where the least energy falls most between two thresholds (where the front
// changes, the bounds between thresholds are loosest). Each is computed in parallel.
Probes make_probes(const Instance& in, std::uint32_t first, std::uint32_t last, double elimit, int wanted,
                   unsigned threads) {
  const std::size_t table = static_cast<std::size_t>(in.p + 1) * in.stride();
  const std::size_t cap = std::max<std::size_t>(2, probe_memory_cap / (table * sizeof(double)));
  // Both ends are thresholds: the last interval's bound uses the energy-optimal time.
  const std::size_t J = last == first ? 1 : std::clamp<std::size_t>(static_cast<std::size_t>(wanted), 2, std::min<std::size_t>(cap, last - first + 1));
  struct Done {
    std::uint32_t rank;
    std::vector<double> rest;
  };
  std::vector<Done> done;
  const auto compute = [&](const std::vector<std::uint32_t>& ranks) {
    const std::size_t first_new = done.size();
    for (const std::uint32_t r : ranks) done.push_back(Done{r, std::vector<double>(table)});
    const unsigned T = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(ranks.size())));
    parallel(T, [&](unsigned t) {
      for (std::size_t j = first_new + t; j < done.size(); j += T)
        suffix_min_energy(in, in.times[done[j].rank], elimit, done[j].rest.data());
    });
    std::sort(done.begin(), done.end(), [](const Done& a, const Done& b) { return a.rank < b.rank; });
  };
  const std::size_t even = std::min<std::size_t>(J, 8);
  std::vector<std::uint32_t> ranks;
  for (std::size_t j = 0; j < even; ++j)
    ranks.push_back(even == 1 ? first : first + static_cast<std::uint32_t>(static_cast<double>(last - first) * static_cast<double>(j) / static_cast<double>(even - 1) + 0.5));
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  compute(ranks);
  const auto n = static_cast<std::size_t>(in.n);
  while (done.size() < J) {
    std::vector<std::pair<double, std::size_t>> drops;  // (energy drop, interval)
    for (std::size_t j = 0; j + 1 < done.size(); ++j)
      if (done[j + 1].rank - done[j].rank >= 2) drops.emplace_back(done[j].rest[n] - done[j + 1].rest[n], j);
    if (drops.empty()) break;
    std::sort(drops.begin(), drops.end(), [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
    ranks.clear();
    for (std::size_t i = 0; i < drops.size() && ranks.size() < std::max<std::size_t>(4, 2 * threads) && done.size() + ranks.size() < J; ++i) {
      const std::size_t j = drops[i].second;
      ranks.push_back(done[j].rank + (done[j + 1].rank - done[j].rank) / 2);
    }
    compute(ranks);
  }
  Probes pr;
  pr.rest.resize(done.size() * table);
  for (std::size_t j = 0; j < done.size(); ++j) {
    pr.rank.push_back(done[j].rank);
    pr.best.push_back(done[j].rest[n]);
    std::copy(done[j].rest.begin(), done[j].rest.end(), pr.rest.begin() + static_cast<std::ptrdiff_t>(j * table));
  }
  pr.probe_of.assign(static_cast<std::size_t>(last) + 1, 0);
  for (std::size_t j = 0, r = 0; r <= last; ++r) {
    while (j + 1 < pr.count() && pr.rank[j + 1] <= r) ++j;
    pr.probe_of[r] = static_cast<std::uint32_t>(j);
  }
  return pr;
}

}  // namespace ctrl::partition::detail
