// Private: whether choosing one size from each processor's allowed sizes can sum to exactly n, the
// check behind both load-balancing searches (load_balanced.hpp). A subset sum over bitsets:
// O(p * k * n / 64) for k allowed sizes a processor, with buffers kept between checks.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ctrl::partition::detail {

class OneEachSum {
 public:
  explicit OneEachSum(std::int32_t n)
      : n_(static_cast<std::size_t>(n)), words_(n_ / 64 + 1), reach_(words_), next_(words_) {}

  // Starts a check: only the empty sum is reachable.
  void begin() {
    std::fill(reach_.begin(), reach_.end(), 0);
    reach_[0] = 1;
  }

  // The next processor: `for_each_size(take)` calls take(size) for every size (1..n) it may get.
  // False when no sum is reachable any more (the check can stop: the answer is no).
  template <class ForEachSize>
  bool processor(ForEachSize for_each_size) {
    std::fill(next_.begin(), next_.end(), 0);
    for_each_size([this](std::int32_t size) { or_shifted(static_cast<std::size_t>(size)); });
    std::swap(reach_, next_);
    return std::any_of(reach_.begin(), reach_.end(), [](std::uint64_t w) { return w != 0; });
  }

  // Whether the processors so far can sum to n.
  bool reaches_n() const { return (reach_[n_ / 64] >> (n_ % 64)) & 1u; }

 private:
  // next |= reach << shift. Bits past n may be set; they only move further up, never onto n.
  void or_shifted(std::size_t shift) {
    const std::size_t ws = shift / 64, bs = shift % 64;
    for (std::size_t w = words_; w-- > ws;) {
      std::uint64_t v = reach_[w - ws] << bs;
      if (bs != 0 && w > ws) v |= reach_[w - ws - 1] >> (64 - bs);
      next_[w] |= v;
    }
  }

  std::size_t n_, words_;
  std::vector<std::uint64_t> reach_, next_;
};

}  // namespace ctrl::partition::detail
