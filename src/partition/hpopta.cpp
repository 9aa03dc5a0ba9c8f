#include <ctrl/partition/hpopta.hpp>

#include "dp_kernels.hpp"
#include "instance.hpp"

namespace ctrl::partition {

std::optional<Solution> hpopta(const Profile& profile, Size workload) {
  const std::optional<detail::Instance> in = detail::make_instance(profile, workload);
  if (!in) return std::nullopt;
  const auto parts = detail::time_optimal_parts(*in);
  if (!parts) return std::nullopt;
  return make_solution(profile, in->to_distribution(*parts), workload);
}

}  // namespace ctrl::partition
