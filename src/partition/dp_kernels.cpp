#include "dp_kernels.hpp"

#include "pool.hpp"
#include "simd.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

namespace ctrl::partition::detail {

namespace {

// a[r] = min(a[r], max(b[r - x], t)) for r in [max(x, lo), hi).
CTRL_PARTITION_SIMD void relax_max(double* a, const double* b, std::int32_t x, std::int32_t lo, std::int32_t hi,
                                   double t) {
  for (std::int32_t r = std::max(x, lo); r < hi; ++r) {
    const double v = b[r - x] > t ? b[r - x] : t;
    a[r] = v < a[r] ? v : a[r];
  }
}

// As relax_sum for r in [max(x, lo), hi), remembering which size gave the minimum.
CTRL_PARTITION_SIMD void relax_sum_choice(double* a, std::int32_t* choice, const double* b, std::int32_t x,
                                          std::int32_t lo, std::int32_t hi, double e) {
  for (std::int32_t r = std::max(x, lo); r < hi; ++r) {
    const double v = b[r - x] + e;
    const bool better = v < a[r];
    a[r] = better ? v : a[r];
    choice[r] = better ? x : choice[r];
  }
}

// Runs body(lo, hi) over slices of the workloads [0, n] on the pool's threads, or all of them
// here without one. Each workload's entry is computed as by one pass, so any split gives the same
// table; slices are kept large enough that a row's work outweighs waking the threads.
template <class F>
void by_workloads(Pool* pool, const Instance& in, F&& body) {
  const std::size_t s = in.stride();
  const std::size_t T = pool == nullptr ? 1 : std::clamp<std::size_t>(s / 256, 1, pool->size());
  if (T == 1) {
    body(std::int32_t{0}, static_cast<std::int32_t>(s));
    return;
  }
  pool->run(static_cast<unsigned>(T), [&](unsigned t) {
    body(static_cast<std::int32_t>(s * t / T), static_cast<std::int32_t>(s * (t + 1) / T));
  });
}

}  // namespace

CTRL_PARTITION_SIMD void relax_sum(double* a, const double* b, std::int32_t x, std::int32_t lo, std::int32_t hi,
                                   double e) {
  for (std::int32_t r = std::max(x, lo); r < hi; ++r) {
    const double v = b[r - x] + e;
    a[r] = v < a[r] ? v : a[r];
  }
}

std::vector<double> suffix_min_max_time(const Instance& in, bool allow_zero, Pool* pool) {
  const std::size_t s = in.stride();
  std::vector<double> tau(static_cast<std::size_t>(in.p + 1) * s, inf);
  tau[static_cast<std::size_t>(in.p) * s] = 0.0;
  for (int k = in.p - 1; k >= 0; --k) {
    double* a = &tau[static_cast<std::size_t>(k) * s];
    const double* b = a + s;
    by_workloads(pool, in, [&](std::int32_t lo, std::int32_t hi) {
      if (allow_zero) std::copy(b + lo, b + hi, a + lo);
      for (const Item& it : in.items[static_cast<std::size_t>(k)]) relax_max(a, b, it.size, lo, hi, it.time);
    });
  }
  return tau;
}

namespace {

using Vec4 = double __attribute__((vector_size(32)));

// row[r] = min(below[r], below[r - x[i]] + e[i] for the sizes x[i] <= r), the sizes increasing,
// for r in [lo, s). Sixteen entries at a time stay in registers while every size is added: one
// load per four entries and size, where a pass per size loads and stores the whole row each time
// (2.2-2.5 times as fast on rows of 4,000-16,000 entries with 64-2,000 sizes). A minimum does not
// depend on the order it is taken in, so the row is bitwise that of relax_sum size by size.
CTRL_PARTITION_SIMD void min_plus_row(double* row, const double* below, const std::int32_t* x, const double* e,
                                      std::size_t count, std::int32_t lo, std::int32_t s) {
  constexpr std::int32_t W = 16;
  std::int32_t r0 = lo;
  for (; r0 + W <= s; r0 += W) {
    Vec4 a0, a1, a2, a3;
    std::memcpy(&a0, below + r0, sizeof a0);
    std::memcpy(&a1, below + r0 + 4, sizeof a1);
    std::memcpy(&a2, below + r0 + 8, sizeof a2);
    std::memcpy(&a3, below + r0 + 12, sizeof a3);
    std::size_t i = 0;
    for (; i < count && x[i] <= r0; ++i) {
      const Vec4 ei = {e[i], e[i], e[i], e[i]};
      const double* b = below + r0 - x[i];
      Vec4 v0, v1, v2, v3;
      std::memcpy(&v0, b, sizeof v0);
      std::memcpy(&v1, b + 4, sizeof v1);
      std::memcpy(&v2, b + 8, sizeof v2);
      std::memcpy(&v3, b + 12, sizeof v3);
      v0 += ei;
      v1 += ei;
      v2 += ei;
      v3 += ei;
      a0 = v0 < a0 ? v0 : a0;
      a1 = v1 < a1 ? v1 : a1;
      a2 = v2 < a2 ? v2 : a2;
      a3 = v3 < a3 ? v3 : a3;
    }
    std::memcpy(row + r0, &a0, sizeof a0);
    std::memcpy(row + r0 + 4, &a1, sizeof a1);
    std::memcpy(row + r0 + 8, &a2, sizeof a2);
    std::memcpy(row + r0 + 12, &a3, sizeof a3);
    for (; i < count && x[i] < r0 + W; ++i)  // sizes that reach only part of these entries
      relax_sum(row, below, x[i], r0, r0 + W, e[i]);
  }
  std::copy(below + r0, below + s, row + r0);
  for (std::size_t i = 0; i < count && x[i] < s; ++i) relax_sum(row, below, x[i], r0, s, e[i]);
}

}  // namespace

void suffix_min_energy_row(const Instance& in, int k, double tlimit, double elimit, const double* below, double* row,
                           std::int32_t lo, std::int32_t hi) {
  std::vector<std::int32_t> x;
  std::vector<double> e;
  for (const Item& it : in.items[static_cast<std::size_t>(k)])  // sorted by size
    if (it.time <= tlimit && it.energy <= elimit) {
      x.push_back(it.size);
      e.push_back(it.energy);
    }
  hi = std::min(hi, static_cast<std::int32_t>(in.stride()));
  if (lo < hi) min_plus_row(row, below, x.data(), e.data(), x.size(), lo, hi);
}

void suffix_min_energy(const Instance& in, double tlimit, double elimit, double* out) {
  const std::size_t s = in.stride();
  std::fill(out, out + static_cast<std::size_t>(in.p + 1) * s, inf);
  out[static_cast<std::size_t>(in.p) * s] = 0.0;
  for (int k = in.p - 1; k >= 0; --k) {
    double* a = out + static_cast<std::size_t>(k) * s;
    suffix_min_energy_row(in, k, tlimit, elimit, a + s, a);
  }
}

std::optional<std::vector<std::int32_t>> min_energy_parts(const Instance& in, double tlimit, double elimit,
                                                          bool allow_zero, Pool* pool) {
  const std::size_t s = in.stride();
  const auto p = static_cast<std::size_t>(in.p);
  std::vector<std::int32_t> choice(p * s, 0);
  std::vector<double> prev(s, inf), cur(s);
  prev[0] = 0.0;
  for (std::size_t k = 0; k < p; ++k) {
    std::int32_t* ch = &choice[k * s];
    by_workloads(pool, in, [&](std::int32_t lo, std::int32_t hi) {
      if (allow_zero) {
        // Adding e(0) = 0 keeps the canonical sum unchanged.
        std::copy(prev.begin() + lo, prev.begin() + hi, cur.begin() + lo);
      } else {
        std::fill(cur.begin() + lo, cur.begin() + hi, inf);
      }
      for (const Item& it : in.items[k])
        if (it.time <= tlimit && it.energy <= elimit)
          relax_sum_choice(cur.data(), ch, prev.data(), it.size, lo, hi, it.energy);
    });
    std::swap(prev, cur);
  }
  if (!(prev[static_cast<std::size_t>(in.n)] < inf)) return std::nullopt;
  std::vector<std::int32_t> parts(p, 0);
  std::int32_t w = in.n;
  for (std::size_t k = p; k-- > 0;) {
    parts[k] = choice[k * s + static_cast<std::size_t>(w)];
    w -= parts[k];
  }
  return parts;
}

std::optional<std::vector<std::int32_t>> time_optimal_parts(const Instance& in, bool allow_zero) {
  const std::vector<double> tau = suffix_min_max_time(in, allow_zero, nullptr);
  const double tstar = tau[static_cast<std::size_t>(in.n)];
  if (!(tstar < inf)) return std::nullopt;
  return min_energy_parts(in, in.same_time_limit(tstar), inf, allow_zero, nullptr);
}

}  // namespace ctrl::partition::detail
