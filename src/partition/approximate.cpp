#include <ctrl/errors.hpp>
#include <ctrl/partition/approximate.hpp>
#include <ctrl/partition/classes.hpp>

#include "dp_kernels.hpp"
#include "instance.hpp"
#include "probes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace ctrl::partition {

namespace {

using detail::Instance;

std::string number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}
using detail::Item;

struct Vertex {
  std::int32_t x = 0;
  double e = 0.0;
};

// An edge of a class's hull: from vertex `to - 1` to vertex `to`.
struct Edge {
  double slope = 0.0;
  std::int32_t dx = 0;
  std::uint32_t cls = 0;
  std::uint32_t to = 0;
};

// The platform as classes: one representative's items and the members of each.
struct Platform {
  const Instance* in = nullptr;
  ProcessorClasses classes;
  std::vector<const std::vector<Item>*> items;  // per class
};

// The lower convex hull of (0, 0) and the items within `tlimit` (items come sorted by size): the
// points a relaxed processor would choose from, at any price per unit of work.
void lower_hull(const std::vector<Item>& items, double tlimit, std::vector<Vertex>& hull) {
  hull.assign(1, Vertex{});
  for (const Item& it : items) {
    if (it.time > tlimit) continue;
    const Vertex v{it.size, it.energy};
    while (hull.size() >= 2) {
      const Vertex& a = hull[hull.size() - 2];
      const Vertex& b = hull.back();
      const double cross = static_cast<double>(b.x - a.x) * (v.e - a.e) - (b.e - a.e) * static_cast<double>(v.x - a.x);
      if (cross > 0) break;  // b lies strictly below the segment a-v
      hull.pop_back();
    }
    hull.push_back(v);
  }
}

// The relaxation at one threshold: a lower bound on the least energy and the parts (normalised,
// per processor) of the relaxed choice, which fall short of n by `short_by` units.
struct Relaxed {
  long double bound = 0;
  std::vector<std::int32_t> parts;
  std::int64_t short_by = 0;
  std::vector<std::uint32_t> margin;  // classes in order of their edges' distance from the last one
};

// Merges the classes' hull edges by slope and takes them while the workload allows: the largest
// parts of the Lagrangian relaxation at the price (slope) where the workload is reached. nullopt
// when even the largest usable sizes cannot hold n.
std::optional<Relaxed> relax(const Platform& pf, double tlimit) {
  const Instance& in = *pf.in;
  const std::size_t K = pf.classes.count();
  std::vector<std::vector<Vertex>> hulls(K);
  std::vector<Edge> edges;
  std::int64_t capacity = 0;
  for (std::size_t k = 0; k < K; ++k) {
    lower_hull(*pf.items[k], tlimit, hulls[k]);
    const auto count = static_cast<std::int64_t>(pf.classes.members[k].size());
    capacity += count * hulls[k].back().x;
    for (std::uint32_t v = 1; v < hulls[k].size(); ++v) {
      const Vertex& a = hulls[k][v - 1];
      const Vertex& b = hulls[k][v];
      edges.push_back(Edge{(b.e - a.e) / static_cast<double>(b.x - a.x), b.x - a.x, static_cast<std::uint32_t>(k), v});
    }
  }
  if (capacity < in.n) return std::nullopt;
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
    return a.slope < b.slope || (a.slope == b.slope && (a.cls < b.cls || (a.cls == b.cls && a.to < b.to)));
  });
  std::vector<std::uint32_t> level(K, 0);
  std::int64_t sum = 0, advanced = 0;  // advanced: copies of the last class moved along its edge
  std::size_t stop = 0;
  for (; stop < edges.size(); ++stop) {
    const Edge& ed = edges[stop];
    const auto count = static_cast<std::int64_t>(pf.classes.members[ed.cls].size());
    advanced = std::min<std::int64_t>(count, (in.n - sum) / ed.dx);
    sum += advanced * ed.dx;
    if (advanced < count || sum == in.n) break;
    level[ed.cls] = ed.to;
  }
  stop = std::min(stop, edges.size() - 1);
  const Edge& last = edges[stop];
  const long double price = last.slope;
  Relaxed r;
  r.bound = price * static_cast<long double>(in.n);
  r.parts.assign(static_cast<std::size_t>(in.p), 0);
  for (std::size_t k = 0; k < K; ++k) {
    const Vertex& v = hulls[k][level[k]];
    r.bound += static_cast<long double>(pf.classes.members[k].size()) * (v.e - price * v.x);
    const auto& members = pf.classes.members[k];
    for (std::size_t c = 0; c < members.size(); ++c) {
      const bool moved = k == last.cls && static_cast<std::int64_t>(c) < advanced && level[k] + 1 == last.to;
      r.parts[members[c]] = moved ? hulls[k][last.to].x : v.x;
    }
  }
  r.short_by = in.n - sum;
  // The margin: the classes of the edges nearest the price, alternately after and before it.
  std::vector<bool> seen(K, false);
  for (std::size_t d = 0; d <= edges.size(); ++d)
    for (const std::size_t i : {stop + d, stop - d})
      if (i < edges.size() && !seen[edges[i].cls]) {  // stop - d wraps past 0 to a large index
        seen[edges[i].cls] = true;
        r.margin.push_back(edges[i].cls);
      }
  return r;
}

// The canonical dynamic energy (summed in processor order, as make_solution does) of parts.
double energy_of(const Instance& in, const std::vector<std::int32_t>& parts) {
  double sum = 0.0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] == 0) continue;
    const auto& items = in.items[i];
    const auto it = std::lower_bound(items.begin(), items.end(), parts[i],
                                     [](const Item& a, std::int32_t x) { return a.size < x; });
    sum += it->energy;
  }
  return sum;
}

// The first `q` processors to re-optimise: one copy of each margin class in turn, then a second
// copy of each, and so on; in processor order.
std::vector<std::size_t> margin_processors(const Platform& pf, const Relaxed& r, std::size_t q) {
  std::vector<std::size_t> chosen;
  for (std::size_t round = 0; chosen.size() < q; ++round) {
    bool any = false;
    for (const std::uint32_t k : r.margin) {
      const auto& members = pf.classes.members[k];
      if (round >= members.size()) continue;
      any = true;
      chosen.push_back(members[round]);
      if (chosen.size() == q) break;
    }
    if (!any) break;
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

// The least-energy parts for the processors `chosen` (the others keep the relaxed parts), with
// items within `tlimit`; nullopt when they cannot take the rest of the workload.
std::optional<std::vector<std::int32_t>> reoptimise(const Instance& in, const Relaxed& r,
                                                    const std::vector<std::size_t>& chosen, double tlimit) {
  Instance sub;
  sub.p = static_cast<int>(chosen.size());
  std::int64_t rest = r.short_by;
  for (const std::size_t i : chosen) {
    rest += r.parts[i];
    sub.items.push_back(in.items[i]);
  }
  sub.n = static_cast<std::int32_t>(rest);
  const auto best = detail::min_energy_parts(sub, tlimit, detail::inf);
  if (!best) return std::nullopt;
  std::vector<std::int32_t> parts = r.parts;
  for (std::size_t j = 0; j < chosen.size(); ++j) parts[chosen[j]] = (*best)[j];
  return parts;
}

// A distribution within `tlimit` whose energy is within 1 + epsilon of the threshold's least, or
// nullopt when none is within it. Widens the re-optimised margin until the bound certifies it;
// with every processor re-optimised the energy is the least itself.
std::optional<std::vector<std::int32_t>> solve(const Platform& pf, double tlimit, double epsilon, ApproxStats& stats) {
  const Instance& in = *pf.in;
  const std::optional<Relaxed> r = relax(pf, tlimit);
  if (!r) return std::nullopt;
  if (r->short_by == 0) return r->parts;  // the relaxation's choice is whole: optimal
  const long double target = (1.0L + epsilon) * r->bound;
  const auto p = static_cast<std::size_t>(in.p);
  for (std::size_t q = std::min<std::size_t>(8, p);; q = std::min(2 * q, p)) {
    if (q == p &&
        static_cast<double>(in.n + 1) * static_cast<double>(p + 1) > static_cast<double>(detail::max_table_cells))
      throw UsageError("the approximate front could not bound a threshold within 1 + " + number(epsilon) + " on " +
                       std::to_string(p) +
                       " processors, and the exact fallback exceeds the table limit: "
                       "give a larger --epsilon");
    std::vector<std::size_t> chosen = margin_processors(pf, *r, q);
    for (std::size_t i = 0; chosen.size() < q && i < p; ++i)  // the margin ran out: everyone else
      if (!std::binary_search(chosen.begin(), chosen.end(), i))
        chosen.insert(std::upper_bound(chosen.begin(), chosen.end(), i), i);
    const auto parts = reoptimise(in, *r, chosen, tlimit);
    if (q == p) {
      ++stats.exact;
      return parts;
    }
    if (parts && static_cast<long double>(energy_of(in, *parts)) <= target) return parts;
    ++stats.widened;
  }
}

// Thresholds: the distinct times of the items, thinned so that every time T has a threshold in
// [T, (1 + epsilon) T] (the largest time within a factor 1 + epsilon of the first one not covered).
std::vector<double> thresholds(const Platform& pf, double epsilon) {
  std::vector<double> times;
  for (const auto* items : pf.items)
    for (const Item& it : *items) times.push_back(it.time);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  std::vector<double> grid;
  for (std::size_t i = 0; i < times.size();) {
    const double reach = times[i] * (1.0 + epsilon);
    std::size_t j = i;
    while (j + 1 < times.size() && times[j + 1] <= reach) ++j;
    grid.push_back(times[j]);
    i = j + 1;
  }
  return grid;
}

}  // namespace

Front approximate_front(const Profile& profile, Size workload, double epsilon, const ApproxOptions& options,
                        ApproxStats* stats) {
  if (!(epsilon > 0) || !std::isfinite(epsilon))
    throw UsageError("epsilon must be a positive number (0.01 for fronts within 1 %), not " + number(epsilon));
  detail::check_threads(options.threads);
  const std::optional<Instance> maybe = detail::make_instance(profile, workload, false);
  if (!maybe) return {};
  Platform pf;
  pf.in = &*maybe;
  pf.classes = processor_classes(profile);
  for (const auto& members : pf.classes.members) pf.items.push_back(&maybe->items[members.front()]);
  std::vector<double> grid = thresholds(pf, epsilon);
  ApproxStats first;
  const auto least = solve(pf, grid.back(), epsilon, first);  // every item usable
  if (!least) return {};
  // Its distribution (time T_a) covers every exact point of time T_a or more (its energy is
  // within 1 + epsilon of the least of all), and of time T with T_a in (T, (1 + epsilon) T]: no
  // threshold above T_a is needed. Below, thresholds where the largest sizes cannot hold n are
  // left out (the capacity only grows with the threshold).
  const double ta = make_solution(profile, maybe->to_distribution(*least), workload).time;
  grid.erase(std::upper_bound(grid.begin(), grid.end(), ta), grid.end());
  const auto holds = [&](double tlimit) {
    std::int64_t capacity = 0;
    for (std::size_t k = 0; k < pf.items.size(); ++k) {
      std::int32_t largest = 0;
      for (const Item& it : *pf.items[k])
        if (it.time <= tlimit) largest = it.size;
      capacity += static_cast<std::int64_t>(pf.classes.members[k].size()) * largest;
    }
    return capacity >= maybe->n;
  };
  grid.erase(grid.begin(), std::partition_point(grid.begin(), grid.end(), [&](double t) { return !holds(t); }));

  // Thresholds are independent: thread t takes every T-th, so the result does not depend on T.
  const unsigned T = std::max(1u, std::min<unsigned>(options.threads ? options.threads : detail::usable_cores(),
                                                     static_cast<unsigned>(std::max<std::size_t>(grid.size(), 1))));
  std::vector<std::optional<std::vector<std::int32_t>>> found(grid.size());
  std::vector<ApproxStats> per(T);
  detail::parallel(T, [&](unsigned t) {
    for (std::size_t g = t; g < grid.size(); g += T) found[g] = solve(pf, grid[g], epsilon, per[t]);
  });
  found.push_back(least);
  std::vector<Solution> candidates;
  ApproxStats total = first;
  for (const auto& parts : found)
    if (parts) {
      candidates.push_back(make_solution(profile, maybe->to_distribution(*parts), workload));
      ++total.thresholds;
    }
  if (stats != nullptr) {
    for (const ApproxStats& s : per) {  // `total` holds the first solve's counts
      total.widened += s.widened;
      total.exact += s.exact;
    }
    total.classes = pf.classes.count();
    total.threads = T;
    *stats = total;
  }
  return pareto_filter(std::move(candidates));
}

}  // namespace ctrl::partition
