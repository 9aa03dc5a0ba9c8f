// Results of the workload-distribution optimisers: distributions, their (time, energy) points,
// and the tolerant comparison that decides when two points are the same.
//
// Objectives of a distribution X = (x_0 ... x_{p-1}), sum x_i = n (the HEPOPTA paper, III):
//   parallel time    T(X) = max over i with x_i > 0 of t_i(x_i)   (0 when every x_i is 0)
//   dynamic energy   E(X) = e_0(x_0) + e_1(x_1) + ... + e_{p-1}(x_{p-1}), e_i(0) = 0,
//                    summed in processor order (the canonical order: every algorithm reports
//                    energies recomputed this way, so equal distributions give equal doubles)
//   total energy     E(X) + P_base * T(X)
// Two values are the same when they agree to a relative 1e-12; two points are the same when both
// objectives are. Point a dominates b when a is no worse in both objectives (a value that is the
// same counts as equal) and the points are not the same.
#pragma once
#include <ctrl/errors.hpp>
#include <ctrl/partition/profile.hpp>

#include <optional>
#include <vector>

namespace ctrl::partition {

inline constexpr double relative_tolerance = 1e-12;

// An instance too large for the tables of the exact algorithms (workload units times processors
// past their limit). The approximate front (ParetoOptions::epsilon) does not need them.
class TooLargeError : public UsageError {
 public:
  using UsageError::UsageError;
};

// |a - b| <= 1e-12 * max(|a|, |b|)  (so 0 is only the same as 0).
bool same_value(double a, double b) noexcept;
// a <= b, or a and b are the same.
bool no_worse(double a, double b) noexcept;

using Distribution = std::vector<Size>;  // one workload per processor, in the profile's order

// Which energy the second objective is.
enum class EnergyKind { dynamic, total };

struct EnergyModel {
  EnergyKind kind = EnergyKind::dynamic;
  double base_power = 0.0;  // watts; used when kind == total

  // The objective for a distribution of parallel time `time` and dynamic energy `dynamic`.
  double energy(double time, double dynamic) const noexcept {
    return kind == EnergyKind::total ? dynamic + base_power * time : dynamic;
  }
  // Throws ctrl::UsageError for a negative or non-finite base power.
  void validate() const;
};

// A distribution and its objectives. `energy` is dynamic or total as the producing call says.
struct Solution {
  double time = 0.0;
  double energy = 0.0;
  Distribution distribution;
};

// A Pareto front: one solution per distinct point, sorted by increasing time (so by decreasing
// energy). Empty when the workload cannot be split exactly with the profile's sizes.
using Front = std::vector<Solution>;

// Time and dynamic energy of a distribution, or nullopt when it is not valid: wrong length, a
// negative part, a non-zero part that is not a size of that processor, or parts not summing to n.
struct Evaluation {
  double time = 0.0;
  double dynamic_energy = 0.0;
};
std::optional<Evaluation> evaluate(const Profile& profile, const Distribution& x, Size workload);

// The solution for a valid distribution under `model`; throws ctrl::UsageError when invalid.
Solution make_solution(const Profile& profile, const Distribution& x, Size workload, const EnergyModel& model = {});

bool same_point(const Solution& a, const Solution& b) noexcept;
bool dominates(const Solution& a, const Solution& b) noexcept;

// The non-dominated solutions of `candidates`, one per distinct point, sorted by time. Among
// candidates that are the same point, the one with the least (time, energy) is kept.
Front pareto_filter(std::vector<Solution> candidates);

// The same front with every energy turned into total energy (dynamic + base_power * time), then
// filtered again. Valid because the (time, total energy) front is a subset of the (time, dynamic
// energy) front (the HEPOPTA paper, VI). `front` must hold dynamic energies.
Front to_total_energy(const Profile& profile, const Front& dynamic_front, Size workload, double base_power);

}  // namespace ctrl::partition
