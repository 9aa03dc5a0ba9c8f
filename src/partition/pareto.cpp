#include <ctrl/errors.hpp>
#include <ctrl/partition/approximate.hpp>
#include <ctrl/partition/brute_force.hpp>
#include <ctrl/partition/hepopta_paper.hpp>
#include <ctrl/partition/pareto.hpp>

namespace ctrl::partition {

std::string_view to_string(Method method) noexcept {
  switch (method) {
    case Method::dp:
      return "dp";
    case Method::paper:
      return "paper";
    case Method::brute_force:
      return "brute-force";
  }
  return "?";
}

std::optional<Method> parse_method(std::string_view name) noexcept {
  for (const Method m : {Method::dp, Method::paper, Method::brute_force})
    if (name == to_string(m)) return m;
  return std::nullopt;
}

Front hepopta(const Profile& profile, Size workload, const ParetoOptions& options) {
  if (options.epsilon != 0.0) {
    if (options.method != Method::dp)
      throw UsageError("an approximate front (epsilon) is computed by the dp method only, not by " +
                       std::string(to_string(options.method)));
    return approximate_front(profile, workload, options.epsilon, ApproxOptions{options.dp.threads});
  }
  switch (options.method) {
    case Method::paper:
      return hepopta_paper(profile, workload);
    case Method::brute_force:
      return brute_force_front(profile, workload);
    case Method::dp:
      break;
  }
  return pareto_front_dp(profile, workload, options.dp);
}

Front htpopta(const Profile& profile, Size workload, double base_power, const ParetoOptions& options) {
  EnergyModel{EnergyKind::total, base_power}.validate();
  // The (time, total energy) front is a subset of the (time, dynamic energy) one.
  return to_total_energy(profile, hepopta(profile, workload, options), workload, base_power);
}

Front pareto_front(const Profile& profile, Size workload, const EnergyModel& model, const ParetoOptions& options) {
  model.validate();
  if (model.kind == EnergyKind::total) return htpopta(profile, workload, model.base_power, options);
  return hepopta(profile, workload, options);
}

}  // namespace ctrl::partition
