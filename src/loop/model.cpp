#include <ctrl/loop/model.hpp>

#include <ctrl/errors.hpp>
#include <ctrl/partition/hpopta.hpp>
#include <ctrl/partition/load_balanced.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace ctrl::loop {

namespace {

// Each processor alone: its rows without the time spent exchanging halos, and without the energy
// its device draws meanwhile (its held power over that time: a device waiting on copies draws what
// it draws between blocks). nullopt when no row exchanges.
std::optional<partition::Profile> alone_profile(const ProfileFile& file, const partition::Profile& measured) {
  if (std::none_of(file.rows.begin(), file.rows.end(), [](const ProfileRow& r) { return r.exchange_time > 0.0; }))
    return std::nullopt;
  const HeldPower held = held_model(file);
  partition::Profile alone;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    const double h = i < held.watts.size() ? held.watts[i] : 0.0;
    std::vector<partition::ProfilePoint> pts;
    for (const auto& pt : measured[i].points()) {
      double exchange = 0;
      for (const auto& r : file.rows)
        if (r.processor == measured[i].name() && r.size == pt.size) exchange = r.exchange_time.value_or(0.0);
      pts.push_back({pt.size, std::max(0.0, pt.time - exchange), std::max(0.0, pt.energy - h * exchange)});
    }
    alone.add(partition::ProcessorProfile(measured[i].name(), std::move(pts)));
  }
  return alone;
}

}  // namespace

partition::ProfileModel profile_model(const LoadedProfile& loaded, const ModelChoice& choice) {
  if (choice.granularity && *choice.granularity < 1)
    throw UsageError(fmt::format("granularity {}: a part is a positive number of rows", *choice.granularity));
  if (choice.measured_only && choice.granularity)
    throw UsageError("measured sizes only (no interpolation) take no granularity");
  partition::ModelOptions options;
  options.resolution = choice.resolution;
  options.interpolate = !choice.measured_only && (loaded.file.has_value() || choice.granularity.has_value());
  if (choice.granularity)
    options.granularity = *choice.granularity;
  else if (loaded.file && !loaded.file->rows.empty())
    options.granularity = loaded.file->rows.front().granularity;
  std::optional<partition::Profile> alone;
  if (loaded.file) alone = alone_profile(*loaded.file, loaded.profile);
  return partition::ProfileModel(loaded.profile, options, std::move(alone));
}

partition::Solution model_solution(const partition::ProfileModel& model, const HeldPower& held,
                                   const partition::Distribution& rows, partition::Size workload,
                                   const partition::EnergyModel& energy) {
  return held_solution(model.point_profile(rows, workload), held, rows, workload, energy);
}

partition::Front model_reevaluate(const partition::ProfileModel& model, const HeldPower& held,
                                  const partition::Front& front, partition::Size workload,
                                  const partition::EnergyModel& energy) {
  energy.validate();
  std::vector<partition::Solution> out;
  out.reserve(front.size());
  for (const auto& s : front) out.push_back(model_solution(model, held, s.distribution, workload, energy));
  return partition::pareto_filter(std::move(out));
}

namespace {

// Chunk solutions of a grid as rows, re-evaluated under the model and filtered.
partition::Front in_rows(const partition::ProfileModel& model, const partition::ModelGrid& grid, const HeldPower& held,
                         const partition::Front& chunks, const partition::EnergyModel& energy) {
  partition::Front rows;
  rows.reserve(chunks.size());
  for (const auto& s : chunks) rows.push_back({0.0, 0.0, model.rows(grid, s.distribution)});
  return model_reevaluate(model, held, rows, grid.workload, energy);
}

}  // namespace

partition::Front model_front(const partition::ProfileModel& model, const HeldPower& held, partition::Size workload,
                             const partition::EnergyModel& energy, const partition::ParetoOptions& options) {
  const partition::ModelGrid grid = model.grid(workload);
  return in_rows(model, grid, held, held_front(grid.profile, held, grid.chunks, energy, options), energy);
}

partition::Front model_time_optimal(const partition::ProfileModel& model, partition::Size workload) {
  const partition::ModelGrid grid = model.grid(workload);
  const auto best = partition::hpopta(grid.profile, grid.chunks);
  if (!best) return {};
  return {model.solution(model.rows(grid, best->distribution), workload)};
}

std::optional<partition::Solution> model_balanced(const partition::ProfileModel& model, const HeldPower& held,
                                                  partition::Size workload, Balance balance,
                                                  const partition::EnergyModel& energy) {
  const partition::ModelGrid grid = model.grid(workload);
  const auto s = balance == Balance::even ? partition::even_split(grid.profile, grid.chunks, energy)
                                          : partition::load_balanced(grid.profile, grid.chunks, energy);
  if (!s) return std::nullopt;
  return model_solution(model, held, model.rows(grid, s->distribution), workload, energy);
}

std::string interpolation_note(const partition::ProfileModel& model, const partition::Distribution& x) {
  std::string out;
  for (std::size_t i = 0; i < x.size() && i < model.size(); ++i) {
    const auto basis = model.basis(i, x[i]);
    if (basis == partition::Basis::interpolated)
      out += fmt::format("{}{} interpolated at {}", out.empty() ? "" : ", ", model.measured()[i].name(), x[i]);
    else if (basis == partition::Basis::below)
      out += fmt::format("{}{} at {}, below its smallest size ({})", out.empty() ? "" : ", ",
                         model.measured()[i].name(), x[i], model.measured()[i].points().front().size);
  }
  return out;
}

}  // namespace ctrl::loop
