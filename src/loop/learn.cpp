#include <ctrl/loop/learn.hpp>

#include <ctrl/loop/quantity.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace ctrl::loop {

namespace {

// The file's own processors, application and N against the run's: a row learned elsewhere would
// teach the profile something about another workload.
void check_match(const ProfileFile& file, const std::string& where, const Workload& app, const Plan& plan) {
  if (file.rows.empty())
    throw UsageError(fmt::format("{}: not a `ctrl profile` file with a measured size: nothing to learn into", where));
  const ProfileRow& first = file.rows.front();
  if (first.app != app.identity())
    throw UsageError(fmt::format("{} is a profile of {}, not of {}", where, first.app, app.identity()));
  if (first.cols != plan.cols)
    throw UsageError(fmt::format("{} was measured with N = {}, the run with N = {}", where, first.cols, plan.cols));
  if (file.processors != plan.processors)
    throw UsageError(fmt::format("{} profiles {}, the run ran {}", where, fmt::join(file.processors, ", "),
                                 fmt::join(plan.processors, ", ")));
}

ProfileRow learned_row(const ProfileFile& file, const RunOutcome& outcome, const ProcessorRun& p,
                       const ProcessorResult& m) {
  const auto mine =
      std::find_if(file.rows.begin(), file.rows.end(), [&](const ProfileRow& r) { return r.processor == p.name; });
  ProfileRow r;
  r.processor = p.name;
  r.size = p.rows;
  r.time = p.time.mean;
  r.time_ci = p.time.ci;
  r.reps = outcome.measured.reps;
  r.batch = std::max(1, static_cast<int>(std::lround(m.runs_per_round)));
  r.converged = outcome.measured.converged;
  r.app = mine->app;
  r.cols = outcome.cols;
  r.granularity = mine->granularity;
  r.base_power = mine->base_power;
  r.energy_source = mine->energy_source;
  r.energy_provenance = mine->energy_provenance;
  if (p.energy) {
    // The processor's own energy: the held tail after its block belongs to the distribution (the
    // model adds it back from the held power, held.hpp).
    const double own = p.energy->mean - (p.held ? p.held->mean : 0.0);
    r.energy_measured = own;
    r.energy = std::max(0.0, own);
    r.energy_ci = p.energy->ci;
  }
  if (m.exchange_s > 0) r.exchange_time = std::min(m.exchange_s, r.time);
  r.learned = true;
  return r;
}

}  // namespace

void check_learnable(const std::string& profile, const Workload& app, const Plan& plan, const std::string& option) {
  if (profile.empty()) throw UsageError("learning needs the profile the plan came from");
  check_match(read_profile_file(profile), fmt::format("{} {}", option, profile), app, plan);
}

std::vector<ProfileRow> learn(const std::string& profile, const Workload& app, const Plan& plan,
                              const RunOutcome& outcome, const std::string& option, bool unlocked_ok) {
  const std::string where = fmt::format("{} {}", option, profile);
  if (profile.empty()) throw UsageError("learning needs the profile the plan came from");
  if (!outcome.check.ok) throw UsageError(fmt::format("{}: the run's check failed: nothing learned", where));
  if (outcome.measured.reps == 0) throw UsageError(fmt::format("{}: the run measured no round", where));
  ProfileWriter writer(profile, option, unlocked_ok);
  const ProfileFile& file = writer.existing();
  check_match(file, where, app, plan);
  std::vector<ProfileRow> rows;
  for (std::size_t i = 0; i < outcome.processors.size() && i < outcome.measured.processors.size(); ++i) {
    const ProcessorRun& p = outcome.processors[i];
    if (p.rows <= 0) continue;
    if (!(p.time.mean > 0) || !std::isfinite(p.time.mean))
      throw UsageError(fmt::format("{}: {} has no measured time to learn", where, p.name));
    rows.push_back(learned_row(file, outcome, p, outcome.measured.processors[i]));
  }
  writer.write(rows);
  return rows;
}

std::vector<Drift> drifts(const RunOutcome& outcome) {
  std::vector<Drift> out;
  for (const ProcessorRun& p : outcome.processors) {
    if (p.rows <= 0 || !p.predicted.time || !(*p.predicted.time > 0)) continue;
    const double predicted = *p.predicted.time, measured = p.time.mean;
    const double interval = std::isfinite(p.time.ci) ? p.time.ci : 0.0;
    if (std::fabs(measured - predicted) <= interval + 0.10 * predicted) continue;
    Drift d{p.name, p.rows, measured, predicted, interval, {}};
    d.advice = fmt::format(
        "{} at {} rows took {} against {} predicted ({}), beyond its 95 % interval (±{}) and 10 %: run again with "
        "--learn to teach the profile this size, or profile again around {} rows",
        p.name, p.rows, format_seconds(measured), format_seconds(predicted), format_percent(measured / predicted - 1),
        format_seconds(interval), p.rows);
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace ctrl::loop
