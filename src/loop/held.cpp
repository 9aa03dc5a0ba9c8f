#include <ctrl/loop/held.hpp>

#include <ctrl/errors.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <utility>

namespace ctrl::loop {

namespace {

double held_of(const HeldPower& held, std::size_t i) { return i < held.watts.size() ? held.watts[i] : 0.0; }

// The largest number of held devices whose subsets are enumerated.
constexpr std::size_t max_held = 12;

// The sub-profile of the processors in `keep` (profile order), the held ones of `working` with
// energies e - h t (at least 0), and the processors' indices in the whole profile.
partition::Profile transformed(const partition::Profile& profile, const HeldPower& held,
                               const std::vector<std::size_t>& keep) {
  partition::Profile sub;
  for (const std::size_t i : keep) {
    const double h = held_of(held, i);
    std::vector<partition::ProfilePoint> points;
    for (const auto& pt : profile[i].points())
      points.push_back({pt.size, pt.time, std::max(pt.energy, h * pt.time) - h * pt.time});
    sub.add(partition::ProcessorProfile(profile[i].name(), std::move(points)));
  }
  return sub;
}

}  // namespace

bool HeldPower::any() const {
  return std::any_of(watts.begin(), watts.end(), [](double w) { return w > 0; });
}

HeldPower held_model(const ProfileFile& file, std::vector<std::string>* unknown) {
  HeldPower h;
  const auto found = held_powers(file);
  const auto provenance = processor_provenance(file);
  for (std::size_t i = 0; i < found.size(); ++i) {
    h.watts.push_back(std::max(0.0, found[i].value_or(0.0)));
    if (!found[i] && provenance[i] != energy::Provenance::absent && unknown != nullptr)
      unknown->push_back(file.processors[i]);
  }
  return h;
}

std::optional<partition::Evaluation> evaluate_held(const partition::Profile& profile, const HeldPower& held,
                                                   const partition::Distribution& x, partition::Size workload) {
  const auto plain = partition::evaluate(profile, x, workload);
  if (!plain || !held.any()) return plain;
  double f = 0;
  for (std::size_t i = 0; i < profile.size(); ++i) {  // in processor order, as partition::evaluate sums
    if (x[i] == 0) continue;
    const auto* pt = profile[i].find(x[i]);
    const double h = held_of(held, i);
    f += std::max(pt->energy, h * pt->time) + h * (plain->time - pt->time);
  }
  return partition::Evaluation{plain->time, f};
}

partition::Solution held_solution(const partition::Profile& profile, const HeldPower& held,
                                  const partition::Distribution& x, partition::Size workload,
                                  const partition::EnergyModel& model) {
  const auto e = evaluate_held(profile, held, x, workload);
  if (!e) throw UsageError(fmt::format("held_solution: not a distribution of {} with this profile's sizes", workload));
  return {e->time, model.energy(e->time, e->dynamic_energy), x};
}

partition::Front held_front(const partition::Profile& profile, const HeldPower& held, partition::Size workload,
                            const partition::EnergyModel& model, const partition::ParetoOptions& options) {
  model.validate();
  if (!held.any()) return partition::pareto_front(profile, workload, model, options);
  std::vector<std::size_t> holding, others;
  for (std::size_t i = 0; i < profile.size(); ++i) (held_of(held, i) > 0 ? holding : others).push_back(i);
  if (holding.size() > max_held)
    throw UsageError(
        fmt::format("{} processors hold power after their blocks: at most {} are modelled (one front "
                    "per subset of them)",
                    holding.size(), max_held));
  const double base = model.kind == partition::EnergyKind::total ? model.base_power : 0.0;
  std::vector<partition::Solution> candidates;
  for (std::size_t mask = 0; mask < (std::size_t{1} << holding.size()); ++mask) {
    std::vector<std::size_t> keep = others;
    double h_sum = 0;
    for (std::size_t k = 0; k < holding.size(); ++k)
      if (mask & (std::size_t{1} << k)) {
        keep.push_back(holding[k]);
        h_sum += held_of(held, holding[k]);
      }
    if (keep.empty()) continue;
    std::sort(keep.begin(), keep.end());
    const partition::Front sub = partition::htpopta(transformed(profile, held, keep), workload, base + h_sum, options);
    for (const auto& s : sub) {
      partition::Distribution x(profile.size(), 0);
      for (std::size_t k = 0; k < keep.size(); ++k) x[keep[k]] = s.distribution[k];
      candidates.push_back(held_solution(profile, held, x, workload, model));
    }
  }
  return partition::pareto_filter(std::move(candidates));
}

}  // namespace ctrl::loop
