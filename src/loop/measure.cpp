#include <ctrl/loop/measure.hpp>

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <limits>

namespace ctrl::loop {

void StopRule::validate() const {
  if (min_reps < 2)
    throw UsageError(fmt::format("--min-reps {}: a confidence interval needs at least 2 rounds", min_reps));
  if (max_reps < min_reps) throw UsageError(fmt::format("--max-reps {} is below --min-reps {}", max_reps, min_reps));
  if (!(precision > 0) || !std::isfinite(precision))
    throw UsageError(fmt::format("--precision {}: a positive fraction is needed (0.025 is 2.5 %)", precision));
  if (!(max_seconds >= 0) || !std::isfinite(max_seconds))
    throw UsageError(fmt::format("--max-seconds {}: a non-negative number is needed", max_seconds));
}

namespace {

// The executions per measured round: enough that a round lasts Platform::round_seconds(). Sized
// from a calibration round's time per execution, and sized again while a round of that batch was
// still short of it: the first executions can take many times a later one (the offload kind's
// first runs allocate and touch its memory), and a batch sized from them gave rounds of a third of
// --min-round, whose per-round costs then showed up as +60 % to +140 % against the profile.
int calibrate_batch(Platform& team, Problem& problem, const std::vector<Block>& blocks, double warm_s) {
  int batch = team.batch_for(warm_s);
  for (int attempt = 0; attempt < 5; ++attempt) {
    const RoundResult calib = team.run(problem, blocks, batch);  // wall_s: per execution
    const int needed = team.batch_for(calib.wall_s);
    if (needed <= batch) return needed;  // this round lasted long enough: the time per run holds
    batch = needed;
  }
  return batch;
}

}  // namespace

std::vector<std::string> contention_notes(const Platform& team, const MeasureResult& m, const std::string& where) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < m.processors.size() && i < team.size(); ++i) {
    const double share = m.processors[i].cores_taken;
    if (share < contended_share) continue;
    lines.push_back(
        fmt::format("{}: other work took {:.0f} % of its cores' time {} (another job shares its cores): its "
                    "times there are those of a busy machine",
                    team.info(i).name, 100 * share, where));
  }
  return lines;
}

MeasureResult measure(Platform& team, Problem& problem, const std::vector<Block>& blocks, const StopRule& rule,
                      RoundMode mode, const std::function<void(const RoundProgress&)>& progress, const StopFlag* stop) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  const std::size_t n = team.size();
  MeasureResult out;
  out.processors.resize(n);

  // Warm-up: first-run costs (plans, allocations, page faults, pinning) stay out of the means.
  const RoundResult warm = team.run(problem, blocks, 1);
  if (mode == RoundMode::executions) out.batch = calibrate_batch(team, problem, blocks, warm.wall_s);

  std::vector<std::vector<double>> times(n), energies(n), helds(n);
  std::vector<double> walls, windows, runs(n, 0.0), exchange(n, 0.0), cores_taken(n, 0.0);
  int resized = 0;
  const auto stopped = [&] { return team.any(stop != nullptr && stop->load()); };
  while (!stopped()) {
    const RoundResult r = mode == RoundMode::executions ? team.run(problem, blocks, out.batch)
                                                        : team.fill(problem, blocks, team.round_seconds());
    // A round well short of the round time (its executions got much faster than calibration saw):
    // the batch grows and the means start again, so that per-round costs stay out of them. Only
    // well short: noise must not restart the means (a 2 ms round on a loaded machine varies).
    if (mode == RoundMode::executions && resized < 5 && r.wall_s * out.batch < 0.5 * team.round_seconds()) {
      if (progress) progress({out.reps + 1, rule.max_reps, out.batch, std::numeric_limits<double>::infinity()});
      out.batch = team.batch_for(r.wall_s);
      ++resized;
      out.discarded += out.reps + 1;
      out.reps = 0;
      for (auto* v : {&walls, &windows}) v->clear();
      for (std::size_t i = 0; i < n; ++i) {
        times[i].clear();
        energies[i].clear();
        helds[i].clear();
        runs[i] = 0;
        exchange[i] = 0;
        cores_taken[i] = 0;
      }
      continue;
    }
    for (std::size_t i = 0; i < n; ++i) {
      runs[i] += r.runs[i];
      if (i < r.exchange_s.size()) exchange[i] += r.exchange_s[i];
      if (i < r.cores_taken.size()) cores_taken[i] += r.cores_taken[i];
    }
    ++out.reps;
    walls.push_back(r.wall_s);
    windows.push_back(r.window_s);
    for (std::size_t i = 0; i < n; ++i) {
      if (r.dynamic_j[i]) energies[i].push_back(*r.dynamic_j[i]);
      if (i < r.held_j.size() && r.held_j[i]) helds[i].push_back(*r.held_j[i]);
      if (!blocks[i].empty()) times[i].push_back(r.time_s[i]);
    }
    // The rule: every processor with work, its time and (where measured) its dynamic energy.
    double worst = 0;
    out.limiting.clear();
    for (std::size_t i = 0; i < n; ++i) {
      if (blocks[i].empty()) continue;
      const double rt = estimate(times[i]).relative_ci();
      if (rt > worst) {
        worst = rt;
        out.limiting = fmt::format("time of {}", team.info(i).name);
      }
      if (!energies[i].empty()) {
        const double re = estimate(energies[i]).relative_ci();
        if (re > worst) {
          worst = re;
          out.limiting = fmt::format("energy of {}", team.info(i).name);
        }
      }
    }
    int shown = out.batch;
    if (mode == RoundMode::fill)
      for (std::size_t i = 0; i < n; ++i) shown = std::max(shown, r.runs[i]);
    if (progress) progress({out.reps, rule.max_reps, shown, worst});
    out.converged = worst <= rule.precision;
    if (out.reps >= rule.min_reps) {
      if (out.converged || out.reps >= rule.max_reps) break;
      if (rule.max_seconds > 0 && team.any(elapsed() >= rule.max_seconds)) break;
    }
  }
  out.interrupted = stopped() && !(out.reps >= rule.min_reps && out.converged);
  for (std::size_t i = 0; i < n; ++i) {
    out.processors[i].time = estimate(times[i]);
    out.processors[i].runs_per_round = out.reps > 0 ? runs[i] / out.reps : 0.0;
    out.processors[i].exchange_s = out.reps > 0 ? exchange[i] / out.reps : 0.0;
    out.processors[i].cores_taken = out.reps > 0 ? cores_taken[i] / out.reps : 0.0;
    if (team.info(i).has_energy()) {
      // A processor without work still has its idle device measured over the window.
      out.processors[i].energy = estimate(energies[i]);
      if (!helds[i].empty()) out.processors[i].held = estimate(helds[i]);
    }
  }
  out.wall = estimate(walls);
  double w = 0;
  for (const double x : windows) w += x;
  out.window_s = windows.empty() ? 0.0 : w / static_cast<double>(windows.size());
  if (out.converged) out.limiting.clear();
  out.elapsed_s = elapsed();
  return out;
}

}  // namespace ctrl::loop
