#include "dp_kernels.hpp"

#include "pool.hpp"
#include "simd.hpp"

#include <algorithm>

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

void suffix_min_energy_row(const Instance& in, int k, double tlimit, double elimit, const double* below, double* row) {
  std::copy(below, below + in.stride(), row);
  for (const Item& it : in.items[static_cast<std::size_t>(k)])
    if (it.time <= tlimit && it.energy <= elimit) relax_sum(row, below, it.size, 0, in.n + 1, it.energy);
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
