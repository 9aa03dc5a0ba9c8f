#include <ctrl/loop/run.hpp>

#include <ctrl/loop/model.hpp>

#include <ctrl/sizes.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace ctrl::loop {

namespace {

// Base powers: given, else the ones the profile was measured with, else measured now, idle, right
// after one execution (as `ctrl profile` does); held powers likewise from the profile, else now.
void settle_base_powers(const RunRequest& req, Platform& team, Problem& problem, const std::vector<Block>& blocks,
                        RunOutcome& out) {
  for (std::size_t i = 0; i < team.size(); ++i) {
    if (!team.info(i).has_energy()) continue;
    for (const auto& [name, w] : req.profile_base_power)
      if (name == team.info(i).name) team.set_base_power(i, w, "from " + req.profile_path);
    for (const auto& [name, w] : req.base_power)
      if (name == team.info(i).name) team.set_base_power(i, w, "given");
    for (const auto& [name, w] : req.profile_held_power)
      if (name == team.info(i).name) team.set_held_power(i, w, "from " + req.profile_path);
  }
  bool need = false;
  for (std::size_t i = 0; i < team.size(); ++i) need |= team.info(i).has_energy() && !team.info(i).base_power_w;
  if (need && req.idle_seconds > 0) {
    team.run(problem, blocks, 1);
    for (auto& line : team.measure_base_power(req.idle_seconds)) out.notes.push_back(std::move(line));
  }
  // Held power, where the profile has none (a split by hand, an earlier profile): the counter's
  // alignment margins are taken at it (Team::round).
  if (req.idle_seconds > 0)
    for (auto& line : settle_held_power(team, problem, blocks)) out.notes.push_back(std::move(line));
}

}  // namespace

RunOutcome run_distribution(const Workload& app, const RunRequest& req, Platform& team,
                            const std::function<void(const RoundProgress&)>& progress, const StopFlag* stop) {
  req.rule.validate();
  if (req.rows.size() != team.size())
    throw UsageError(fmt::format("{}: a distribution of {} part{} for {} processors", app.name(), req.rows.size(),
                                 req.rows.size() == 1 ? "" : "s", team.size()));
  if (!req.predicted.empty() && req.predicted.size() != team.size())
    throw UsageError(
        fmt::format("{}: {} predictions for {} processors", app.name(), req.predicted.size(), team.size()));
  RunOutcome out;
  out.cols = req.cols > 0 ? req.cols : app.default_cols();
  const auto blocks = consecutive_blocks(req.rows);
  auto problem = team.make_problem(app, blocks, out.cols, req.seed);
  settle_base_powers(req, team, *problem, blocks, out);
  out.measured = measure(team, *problem, blocks, req.rule, RoundMode::executions, progress, stop);
  for (auto& line : contention_notes(team, out.measured, "in this run")) out.notes.push_back(std::move(line));
  out.check = team.verify(*problem, blocks);
  // The output only when every row is right: a wrong or partial result is never written.
  if (!req.output.empty() && out.check.ok && !out.measured.interrupted) {
    team.write_output(*problem, blocks, req.output);
    out.output_written = true;
  }
  for (std::size_t i = 0; i < team.size(); ++i) {
    const auto& info = team.info(i);
    ProcessorRun p;
    p.name = info.name;
    p.rows = req.rows[i];
    p.time = out.measured.processors[i].time;
    p.energy = out.measured.processors[i].energy;
    p.held = out.measured.processors[i].held;
    p.cores_taken = out.measured.processors[i].cores_taken;
    if (!req.predicted.empty()) p.predicted = req.predicted[i];
    p.energy_source = info.energy_source;
    p.energy_absent = info.energy_absent;
    p.energy_provenance = info.energy_provenance;
    out.processors.push_back(std::move(p));
  }
  return out;
}

std::optional<double> RunOutcome::time_predicted() const {
  double t = 0;
  for (const auto& p : processors) {
    if (p.rows == 0) continue;
    if (!p.predicted.time) return std::nullopt;
    t = std::max(t, *p.predicted.time);
  }
  return t;
}

std::optional<double> RunOutcome::energy_measured() const {
  std::optional<double> e;
  for (const auto& p : processors)
    if (p.energy) e = e.value_or(0.0) + p.energy->mean;
  return e;
}

std::optional<double> RunOutcome::energy_predicted() const {
  std::optional<double> e;
  for (const auto& p : processors)
    if (p.energy && p.predicted.energy) e = e.value_or(0.0) + *p.predicted.energy;
  return e;
}

namespace {

// Each processor's held tail at the distribution's predicted time (held.hpp), when every
// processor with rows has a predicted time.
void add_held_tails(std::vector<Prediction>& out, const std::vector<index_t>& rows, const std::vector<double>& held) {
  double t = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (rows[i] == 0) continue;
    if (!out[i].time) return;
    t = std::max(t, *out[i].time);
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (rows[i] == 0 || !out[i].energy) continue;
    const double h = std::max(0.0, held[i]);  // 0 W: known to hold nothing, or not known (the profile says which)
    *out[i].energy = std::max(*out[i].energy, h * *out[i].time);
    out[i].held = h * (t - *out[i].time);
    *out[i].energy += *out[i].held;
  }
}

}  // namespace

std::vector<Prediction> predict(const partition::ProfileModel& model, const std::vector<std::string>& names,
                                const std::vector<index_t>& rows, const HeldPower& held,
                                const std::vector<std::string>& without_energy) {
  if (names.size() != rows.size())
    throw UsageError(fmt::format("predict: {} processors and {} parts", names.size(), rows.size()));
  const std::vector<std::string> known = model.measured().names();
  index_t total = 0;
  for (const index_t x : rows) total += x;
  std::vector<Prediction> out(names.size());
  std::vector<double> h(names.size(), 0.0);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto it = std::find(known.begin(), known.end(), names[i]);
    const auto k = static_cast<std::size_t>(it - known.begin());
    if (it != known.end() && k < held.watts.size()) h[i] = held.watts[k];
    if (rows[i] == 0) {
      out[i] = {0.0, 0.0, std::nullopt};
      continue;
    }
    if (it == known.end()) continue;
    // A processor with every row has no neighbour: its point alone, where the model has one.
    if (const auto pt = model.at(k, static_cast<double>(rows[i]), rows[i] == total))
      out[i] = {pt->time, pt->energy, std::nullopt};
    // A profile's energy 0 of a processor without a sensor is no measurement.
    if (std::find(without_energy.begin(), without_energy.end(), names[i]) != without_energy.end())
      out[i].energy.reset();
  }
  add_held_tails(out, rows, h);
  return out;
}

std::vector<Prediction> predict(const partition::Profile& profile, const std::vector<std::string>& names,
                                const std::vector<index_t>& rows, const HeldPower& held) {
  return predict(partition::ProfileModel(profile, {.interpolate = false}), names, rows, held);
}

std::vector<Prediction> predict(const ProfileFile& profile, const std::vector<std::string>& names,
                                const std::vector<index_t>& rows) {
  const LoadedProfile loaded{to_partition_profile(profile), profile};
  return predict(profile_model(loaded), names, rows, held_model(profile), processors_without_energy(profile));
}

}  // namespace ctrl::loop
