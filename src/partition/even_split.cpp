#include <ctrl/partition/load_balanced.hpp>

#include "dp_kernels.hpp"
#include "instance.hpp"
#include "one_each_sum.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ctrl::partition {

namespace {

using detail::Instance;
using detail::Item;
using detail::OneEachSum;

// Whether every processor can take a size in [a, b] with the sizes summing to n.
bool feasible(const Instance& in, std::int32_t a, std::int32_t b, OneEachSum& sum) {
  std::int64_t lo = 0, hi = 0;
  bool contiguous = true;
  for (const auto& items : in.items) {
    const auto first =
        std::lower_bound(items.begin(), items.end(), a, [](const Item& it, std::int32_t s) { return it.size < s; });
    const auto last =
        std::upper_bound(items.begin(), items.end(), b, [](std::int32_t s, const Item& it) { return s < it.size; });
    if (first == last) return false;
    lo += first->size;
    hi += (last - 1)->size;
    contiguous = contiguous && (last - 1)->size - first->size == static_cast<std::int32_t>(last - first) - 1;
  }
  if (in.n < lo || in.n > hi) return false;
  if (contiguous) return true;  // every sum in [lo, hi] is reachable
  sum.begin();
  for (const auto& items : in.items) {
    const bool any = sum.processor([&](auto take) {
      for (const Item& it : items)
        if (it.size >= a && it.size <= b) take(it.size);
    });
    if (!any) return false;
  }
  return sum.reaches_n();
}

}  // namespace

std::optional<Solution> even_split(const Profile& profile, Size workload, const EnergyModel& model) {
  model.validate();
  const std::optional<Instance> maybe = detail::make_instance(profile, workload);
  if (!maybe) return std::nullopt;
  const Instance& in = *maybe;
  const std::int32_t below = in.n / in.p, above = (in.n + in.p - 1) / in.p;  // floor, ceil of n/p
  std::vector<std::int32_t> sizes;
  for (const auto& items : in.items)
    for (const Item& it : items) sizes.push_back(it.size);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  const auto split = std::lower_bound(sizes.begin(), sizes.end(), above);
  const std::vector<std::int32_t> highs(split, sizes.end());  // candidates for the largest part
  if (highs.empty()) return std::nullopt;

  // Two-pointer search over the smallest part a (descending): the least feasible b for a can
  // only fall as a falls, and once highs[0] - a reaches the best spread nothing better is left.
  OneEachSum sum(in.n);
  std::int32_t best = INT32_MAX;
  std::vector<std::int32_t> windows;  // smallest parts a of the windows with the best spread
  for (auto it = std::upper_bound(sizes.begin(), sizes.end(), below); it != sizes.begin();) {
    const std::int32_t a = *--it;
    if (highs.front() - a > best) break;
    // The least b in highs with [a, b] feasible and b - a <= best (binary search: monotone in b).
    std::size_t lo = 0, hi = static_cast<std::size_t>(
                            std::upper_bound(highs.begin(), highs.end(), best == INT32_MAX ? INT32_MAX : a + best) -
                            highs.begin());
    if (hi == 0 || !feasible(in, a, highs[hi - 1], sum)) continue;
    --hi;
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      if (feasible(in, a, highs[mid], sum))
        hi = mid;
      else
        lo = mid + 1;
    }
    const std::int32_t spread = highs[lo] - a;
    if (spread < best) windows.clear();
    best = std::min(best, spread);
    windows.push_back(a);
  }

  std::optional<Solution> out;
  for (const std::int32_t a : windows) {
    const Instance window =
        detail::filter_items(in, [&](int, const Item& it) { return it.size >= a && it.size <= a + best; });
    const auto parts = detail::time_optimal_parts(window, /*allow_zero=*/false);
    if (!parts) continue;
    Solution s = make_solution(profile, in.to_distribution(*parts), workload, model);
    if (!out || s.time < out->time || (s.time == out->time && s.energy < out->energy)) out = std::move(s);
  }
  return out;
}

}  // namespace ctrl::partition
