// Private: the single-objective dynamic programmes over processors that HPOPTA, the bounds of
// the Pareto dynamic programme and the load-balanced search are built on. Each is O(p * m * n)
// with contiguous inner loops that the compiler vectorises.
#pragma once
#include "instance.hpp"

#include <climits>
#include <cstdint>
#include <optional>
#include <vector>

namespace ctrl::partition::detail {

class Pool;

// a[r] = min(a[r], b[r - x] + e) for r in [max(x, lo), hi): adding an item of size x and energy e
// to a (min, +) table, the step every energy programme here repeats (the class walk's copy counts
// and its combinations too).
void relax_sum(double* a, const double* b, std::int32_t x, std::int32_t lo, std::int32_t hi, double e);

// tau[k * (n + 1) + r], k = 0..p: the least parallel time that gives workload r to processors
// k..p-1 (0 for r = 0 at k = p; inf where impossible). With allow_zero false every processor
// must get a non-zero size. With a pool, each row is split between its threads (the same table).
std::vector<double> suffix_min_max_time(const Instance& in, bool allow_zero = true, Pool* pool = nullptr);

// out[k * (n + 1) + r], k = 0..p: the least dynamic energy that gives workload r to processors
// k..p-1 using only items with time <= tlimit and energy <= elimit (inf where impossible).
// `out` must hold (p + 1) * (n + 1) doubles.
void suffix_min_energy(const Instance& in, double tlimit, double elimit, double* out);

// One row of that table: row k (n + 1 doubles) from row k + 1 (`below`), its entries [lo, hi)
// only where asked (they read `below` at [lo - the largest size, hi)). suffix_min_energy is this
// step repeated, so a row recomputed from a kept row below it is bitwise the same.
void suffix_min_energy_row(const Instance& in, int k, double tlimit, double elimit, const double* below, double* row,
                           std::int32_t lo = 0, std::int32_t hi = INT32_MAX);

// The parts (normalised) of a distribution of least dynamic energy, summed in processor order,
// among those whose items have time <= tlimit and energy <= elimit; nullopt when none exists.
// With a pool, each processor's row is split between its threads (the same parts).
std::optional<std::vector<std::int32_t>> min_energy_parts(const Instance& in, double tlimit, double elimit,
                                                          bool allow_zero = true, Pool* pool = nullptr);

// The parts of a time-optimal distribution with the least dynamic energy among the time-optimal
// ones (times that are the same to 1e-12 count as equal); nullopt when none exists.
std::optional<std::vector<std::int32_t>> time_optimal_parts(const Instance& in, bool allow_zero = true);

}  // namespace ctrl::partition::detail
