#include "class_walk.hpp"

#include "dp_kernels.hpp"
#include "pool.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <utility>

namespace ctrl::partition::detail {

namespace {

using Clock = std::chrono::steady_clock;

// One class: its representative's items and its members.
struct ClassItems {
  const std::vector<Item>* items = nullptr;
  const std::vector<std::size_t>* members = nullptr;
  std::int32_t copies() const { return static_cast<std::int32_t>(members->size()); }
  std::int32_t largest() const { return items->empty() ? 0 : items->back().size; }
  std::int32_t cap(std::int32_t n) const {
    return static_cast<std::int32_t>(std::min<std::int64_t>(n, std::int64_t{copies()} * largest()));
  }
};

// The copy-count table of one class: row j holds the least energy of each workload w on j copies
// with the items added so far (an idle copy costs nothing), so row k is the class's power.
class ClassPower {
 public:
  ClassPower(const ClassItems& c, std::int32_t n)
      : k_(c.copies()),
        largest_(c.largest()),
        cap_(c.cap(n)),
        stride_(static_cast<std::size_t>(cap_) + 1),
        rows_(static_cast<std::size_t>(k_ + 1) * stride_, inf) {
    for (std::int32_t j = 0; j <= k_; ++j) rows_[static_cast<std::size_t>(j) * stride_] = 0.0;
  }

  void add(std::int32_t x, double e) {
    added_.emplace_back(x, e);
    widest_ = std::max(widest_, x);
    for (std::int32_t j = 1; j <= k_; ++j) {
      const std::int32_t hi = limit(j);
      relax_sum(row(j), row(j - 1), x, x, hi + 1, e);
    }
  }

  std::int32_t cap() const { return cap_; }
  // The largest workload the items added so far can take (the power is inf beyond it).
  std::int32_t reach() const {
    return static_cast<std::int32_t>(std::min<std::int64_t>(cap_, std::int64_t{k_} * widest_));
  }
  const double* power() const { return row(k_); }

  // The parts of the k copies at workload w, following the least choices down the rows.
  void parts(std::int32_t w, std::vector<std::int32_t>& out) const {
    for (std::int32_t j = k_; j >= 1; --j) {
      std::int32_t pick = 0;
      double best = row(j - 1)[w];
      for (const auto& [x, e] : added_)
        if (x <= w && row(j - 1)[w - x] + e < best) {
          best = row(j - 1)[w - x] + e;
          pick = x;
        }
      out.push_back(pick);
      w -= pick;
    }
  }

  static std::size_t bytes(const ClassItems& c, std::int32_t n) {
    return static_cast<std::size_t>(c.copies() + 1) * (static_cast<std::size_t>(c.cap(n)) + 1) * sizeof(double);
  }

 private:
  std::int32_t limit(std::int32_t j) const {
    return static_cast<std::int32_t>(std::min<std::int64_t>(cap_, std::int64_t{j} * largest_));
  }
  double* row(std::int32_t j) { return rows_.data() + static_cast<std::size_t>(j) * stride_; }
  const double* row(std::int32_t j) const { return rows_.data() + static_cast<std::size_t>(j) * stride_; }

  std::int32_t k_, largest_, cap_, widest_ = 0;
  std::size_t stride_;
  std::vector<double> rows_;
  std::vector<std::pair<std::int32_t, double>> added_;
};

// The (min, +) combination of a[alo..ahi] and b[blo..bhi] into out[0..cap] (inf elsewhere, and
// where no pair sums), the outputs split between the pool's threads by their range.
void convolve(const double* a, std::int32_t alo, std::int32_t ahi, const double* b, std::int32_t blo, std::int32_t bhi,
              double* out, std::int32_t cap, Pool& pool) {
  std::fill(out, out + cap + 1, inf);
  const std::int32_t lo = alo + blo, hi = std::min(cap, ahi + bhi);
  if (alo > ahi || blo > bhi || lo > hi) return;
  const double pairs = (static_cast<double>(ahi - alo) + 1) * (static_cast<double>(bhi - blo) + 1);
  const unsigned T = pairs < 4e6 ? 1u : pool.size();
  pool.run(T, [&](unsigned t) {
    const std::int32_t from = lo + static_cast<std::int32_t>(std::int64_t{hi - lo + 1} * t / T);
    const std::int32_t to = lo + static_cast<std::int32_t>(std::int64_t{hi - lo + 1} * (t + 1) / T);  // [from, to)
    for (std::int32_t i = alo; i <= std::min(ahi, to - 1 - blo); ++i) {
      if (!(a[i] < inf)) continue;
      const std::int32_t j0 = std::max(blo, from - i), j1 = std::min(bhi, to - 1 - i);
      relax_sum(out, b, i, i + j0, i + j1 + 1, a[i]);
    }
  });
}

// The classes combined in a balanced binary tree: a leaf is a class's power, an inner node the
// (min, +) combination of its children up to n; the root is only evaluated at n.
//
// Every node also knows the least energy the rest of the platform needs for each remaining
// workload, computed once from the classes' floors (their powers with every item, which no
// threshold beats): a node's value at w matters only while it plus that bound at n - w is below
// the energy already found, so each combination runs over those windows of its children only.
class Tree {
 public:
  Tree(std::size_t leaves, std::int32_t n, Pool& pool) : n_(n), pool_(pool) {
    leaf_.resize(leaves);
    root_ = build(0, leaves);
  }

  // Sets every leaf's floor (cap + 1 values each), computes the nodes' bounds, and returns the
  // least energy of any distribution (the floors combined at n).
  double set_floors(const std::vector<std::vector<double>>& floors) {
    for (std::size_t c = 0; c < leaf_.size(); ++c)
      set_leaf(c, floors[c].data(), static_cast<std::int32_t>(floors[c].size()) - 1);
    update(inf);
    for (Node& node : nodes_) node.floor = node.leaf != none ? floors[node.leaf] : node.own;
    for (std::size_t i = nodes_.size(); i-- > 0;) {  // parents before children
      Node& node = nodes_[i];
      if (i == root_) {
        node.rest.assign(static_cast<std::size_t>(n_) + 1, inf);
        node.rest[0] = 0.0;
      }
      if (node.leaf != none) continue;
      for (const auto& [child, sibling] : {std::pair{node.left, node.right}, std::pair{node.right, node.left}}) {
        const std::vector<double>& f = nodes_[sibling].floor;
        nodes_[child].rest.resize(static_cast<std::size_t>(n_) + 1);
        convolve(node.rest.data(), 0, n_, f.data(), 0, static_cast<std::int32_t>(f.size()) - 1,
                 nodes_[child].rest.data(), n_, pool_);
      }
    }
    return split(nodes_[root_], n_, inf).second;
  }

  // Leaf c now reads `values` (cap + 1 doubles: it takes no more than cap); its ancestors are
  // recomputed at the next update().
  void set_leaf(std::size_t c, const double* values, std::int32_t cap) {
    Node& node = nodes_[leaf_[c]];
    total_ += cap - node.span;
    node.values = values;
    node.cap = cap;
    node.span = cap;
    for (std::size_t at = node.parent; at != none && !nodes_[at].dirty; at = nodes_[at].parent) nodes_[at].dirty = true;
  }

  // Recomputes the changed inner nodes (children come before parents in nodes_) within the
  // windows of `bound`, and returns the least energy at n when it is below bound (else >= bound).
  double update(double bound) {
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      Node& node = nodes_[i];
      if (i == root_ || node.leaf != none) continue;
      // The rest of the platform took no more than `others` when the node was combined: where it
      // can take more now, the node's lower workloads, left out then, are needed.
      if (node.dirty || total_ - node.span > node.others) combine(node, bound);
    }
    nodes_[root_].dirty = false;
    return split(nodes_[root_], n_, bound).second;
  }

  // The workload of every leaf in the least combination at n (after an update() that found it).
  std::vector<std::int32_t> workloads() const {
    std::vector<std::int32_t> w(leaf_.size(), 0);
    descend(root_, n_, w);
    return w;
  }

  std::size_t bytes() const {
    std::size_t b = 0;
    for (const Node& node : nodes_) b += (node.own.size() + node.rest.size() + node.floor.size()) * sizeof(double);
    return b;
  }

 private:
  static constexpr std::size_t none = SIZE_MAX;
  struct Node {
    std::size_t left = none, right = none, parent = none, leaf = none;
    const double* values = nullptr;
    std::int32_t cap = -1;      // the values are inf beyond it
    std::int64_t span = 0;      // the sum of its leaves' caps
    std::int64_t others = 0;    // the other leaves' caps when it was combined
    std::vector<double> own;    // an inner node's values
    std::vector<double> floor;  // the subtree's floor
    std::vector<double> rest;   // [r]: least energy of the other leaves for remaining workload r
    bool dirty = true;
  };

  std::size_t build(std::size_t lo, std::size_t hi) {
    Node node;
    if (hi - lo == 1) {
      node.leaf = lo;
      node.dirty = false;
      nodes_.push_back(std::move(node));
      leaf_[lo] = nodes_.size() - 1;
      return leaf_[lo];
    }
    const std::size_t mid = lo + (hi - lo) / 2;
    node.left = build(lo, mid);
    node.right = build(mid, hi);
    nodes_.push_back(std::move(node));
    const std::size_t at = nodes_.size() - 1;
    nodes_[nodes_[at].left].parent = nodes_[nodes_[at].right].parent = at;
    return at;
  }

  // The workloads [lo, hi] of a node that can still lead below `bound` (lo > hi: none): the rest
  // of the platform must be able to take n - w, and, once there are bounds, the node's value plus
  // the rest's least energy must stay below `bound`.
  std::pair<std::int32_t, std::int32_t> window(const Node& node, double bound) const {
    const std::int64_t others = total_ - node.span;
    std::int32_t lo = static_cast<std::int32_t>(std::max<std::int64_t>(0, n_ - others)), hi = node.cap;
    if (node.rest.empty() || !(bound < inf)) return {lo, hi};
    const auto useful = [&](std::int32_t w) {
      return node.values[w] + node.rest[static_cast<std::size_t>(n_ - w)] < bound;
    };
    while (lo <= hi && !useful(lo)) ++lo;
    while (hi >= lo && !useful(hi)) --hi;
    return {lo, hi};
  }

  // The least value of left(a) + right(w - a) within their windows, and its a (-1, inf: none).
  std::pair<std::int32_t, double> split(const Node& node, std::int32_t w, double bound) const {
    if (node.leaf != none) return {w, w <= node.cap ? node.values[w] : inf};
    const Node& l = nodes_[node.left];
    const Node& r = nodes_[node.right];
    const auto [lo, hi] = window(l, bound);
    std::pair<std::int32_t, double> best{-1, inf};
    for (std::int32_t a = std::max(lo, w - r.cap); a <= std::min(hi, w); ++a) {
      const double v = l.values[a] + r.values[w - a];
      if (v < best.second) best = {a, v};
    }
    return best;
  }

  void descend(std::size_t at, std::int32_t w, std::vector<std::int32_t>& out) const {
    const Node& node = nodes_[at];
    if (node.leaf != none) {
      out[node.leaf] = w;
      return;
    }
    const std::int32_t a = split(node, w, inf).first;
    descend(node.left, a, out);
    descend(node.right, w - a, out);
  }

  void combine(Node& node, double bound) {
    const Node& l = nodes_[node.left];
    const Node& r = nodes_[node.right];
    node.cap = std::min(n_, l.cap + r.cap);
    node.span = l.span + r.span;
    node.others = total_ - node.span;
    node.own.resize(static_cast<std::size_t>(node.cap) + 1);
    node.values = node.own.data();
    node.dirty = false;
    const auto [alo, ahi] = window(l, bound);
    const auto [blo, bhi] = window(r, bound);
    convolve(l.values, alo, ahi, r.values, blo, bhi, node.own.data(), node.cap, pool_);
  }

  std::int32_t n_;
  Pool& pool_;
  std::vector<Node> nodes_;
  std::vector<std::size_t> leaf_;
  std::size_t root_ = 0;
  std::int64_t total_ = 0;  // the sum of all leaves' caps
};

// Reachability of workloads as bitsets, for the least feasible threshold.
using Bits = std::vector<std::uint64_t>;

// dst |= src << s, within dst's words (bits past the last one are dropped by the caller's mask).
void or_shifted(Bits& dst, const Bits& src, std::int32_t s) {
  const std::size_t ws = static_cast<std::size_t>(s) / 64, bs = static_cast<std::size_t>(s) % 64;
  for (std::size_t i = dst.size(); i-- > ws;) {
    std::uint64_t v = src[i - ws] << bs;
    if (bs != 0 && i > ws) v |= src[i - ws - 1] >> (64 - bs);
    dst[i] |= v;
  }
}

Bits empty_bits(std::int32_t n) {
  Bits b((static_cast<std::size_t>(n) + 64) / 64, 0);
  b[0] = 1;
  return b;
}

void mask_to(Bits& b, std::int32_t n) {
  const std::size_t bits = static_cast<std::size_t>(n) + 1;
  if (bits % 64 != 0) b.back() &= (std::uint64_t{1} << (bits % 64)) - 1;
}

// Whether workload n can be given with the items of rank <= r.
bool feasible(const std::vector<ClassItems>& classes, std::uint32_t r, std::int32_t n) {
  Bits total = empty_bits(n);
  for (const ClassItems& c : classes) {
    Bits reach = empty_bits(n);
    for (std::int32_t j = 0; j < c.copies(); ++j) {  // one more copy
      Bits next = reach;
      for (const Item& it : *c.items)
        if (it.rank <= r && it.size <= n) or_shifted(next, reach, it.size);
      mask_to(next, n);
      if (next == reach) break;
      reach = std::move(next);
    }
    Bits sum(total.size(), 0);
    for (std::int32_t a = 0; a <= n; ++a)
      if ((reach[static_cast<std::size_t>(a) / 64] >> (a % 64)) & 1) or_shifted(sum, total, a);
    mask_to(sum, n);
    total = std::move(sum);
  }
  return (total[static_cast<std::size_t>(n) / 64] >> (n % 64)) & 1;
}

// The least rank at which n is feasible, or nullopt.
std::optional<std::uint32_t> least_feasible(const std::vector<ClassItems>& classes, std::int32_t n) {
  std::vector<std::uint32_t> ranks;
  for (const ClassItems& c : classes)
    for (const Item& it : *c.items) ranks.push_back(it.rank);
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  if (ranks.empty() || !feasible(classes, ranks.back(), n)) return std::nullopt;
  std::size_t lo = 0, hi = ranks.size() - 1;  // feasible at hi
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (feasible(classes, ranks[mid], n))
      hi = mid;
    else
      lo = mid + 1;
  }
  return ranks[lo];
}

// Every class's floor: its power with all its items, which no threshold's power is below.
std::vector<std::vector<double>> floors(const std::vector<ClassItems>& classes, std::int32_t n, Pool& pool) {
  std::vector<std::vector<double>> out(classes.size());
  const unsigned T = std::min<unsigned>(pool.size(), static_cast<unsigned>(classes.size()));
  pool.run(T, [&](unsigned t) {
    for (std::size_t c = t; c < classes.size(); c += T) {
      ClassPower power(classes[c], n);
      for (const Item& it : *classes[c].items)
        if (it.size <= n) power.add(it.size, it.energy);
      out[c].assign(power.power(), power.power() + power.cap() + 1);
    }
  });
  return out;
}

struct Event {
  std::uint32_t rank;
  std::uint32_t cls;
  const Item* item;
};

// Every class's items in rank order (ties by class, then size).
std::vector<Event> events_of(const std::vector<ClassItems>& classes, std::int32_t n) {
  std::vector<Event> events;
  for (std::size_t c = 0; c < classes.size(); ++c)
    for (const Item& it : *classes[c].items)
      if (it.size <= n) events.push_back(Event{it.rank, static_cast<std::uint32_t>(c), &it});
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.rank < b.rank; });
  return events;
}

// The parts per processor of the tree's least combination at n.
std::vector<std::int32_t> distribution(const Instance& in, const std::vector<ClassItems>& classes,
                                       const std::vector<ClassPower>& powers, const Tree& tree) {
  const std::vector<std::int32_t> w = tree.workloads();
  std::vector<std::int32_t> parts(static_cast<std::size_t>(in.p), 0), copies;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    copies.clear();
    powers[c].parts(w[c], copies);
    std::sort(copies.begin(), copies.end(), std::greater<>());  // members in order, largest part first
    for (std::size_t i = 0; i < copies.size(); ++i) parts[(*classes[c].members)[i]] = copies[i];
  }
  return parts;
}

std::vector<ClassItems> class_items(const Instance& in, const ProcessorClasses& classes) {
  std::vector<ClassItems> out;
  for (const auto& members : classes.members) out.push_back(ClassItems{&in.items[members.front()], &members});
  return out;
}

}  // namespace

std::optional<std::size_t> class_walk_bytes(const Instance& in, const ProcessorClasses& classes,
                                            std::size_t memory_cap) {
  std::size_t bytes = 2 * classes.count() * in.stride() * sizeof(double);  // tree nodes
  for (const ClassItems& c : class_items(in, classes)) bytes += ClassPower::bytes(c, in.n);
  if (bytes > memory_cap) return std::nullopt;
  return bytes;
}

bool class_walk_pays(const Instance& in, const ProcessorClasses& classes) {
  return classes.count() <= 32 && static_cast<std::size_t>(in.p) >= 8 * classes.count();
}

std::vector<std::vector<std::int32_t>> class_walk(const Instance& in, const ProcessorClasses& pc, Pool& pool,
                                                  ClassWalkStats* stats) {
  const auto t0 = Clock::now();
  const std::int32_t n = in.n;
  const std::vector<ClassItems> classes = class_items(in, pc);
  const std::optional<std::uint32_t> rstar = least_feasible(classes, n);
  if (!rstar) return {};
  Tree tree(classes.size(), n, pool);
  const double floor = tree.set_floors(floors(classes, n, pool));
  const auto t1 = Clock::now();

  std::vector<ClassPower> powers;
  for (const ClassItems& c : classes) powers.emplace_back(c, n);
  for (std::size_t c = 0; c < classes.size(); ++c) tree.set_leaf(c, powers[c].power(), powers[c].reach());
  const std::vector<Event> events = events_of(classes, n);

  std::vector<std::vector<std::int32_t>> found;
  double last = inf;
  std::size_t thresholds = 0;
  for (std::size_t i = 0; i < events.size();) {
    const std::uint32_t rank = events[i].rank;
    for (; i < events.size() && events[i].rank == rank; ++i) {
      const Event& ev = events[i];
      if (ev.item->energy > last) continue;  // costlier than a point already found: in no later one
      powers[ev.cls].add(ev.item->size, ev.item->energy);
      tree.set_leaf(ev.cls, powers[ev.cls].power(), powers[ev.cls].reach());
    }
    if (rank < *rstar) continue;
    ++thresholds;
    const double e = tree.update(last);
    if (!(e < last)) continue;
    found.push_back(distribution(in, classes, powers, tree));
    last = e;
    if (e <= floor || same_value(e, floor)) break;
  }
  if (stats != nullptr) {
    stats->thresholds = thresholds;
    stats->table_bytes = tree.bytes();
    for (const ClassItems& c : classes) stats->table_bytes += ClassPower::bytes(c, n);
    stats->bound_seconds = std::chrono::duration<double>(t1 - t0).count();
    stats->walk_seconds = std::chrono::duration<double>(Clock::now() - t1).count();
  }
  return found;
}

}  // namespace ctrl::partition::detail
