// The paper's load-balanced solution: every processor works, execution times as equal as the
// profiles allow (load_balanced.hpp has the definition and the cost).
#include <ctrl/partition/load_balanced.hpp>

#include "dp_kernels.hpp"
#include "instance.hpp"
#include "one_each_sum.hpp"

#include <ctrl/errors.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace ctrl::partition {

namespace {

using detail::Instance;
using detail::Item;

// One processor's items sorted by time rank, with sparse tables of their sizes' minimum and
// maximum, so that the sizes it may take within a window of ranks are known in O(log m).
class RankedItems {
 public:
  explicit RankedItems(std::vector<Item> items) : items_(std::move(items)) {
    std::sort(items_.begin(), items_.end(), [](const Item& a, const Item& b) { return a.rank < b.rank; });
    std::vector<std::int32_t> sizes(items_.size());
    for (std::size_t i = 0; i < items_.size(); ++i) sizes[i] = items_[i].size;
    min_.push_back(sizes);
    max_.push_back(std::move(sizes));
    for (std::size_t len = 2; len <= items_.size(); len *= 2) {
      const auto& lo = min_.back();
      const auto& hi = max_.back();
      std::vector<std::int32_t> nlo(items_.size() - len + 1), nhi(nlo.size());
      for (std::size_t i = 0; i < nlo.size(); ++i) {
        nlo[i] = std::min(lo[i], lo[i + len / 2]);
        nhi[i] = std::max(hi[i], hi[i + len / 2]);
      }
      min_.push_back(std::move(nlo));
      max_.push_back(std::move(nhi));
    }
  }

  // The items with rank in [lo, hi], as [first, last) indices of items().
  std::pair<std::size_t, std::size_t> range(std::uint32_t lo, std::uint32_t hi) const {
    const auto first = std::partition_point(items_.begin(), items_.end(), [&](const Item& it) { return it.rank < lo; });
    const auto last = std::partition_point(first, items_.end(), [&](const Item& it) { return it.rank <= hi; });
    return {static_cast<std::size_t>(first - items_.begin()), static_cast<std::size_t>(last - items_.begin())};
  }
  // The least and the greatest size among items [first, last), first < last.
  std::int32_t min_size(std::size_t first, std::size_t last) const { return query(min_, first, last, false); }
  std::int32_t max_size(std::size_t first, std::size_t last) const { return query(max_, first, last, true); }
  const std::vector<Item>& items() const { return items_; }

 private:
  std::int32_t query(const std::vector<std::vector<std::int32_t>>& t, std::size_t first, std::size_t last,
                     bool max) const {
    const auto level = static_cast<std::size_t>(std::bit_width(last - first) - 1);
    const std::int32_t a = t[level][first], b = t[level][last - (std::size_t{1} << level)];
    return max ? std::max(a, b) : std::min(a, b);
  }

  std::vector<Item> items_;
  std::vector<std::vector<std::int32_t>> min_, max_;  // [level][i]: over items i .. i + 2^level - 1
};

// The window of time ranks [lo, hi] the search slides: which processors have an item in it (kept
// as ranks enter and leave, O(1) an item), and whether a distribution that gives every processor
// one of its items in the window sums to n.
class TimeWindow {
 public:
  explicit TimeWindow(const Instance& in) : in_(in), sum_(in.n), count_(static_cast<std::size_t>(in.p), 0) {
    missing_ = static_cast<std::size_t>(in.p);
    for (int k = 0; k < in.p; ++k) {
      procs_.emplace_back(in.items[static_cast<std::size_t>(k)]);
      for (const Item& it : in.items[static_cast<std::size_t>(k)]) by_rank_.push_back({it.rank, k});
    }
    std::sort(by_rank_.begin(), by_rank_.end());
  }

  void add(std::uint32_t rank) {
    for (auto it = first_of(rank); it != by_rank_.end() && it->first == rank; ++it)
      if (count_[static_cast<std::size_t>(it->second)]++ == 0) --missing_;
  }
  void remove(std::uint32_t rank) {
    for (auto it = first_of(rank); it != by_rank_.end() && it->first == rank; ++it)
      if (--count_[static_cast<std::size_t>(it->second)] == 0) ++missing_;
  }

  // Whether some distribution gives every processor an item with rank in [lo, hi] (the window's).
  bool feasible(std::uint32_t lo, std::uint32_t hi) {
    if (missing_ != 0) return false;
    std::int64_t least = 0, most = 0;
    bool contiguous = true;
    ranges_.clear();
    for (const RankedItems& proc : procs_) {
      const auto [first, last] = proc.range(lo, hi);
      const std::int32_t a = proc.min_size(first, last), b = proc.max_size(first, last);
      least += a;
      most += b;
      contiguous = contiguous && b - a == static_cast<std::int32_t>(last - first) - 1;  // sizes are distinct
      ranges_.emplace_back(first, last);
    }
    if (in_.n < least || in_.n > most) return false;
    if (contiguous) return true;  // every sum in [least, most] is reachable
    sum_.begin();
    for (std::size_t k = 0; k < procs_.size(); ++k) {
      const auto& items = procs_[k].items();
      const bool any = sum_.processor([&](auto take) {
        for (std::size_t i = ranges_[k].first; i < ranges_[k].second; ++i) take(items[i].size);
      });
      if (!any) return false;
    }
    return sum_.reaches_n();
  }

 private:
  std::vector<std::pair<std::uint32_t, int>>::const_iterator first_of(std::uint32_t rank) const {
    return std::lower_bound(by_rank_.begin(), by_rank_.end(), std::pair<std::uint32_t, int>{rank, -1});
  }

  const Instance& in_;
  detail::OneEachSum sum_;
  std::vector<RankedItems> procs_;
  std::vector<std::pair<std::uint32_t, int>> by_rank_;  // (rank, processor) of every item, sorted
  std::vector<int> count_;                              // per processor: its items in the window
  std::size_t missing_ = 0;                             // processors without an item in the window
  std::vector<std::pair<std::size_t, std::size_t>> ranges_;
};

struct Window {
  std::uint32_t lo = 0, hi = 0;  // time ranks
};

// The window of a distribution's parts: the ranks of its fastest and slowest processor.
Window window_of(const Instance& in, const std::vector<std::int32_t>& parts) {
  Window w{std::numeric_limits<std::uint32_t>::max(), 0};
  for (std::size_t k = 0; k < parts.size(); ++k)
    for (const Item& it : in.items[k])
      if (it.size == parts[k]) {
        w.lo = std::min(w.lo, it.rank);
        w.hi = std::max(w.hi, it.rank);
      }
  return w;
}

// The best window: the least spread of times, then the least parallel time (its slowest end).
Window best_window(const Instance& in, Window best) {
  const auto& t = in.times;
  const auto better = [&](std::uint32_t lo, std::uint32_t hi) {
    const double spread = t[hi] - t[lo], best_spread = t[best.hi] - t[best.lo];
    return spread < best_spread || (spread == best_spread && t[hi] < t[best.hi]);
  };
  // For each lower end, the least feasible upper end never falls as the lower end rises, and a
  // window that cannot beat the best found so far is never checked.
  TimeWindow window(in);
  const auto ranks = static_cast<std::uint32_t>(t.size());
  std::int64_t hi = -1;  // the window holds ranks lo..hi
  for (std::uint32_t lo = 0; lo < ranks; ++lo) {
    if (lo > 0 && hi >= lo - 1) window.remove(lo - 1);
    if (hi < lo) window.add(static_cast<std::uint32_t>(hi = lo));
    auto h = static_cast<std::uint32_t>(hi);
    bool ok = false;
    while (better(lo, h) && !(ok = window.feasible(lo, h))) {
      if (h + 1 == ranks) return best;  // no window from lo on is feasible, nor from any higher lo
      window.add(++h);
    }
    hi = h;
    if (ok) best = {lo, h};
  }
  return best;
}

}  // namespace

std::optional<Solution> load_balanced(const Profile& profile, Size workload, const EnergyModel& model) {
  model.validate();
  const std::optional<Instance> maybe = detail::make_instance(profile, workload);
  if (!maybe) return std::nullopt;
  const Instance& in = *maybe;
  // The fastest distribution that gives every processor work: the search's first bound.
  const auto start = detail::time_optimal_parts(in, /*allow_zero=*/false);
  if (!start) return std::nullopt;
  const Window best = best_window(in, window_of(in, *start));
  // Every all-working distribution within the best window has its spread and its parallel time
  // (a narrower or faster one would have been a better window): the least energy decides.
  const Instance within =
      detail::filter_items(in, [&](int, const Item& it) { return it.rank >= best.lo && it.rank <= best.hi; });
  const auto parts = detail::min_energy_parts(within, detail::inf, detail::inf, /*allow_zero=*/false);
  if (!parts) throw std::logic_error("load_balanced: the best window holds no distribution");
  return make_solution(profile, in.to_distribution(*parts), workload, model);
}

TimeSpread time_spread(const Profile& profile, const Distribution& x, Size workload) {
  if (!evaluate(profile, x, workload))
    throw UsageError("not a valid distribution of workload " + std::to_string(workload));
  TimeSpread s;
  bool any = false;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] == 0) continue;
    const double t = profile[i].find(x[i])->time;
    s.fastest = any ? std::min(s.fastest, t) : t;
    s.slowest = any ? std::max(s.slowest, t) : t;
    any = true;
  }
  return s;
}

}  // namespace ctrl::partition
