#include <ctrl/partition/hepopta_paper.hpp>

#include "dp_kernels.hpp"
#include "instance.hpp"

#include <algorithm>
#include <utility>

namespace ctrl::partition {

namespace {

using detail::Instance;
using detail::Item;

// A PMem quintuple in normalised sizes.
using Entry = PaperMemoEntry;

// Exact Pareto reduction of a node's candidates, then sorted by increasing energy (the paper's
// order). Energies are then unique, so a key identifies a saved point.
void reduce(std::vector<Entry>& c) {
  std::sort(c.begin(), c.end(), [](const Entry& a, const Entry& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.energy != b.energy) return a.energy < b.energy;
    return a.part < b.part;
  });
  std::size_t kept = 0;
  for (std::size_t i = 0; i < c.size(); ++i)
    if (kept == 0 || c[i].energy < c[kept - 1].energy) c[kept++] = c[i];
  c.resize(kept);
  std::reverse(c.begin(), c.end());
}

class Kernel {
 public:
  Kernel(const Instance& in, double eps, std::vector<std::int32_t> sigma, PaperTrace& trace)
      : in_(in), eps_(eps), sigma_(std::move(sigma)), trace_(trace) {
    const auto p = static_cast<std::size_t>(in.p);
    // Each function sorted by non-decreasing energy (ties by size), the zero size first; points
    // costing more than eps are ignored.
    by_energy_.resize(p);
    for (std::size_t i = 0; i < p; ++i) {
      by_energy_[i].push_back(Item{0, 0.0, 0.0, 0});
      for (const Item& it : in.items[i])
        if (it.energy <= eps_) by_energy_[i].push_back(it);
      std::stable_sort(by_energy_[i].begin() + 1, by_energy_[i].end(),
                       [](const Item& a, const Item& b) { return a.energy < b.energy; });
    }
    const std::size_t rows = p > 2 ? p - 2 : 0;
    trace_.memo.assign(rows, std::vector<std::vector<Entry>>(in.stride()));
    trace_.saved_flag.assign(rows, std::vector<char>(in.stride(), 0));
  }

  // The Pareto set of the node of level i with workload w (processors i..p-1).
  const std::vector<Entry>& solve(int i, std::int32_t w) {
    if (w == 0) return zero_;
    if (w > sigma_[static_cast<std::size_t>(i)]) {  // Cut
      ++trace_.cuts;
      return empty_;
    }
    if (i == in_.p - 1) return leaf(w);
    const bool memoised = i >= 1 && i <= in_.p - 2;
    if (memoised && trace_.saved_flag[static_cast<std::size_t>(i - 1)][static_cast<std::size_t>(w)]) {
      ++trace_.reads;  // ReadParetoMem
      return trace_.memo[static_cast<std::size_t>(i - 1)][static_cast<std::size_t>(w)];
    }
    std::vector<Entry> set;
    for (const Item& it : by_energy_[static_cast<std::size_t>(i)]) {
      if (it.size > w) continue;
      const std::vector<Entry>& child = solve(i + 1, w - it.size);
      const bool keyed = i + 1 <= in_.p - 2 && w - it.size > 0;  // the child is a saved node
      for (const Entry& c : child)
        set.push_back(Entry{it.energy + c.energy, std::max(it.time, c.time), it.size, c.active + (it.size > 0 ? 1 : 0),
                            keyed ? std::optional<double>(c.energy) : std::nullopt});
    }
    reduce(set);
    if (!memoised) {
      root_ = std::move(set);
      return root_;
    }
    ++trace_.saves;  // SavePareto
    auto& slot = trace_.memo[static_cast<std::size_t>(i - 1)][static_cast<std::size_t>(w)];
    slot.assign(set.begin(), set.end());  // exactly sized: the candidates were many more
    trace_.saved_flag[static_cast<std::size_t>(i - 1)][static_cast<std::size_t>(w)] = 1;
    return slot;
  }

  // Follows the keys down from a root point to the whole distribution (normalised parts).
  std::vector<std::int32_t> distribution(const Entry& top) const {
    std::vector<std::int32_t> parts(static_cast<std::size_t>(in_.p), 0);
    const Entry* e = &top;
    std::int32_t w = in_.n;
    for (int i = 0; i < in_.p; ++i) {
      parts[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(e->part);
      w -= static_cast<std::int32_t>(e->part);
      if (w == 0) break;
      if (i + 1 == in_.p - 1) {  // the last processor takes what is left
        parts[static_cast<std::size_t>(i + 1)] = w;
        break;
      }
      const auto& set = trace_.memo[static_cast<std::size_t>(i)][static_cast<std::size_t>(w)];
      const auto next = std::find_if(set.begin(), set.end(), [&](const Entry& c) { return c.energy == *e->key; });
      e = &*next;
    }
    return parts;
  }

 private:
  const std::vector<Entry>& leaf(std::int32_t w) {
    leaf_.clear();
    const auto& items = in_.items[static_cast<std::size_t>(in_.p - 1)];
    const auto it =
        std::lower_bound(items.begin(), items.end(), w, [](const Item& a, std::int32_t s) { return a.size < s; });
    if (it != items.end() && it->size == w && it->energy <= eps_)
      leaf_.push_back(Entry{it->energy, it->time, w, 1, std::nullopt});
    return leaf_;
  }

  const Instance& in_;
  double eps_;
  std::vector<std::int32_t> sigma_;
  PaperTrace& trace_;
  std::vector<std::vector<Item>> by_energy_;
  const std::vector<Entry> zero_{Entry{0.0, 0.0, 0, 0, std::nullopt}};
  const std::vector<Entry> empty_;
  std::vector<Entry> leaf_, root_;
};

}  // namespace

const std::vector<PaperMemoEntry>* PaperTrace::saved(int level, Size w) const {
  if (level < 1 || static_cast<std::size_t>(level) > memo.size() || w < 0 || w % unit != 0) return nullptr;
  const auto row = static_cast<std::size_t>(level - 1);
  const auto col = static_cast<std::size_t>(w / unit);
  if (col >= memo[row].size() || saved_flag[row][col] == 0) return nullptr;
  return &memo[row][col];
}

Front hepopta_paper(const Profile& profile, Size workload, PaperTrace* trace_out) {
  const std::optional<Instance> maybe = detail::make_instance(profile, workload);
  if (!maybe) return {};
  const Instance& in = *maybe;

  // HPOPTA gives the energy threshold.
  const auto fast = detail::time_optimal_parts(in);
  if (!fast) return {};
  PaperTrace trace;
  trace.unit = in.unit;
  trace.time_optimal = make_solution(profile, in.to_distribution(*fast), workload);
  trace.epsilon = trace.time_optimal.energy;

  // Size thresholds: the most work processors i..p-1 can take with every point within eps.
  std::vector<std::int32_t> sigma(static_cast<std::size_t>(in.p) + 1, 0);
  for (int i = in.p - 1; i >= 0; --i) {
    std::int32_t largest = 0;
    for (const Item& it : in.items[static_cast<std::size_t>(i)])
      if (it.energy <= trace.epsilon) largest = std::max(largest, it.size);
    sigma[static_cast<std::size_t>(i)] = sigma[static_cast<std::size_t>(i) + 1] + largest;
  }
  sigma.pop_back();
  for (const std::int32_t s : sigma) trace.size_thresholds.push_back(static_cast<Size>(s) * in.unit);

  Kernel kernel(in, trace.epsilon, sigma, trace);
  const std::vector<PaperMemoEntry> root = kernel.solve(0, in.n);
  std::vector<Solution> candidates;
  for (const PaperMemoEntry& e : root)
    candidates.push_back(make_solution(profile, in.to_distribution(kernel.distribution(e)), workload));
  // Keep the trace's sizes in workload units.
  for (auto& row : trace.memo)
    for (auto& set : row)
      for (PaperMemoEntry& e : set) e.part *= in.unit;
  if (trace_out != nullptr) *trace_out = std::move(trace);
  return pareto_filter(std::move(candidates));
}

}  // namespace ctrl::partition
