// The entry points: HEPOPTA (time, dynamic energy) and HTPOPTA (time, total energy) fronts, by
// the method of your choice. The default is the fastest exact method, the dynamic programme.
#pragma once
#include <ctrl/partition/front.hpp>
#include <ctrl/partition/pareto_dp.hpp>
#include <ctrl/partition/profile.hpp>

#include <optional>
#include <string_view>

namespace ctrl::partition {

enum class Method {
  dp,           // pareto_front_dp: the fast exact dynamic programme (default)
  paper,        // hepopta_paper: the paper's algorithm (Cut / SavePareto / ReadParetoMem)
  brute_force,  // brute_force_front: enumeration, tiny instances only
};

std::string_view to_string(Method method) noexcept;
std::optional<Method> parse_method(std::string_view name) noexcept;  // "dp", "paper", "brute-force"

struct ParetoOptions {
  Method method = Method::dp;
  DpOptions dp;
  // 0: the exact front. Positive: the (1 + epsilon)-approximate front (approximate.hpp; with
  // dp.threads), only with Method::dp.
  double epsilon = 0.0;
};

// HEPOPTA: the exact Pareto front of (parallel time, dynamic energy), one distribution per
// distinct point, sorted by time; empty when the workload cannot be split exactly. With
// options.epsilon > 0 the approximate front; UsageError for an epsilon with another method.
Front hepopta(const Profile& profile, Size workload, const ParetoOptions& options = {});

// HTPOPTA: the same for (parallel time, dynamic energy + base_power * time). Throws
// ctrl::UsageError for a negative or non-finite base power.
Front htpopta(const Profile& profile, Size workload, double base_power, const ParetoOptions& options = {});

// Either, as `model` says.
Front pareto_front(const Profile& profile, Size workload, const EnergyModel& model, const ParetoOptions& options = {});

}  // namespace ctrl::partition
