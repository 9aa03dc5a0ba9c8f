// Held power in the model of a distribution's energy (docs/energy.md, "Held power").
//
// A device whose block is done does not drop to its base power at once: a GPU keeps its clocks
// up for a while (measured on an H200: about 120 W against a deep-idle 75 W) while the processors
// that decide the time still work. `ctrl profile` measures it, per device, as its held power h_i
// (the profile file's held_power column), and the dynamic energy of a distribution X becomes
//
//   F(X) = sum over i with x_i > 0 of  e_i(x_i) + h_i * (T(X) - t_i(x_i)),   T(X) = max_i t_i(x_i)
//
// where e_i is taken as at least h_i * t_i (a device does not draw less working than waiting: a
// profile point below that is noise). A processor without work holds nothing: it stays at base.
// The exact front of (T, F) is computed with the existing exact algorithms: for a set S of the
// processors with h_i > 0 that work, F = sum_i (e_i - h_i t_i)(x_i) + (sum over S of h_i) * T, the
// total-energy objective of HTPOPTA with transformed (non-negative) energies and base power
// sum over S of h_i. One HTPOPTA per subset S (2^k for k held devices, usually the GPUs), each
// answer re-evaluated exactly, and the union filtered. A subset's front may count h_i T for a
// device of S left without work, never less than F: the union therefore holds every point of
// the exact front. With no held power at all it is the plain HEPOPTA / HTPOPTA front.
//
//   const auto held = ctrl::loop::held_model(profile_file);       // from `ctrl profile`'s file
//   const auto front = ctrl::loop::held_front(profile, held, n, {}, {});
#pragma once
#include <ctrl/loop/profile_file.hpp>
#include <ctrl/partition/front.hpp>
#include <ctrl/partition/pareto.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ctrl::loop {

// Held power per processor in the profile's order, W above base, clamped at 0 (nothing known: 0).
struct HeldPower {
  std::vector<double> watts;
  bool any() const;  // some processor holds power
};

// From a `ctrl profile` file: each processor's held_powers() (0 where unknown, with the processor
// named in `unknown` when it has energy but no held power: a file written before the column, or
// without idle windows).
HeldPower held_model(const ProfileFile& file, std::vector<std::string>* unknown = nullptr);

// F(X) and T(X) of a valid distribution (partition::evaluate's rules), or nullopt when invalid.
// `held` may be empty (no held power).
std::optional<partition::Evaluation> evaluate_held(const partition::Profile& profile, const HeldPower& held,
                                                   const partition::Distribution& x, partition::Size workload);

// The solution of X with energy F(X) (dynamic) or F(X) + base_power T(X) (total); UsageError when
// X is not valid.
partition::Solution held_solution(const partition::Profile& profile, const HeldPower& held,
                                  const partition::Distribution& x, partition::Size workload,
                                  const partition::EnergyModel& model = {});

// The exact front of (T, F) or (T, F + base_power T), as `model` says; empty when the workload
// cannot be split. UsageError when more than 12 processors hold power (4096 fronts).
partition::Front held_front(const partition::Profile& profile, const HeldPower& held, partition::Size workload,
                            const partition::EnergyModel& model = {}, const partition::ParetoOptions& options = {});

}  // namespace ctrl::loop
