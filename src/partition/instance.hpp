// Private: the normalised form of a (profile, workload) pair that the exact algorithms work on.
//
// Sizes and the workload are divided by the greatest common divisor of all sizes (so a DGEMM
// profile measured every 64 rows costs no more than one measured every row), sizes larger than
// the workload are dropped, and every distinct time gets a rank (rank 0 is the time 0 of an
// idle processor), so that times can be compared and bucketed as integers.
#pragma once
#include <ctrl/partition/front.hpp>
#include <ctrl/partition/profile.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace ctrl::partition::detail {

inline constexpr double inf = std::numeric_limits<double>::infinity();

struct Item {
  std::int32_t size = 0;  // normalised (divided by Instance::unit), 1 <= size <= n
  double time = 0.0;
  double energy = 0.0;
  std::uint32_t rank = 0;  // index of `time` in Instance::times
};

// The largest size among `items` (0 for none): how far a processor's part reaches in workload.
inline std::int32_t largest_size(const std::vector<Item>& items) {
  std::int32_t most = 0;
  for (const Item& it : items) most = it.size > most ? it.size : most;
  return most;
}

struct Instance {
  int p = 0;
  Size unit = 1;                         // every size and the workload are multiples of it
  std::int32_t n = 0;                    // normalised workload
  std::vector<std::vector<Item>> items;  // per processor, sorted by size
  std::vector<double> times;             // 0.0 and every item time, distinct, sorted

  std::size_t stride() const noexcept { return static_cast<std::size_t>(n) + 1; }
  std::uint32_t rank_of(double t) const noexcept;  // t must be one of `times`
  // The largest time that is the same (relative 1e-12) as `t`.
  double same_time_limit(double t) const noexcept;
  Distribution to_distribution(const std::vector<std::int32_t>& parts) const;
};

// Largest (p + 1) * (n + 1) the dynamic programmes accept (n normalised).
inline constexpr std::size_t max_table_cells = std::size_t{1} << 27;

// The instance, or nullopt when no distribution of `workload` can exist (it is not a multiple of
// the sizes' gcd, or larger than the sum of the largest sizes). Throws ctrl::UsageError for an
// empty profile, a workload that is not positive, or (with `table_limit`) one too large for the
// tables of the exact programmes.
std::optional<Instance> make_instance(const Profile& profile, Size workload, bool table_limit = true);

// The same instance with only the items that `keep` accepts (ranks are kept).
template <class Pred>
Instance filter_items(const Instance& in, Pred keep) {
  Instance out = in;
  for (int k = 0; k < in.p; ++k) {
    auto& v = out.items[static_cast<std::size_t>(k)];
    v.clear();
    for (const Item& it : in.items[static_cast<std::size_t>(k)])
      if (keep(k, it)) v.push_back(it);
  }
  return out;
}

}  // namespace ctrl::partition::detail
