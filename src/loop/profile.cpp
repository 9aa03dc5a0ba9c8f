#include <ctrl/loop/profile.hpp>

#include "calibration.hpp"

#include <ctrl/loop/workload.hpp>

#include <ctrl/sizes.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <cmath>
#include <optional>
#include <utility>

namespace ctrl::loop {

namespace {

std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : " ") + n;
  return s;
}

// What the root decides from the profile file, shared with every member of the platform.
struct ResumePlan {
  std::string error;  // the file does not fit the request
  index_t cols = 0;
  std::vector<std::pair<std::string, double>> base_power;  // processor -> W, from the file
  std::vector<std::pair<std::string, double>> held_power;  // processor -> W (mean of its rows), from the file
  // Once the sizes are known (plan_steps):
  std::vector<std::vector<index_t>> sizes;  // per processor
  std::vector<Step> todo;
  std::size_t resumed = 0, dropped_rows = 0;
};

// A processor whose energy the file has from another source than this command's (a rating given
// or not, another rating, a meter now unreadable): its sizes would mix two kinds of energy. "" when
// every processor's source is the file's.
std::string source_mismatch(const ProfileRequest& req, const ProfileFile& existing,
                            const std::vector<ProcessorInfo>& infos) {
  for (const auto& info : infos) {
    const auto row = std::find_if(existing.rows.begin(), existing.rows.end(),
                                  [&](const ProfileRow& r) { return r.processor == info.name; });
    if (row == existing.rows.end() || row->energy_source == info.energy_source) continue;
    return fmt::format(
        "--out {} has the energy of {} from '{}'; this command has it from '{}'{}: resume with the "
        "same energy source (the same --cpu-power, the same permissions), or choose another --out",
        req.out, info.name, row->energy_source, info.energy_source,
        info.has_energy() ? "" : " (" + info.energy_absent + ")");
  }
  return {};
}

// Whether the file can be resumed by this request (application, N, processors, energy sources),
// with what it holds of base and held powers.
ResumePlan plan_resume(const ProfileRequest& req, const ProfileFile& existing, const std::vector<ProcessorInfo>& infos,
                       const Workload& app) {
  std::vector<std::string> names;
  for (const auto& info : infos) names.push_back(info.name);
  ResumePlan plan;
  plan.cols = req.cols;
  const ProfileRow* first = existing.rows.empty() ? nullptr : &existing.rows.front();
  if (first != nullptr) {
    const bool same_app = std::all_of(existing.rows.begin(), existing.rows.end(),
                                      [&](const ProfileRow& r) { return r.app == app.identity(); });
    const bool same_cols = std::all_of(existing.rows.begin(), existing.rows.end(),
                                       [&](const ProfileRow& r) { return r.cols == first->cols; });
    if (!same_app || !same_cols || (req.cols != 0 && first->cols != req.cols) || existing.processors != names) {
      plan.error = fmt::format(
          "--out {} holds a profile of {} with N = {} on {}; this command asks for {} with N = {} on "
          "{}: repeat the same command to resume it, or choose another --out",
          req.out, first->app, first->cols, join_names(existing.processors), app.identity(),
          req.cols != 0 ? fmt::format("{}", req.cols) : std::string("default"), join_names(names));
      return plan;
    }
    plan.cols = first->cols;
    plan.error = source_mismatch(req, existing, infos);
    if (!plan.error.empty()) return plan;
  }
  if (plan.cols == 0) plan.cols = app.default_cols();
  for (const auto& r : existing.rows)
    if (r.base_power && std::none_of(plan.base_power.begin(), plan.base_power.end(),
                                     [&](const auto& b) { return b.first == r.processor; }))
      plan.base_power.emplace_back(r.processor, *r.base_power);
  const auto held = held_powers(existing);
  for (std::size_t i = 0; i < held.size(); ++i)
    if (held[i]) plan.held_power.emplace_back(existing.processors[i], *held[i]);
  return plan;
}

// Each processor's sizes as the request gives them: its own (sizes_of) or everyone's (sizes);
// empty when the request gives none (calibrated). AgreedUsageError naming the option for a
// processor named that is not profiled, a processor without sizes, lists of different lengths,
// and sizes off the workload's granularity or below its smallest block.
std::vector<std::vector<index_t>> requested_sizes(const ProfileRequest& req, const std::vector<std::string>& names,
                                                  const Workload& app) {
  if (req.sizes.empty() && req.sizes_of.empty()) return {};
  for (const auto& [name, sizes] : req.sizes_of)
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw AgreedUsageError(
          fmt::format("--sizes {}=...: {} is not one of the processors profiled ({})", name, name, join_names(names)));
  std::vector<std::vector<index_t>> out;
  for (const auto& name : names) {
    const auto own =
        std::find_if(req.sizes_of.begin(), req.sizes_of.end(), [&](const auto& s) { return s.first == name; });
    std::vector<index_t> sizes = own != req.sizes_of.end() ? own->second : req.sizes;
    if (sizes.empty())
      throw AgreedUsageError(
          fmt::format("--sizes: {} has no size (give --sizes FROM:TO:STEP for every processor, or "
                      "--sizes {}=FROM:TO:STEP)",
                      name, name));
    for (const index_t x : sizes)
      if (x % app.granularity() != 0 || x < app.min_rows())
        throw AgreedUsageError(
            fmt::format("--sizes: {} rows for {}: {}'s blocks are multiples of {} row{}, at least {}", x, name,
                        app.name(), app.granularity(), app.granularity() == 1 ? "" : "s", app.min_rows()));
    if (!out.empty() && sizes.size() != out.front().size())
      throw AgreedUsageError(
          fmt::format("--sizes: {} has {} sizes and {} has {}: every processor needs as many (a step "
                      "measures one size of every processor, all at once)",
                      names.front(), out.front().size(), name, sizes.size()));
    out.push_back(std::move(sizes));
  }
  return out;
}

// Calibrated sizes near a size the file has measured (within 15 %) take that size, so that a
// profile resumed with calibrated sizes finds the steps it already measured.
void snap_to_file(std::vector<std::vector<index_t>>& sizes, const ProfileFile& existing,
                  const std::vector<std::string>& names, index_t granularity) {
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    std::vector<index_t> have;
    for (const auto& r : existing.rows)
      if (r.processor == names[i] && r.size % granularity == 0) have.push_back(r.size);
    for (index_t& x : sizes[i]) {
      std::optional<index_t> best;
      for (const index_t h : have)
        if (std::abs(static_cast<double>(h - x)) <= 0.15 * static_cast<double>(x) &&
            (!best || std::abs(h - x) < std::abs(*best - x)))
          best = h;
      if (best) x = *best;
    }
    // Still distinct and rising: two sizes that snapped to one keep the next granule up.
    std::sort(sizes[i].begin(), sizes[i].end());
    for (std::size_t k = 1; k < sizes[i].size(); ++k)
      sizes[i][k] = std::max(sizes[i][k], sizes[i][k - 1] + granularity);
  }
}

// The steps to measure (those not complete in the file), after dropping the file's steps that hold
// a row one of them writes again (rows of another request's steps): whole steps, so the file keeps
// whole steps only, and again until no step to measure meets a row of the file (a step found done
// may have lost a row with a dropped one).
void plan_steps(ResumePlan& plan, ProfileWriter& writer, const std::vector<std::string>& names) {
  const std::size_t steps = plan.sizes.empty() ? 0 : plan.sizes.front().size();
  const auto has = [&](std::size_t i, index_t x) {
    const auto& rows = writer.existing().rows;
    return std::any_of(rows.begin(), rows.end(),
                       [&](const ProfileRow& r) { return r.processor == names[i] && r.size == x; });
  };
  std::size_t dropped = writer.existing().dropped_rows;
  for (;;) {
    plan.todo.clear();
    plan.resumed = 0;
    std::vector<std::pair<std::string, index_t>> again;
    for (std::size_t k = 0; k < steps; ++k) {
      Step step;
      for (std::size_t i = 0; i < names.size(); ++i) step.push_back(plan.sizes[i][k]);
      std::size_t present = 0;
      for (std::size_t i = 0; i < names.size(); ++i) present += has(i, step[i]) ? 1 : 0;
      if (present == names.size()) {
        ++plan.resumed;
        continue;
      }
      for (std::size_t i = 0; i < names.size(); ++i)
        if (has(i, step[i])) again.emplace_back(names[i], step[i]);
      plan.todo.push_back(std::move(step));
    }
    const std::size_t now = writer.drop(again);
    dropped += now;
    if (now == 0) break;
  }
  plan.dropped_rows = dropped;
}

// The plan as text for Platform::share, and back.
std::string to_text(const ResumePlan& p) {
  nlohmann::json j{{"error", p.error},
                   {"cols", p.cols},
                   {"todo", p.todo},
                   {"resumed", p.resumed},
                   {"dropped", p.dropped_rows},
                   {"base_power", p.base_power},
                   {"held_power", p.held_power},
                   {"sizes", p.sizes}};
  return j.dump();
}

ResumePlan from_text(const std::string& text) {
  const auto j = nlohmann::json::parse(text);
  ResumePlan p;
  p.error = j.at("error").get<std::string>();
  p.cols = j.at("cols").get<index_t>();
  p.todo = j.at("todo").get<std::vector<Step>>();
  p.resumed = j.at("resumed").get<std::size_t>();
  p.dropped_rows = j.at("dropped").get<std::size_t>();
  p.base_power = j.at("base_power").get<std::vector<std::pair<std::string, double>>>();
  p.held_power = j.at("held_power").get<std::vector<std::pair<std::string, double>>>();
  p.sizes = j.at("sizes").get<std::vector<std::vector<index_t>>>();
  return p;
}

// Each processor's largest size (its block's extent in the profile's problem).
std::vector<index_t> largest_sizes(const std::vector<std::vector<index_t>>& sizes) {
  std::vector<index_t> out;
  for (const auto& s : sizes) out.push_back(s.empty() ? 0 : *std::max_element(s.begin(), s.end()));
  return out;
}

// The problem at every processor's largest size at once, checked before it is allocated. Every
// rank finds the same (the plan is shared), so the error is agreed.
void check_profile_size(const Workload& app, const std::vector<index_t>& largest, index_t cols) {
  try {
    app.check_size(checked_sum(largest), cols, largest.size());
  } catch (const UsageError& e) {
    throw AgreedUsageError(fmt::format("--sizes up to {} rows on {} processor{} with N = {}: {}", checked_sum(largest),
                                       largest.size(), largest.size() == 1 ? "" : "s", cols, e.what()));
  }
}

// The request's own errors (application, rule, sizes, file), before any device is touched.
void check_request(const ProfileRequest& req) {
  req.rule.validate();
  if (req.sizes.empty() && req.sizes_of.empty()) req.calibration.validate();
  if (req.out.empty()) throw UsageError("no profile file: give --out FILE.csv");
}

// A step's blocks in the profile's problem: side by side for a workload with halos (each block's
// neighbours are the processors beside it in the profile's order, as in a run), else each at its
// own place (processor i from the sum of the others' largest sizes before it), so that the
// blocks of every step fit the one problem.
std::vector<Block> blocks_of(const Workload& app, const Step& step, const std::vector<index_t>& largest) {
  if (app.exchanges_halos()) return consecutive_blocks(step);
  std::vector<Block> blocks;
  index_t at = 0;
  for (std::size_t i = 0; i < step.size(); ++i) {
    blocks.push_back({at, at + step[i]});
    at += largest[i];
  }
  return blocks;
}

}  // namespace

ProfileOutcome run_profile(const Workload& app, const ProfileRequest& req, ProfileObserver& obs, const StopFlag* stop) {
  check_request(req);
  Team team(req.devices, req.team);
  return run_profile(app, req, team, obs, stop);
}

namespace {

// What the root decides and every member follows: whether the file can be resumed, each processor's
// sizes (given, or calibrated now by every member together), and the steps left to measure. The
// root opens and locks the file first: a file that cannot be the profile (another writer holds it,
// it is no profile, it is a FIFO) is an error every member agrees on.
ResumePlan decide(const Workload& app, const ProfileRequest& req, Platform& team, std::optional<ProfileWriter>& writer,
                  const StopFlag* stop) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < team.size(); ++i) names.push_back(team.info(i).name);
  std::string text;
  if (team.is_root()) {
    ResumePlan root_plan;
    try {
      writer.emplace(req.out, "--out", req.unlocked_ok);
      root_plan = plan_resume(req, writer->existing(), team.processors(), app);
    } catch (const UsageError& e) {
      root_plan.error = e.what();
    }
    text = to_text(root_plan);
  }
  team.share(text);
  ResumePlan plan = from_text(text);
  if (!plan.error.empty()) throw AgreedUsageError(plan.error);
  plan.sizes = requested_sizes(req, names, app);
  const bool calibrated = plan.sizes.empty();
  if (calibrated) {
    plan.sizes = detail::calibrate_sizes(app, team, plan.cols, req.seed, req.calibration, stop);
    if (plan.sizes.empty()) return plan;  // stopped: nothing to measure
  }
  if (team.is_root()) {
    if (calibrated) snap_to_file(plan.sizes, writer->existing(), names, app.granularity());
    plan_steps(plan, *writer, names);
    text = to_text(plan);
  }
  team.share(text);
  return from_text(text);
}

// Base powers: given, else the ones the file was measured with, else measured now; held powers of
// the file's sizes (what a round's counter-alignment margins are taken at until this command
// measures its own, Team::round), then measured before the first step. A line per fact, for the user.
void settle_powers(const ProfileRequest& req, const ResumePlan& plan, Platform& team, Problem& problem,
                   const std::vector<Block>& first, ProfileObserver& obs) {
  for (std::size_t i = 0; i < team.size(); ++i) {
    if (!team.info(i).has_energy()) continue;
    for (const auto& [name, w] : req.base_power)
      if (name == team.info(i).name) team.set_base_power(i, w, "given");
    if (team.info(i).base_power_w) continue;
    for (const auto& [name, w] : plan.base_power)
      if (name == team.info(i).name) {
        team.set_base_power(i, w, "from " + req.out);
        break;
      }
  }
  for (std::size_t i = 0; i < team.size(); ++i)
    for (const auto& [name, w] : plan.held_power)
      if (name == team.info(i).name && team.info(i).has_energy()) team.set_held_power(i, w, "from " + req.out);
  bool need_base = false;
  for (std::size_t i = 0; i < team.size(); ++i) need_base |= team.info(i).has_energy() && !team.info(i).base_power_w;
  if (need_base && req.idle_seconds > 0) {
    // Base power "awake": right after a run, as devices are between the runs of a profile (a GPU
    // left alone longer drops to a deeper idle state that the profile's runs never see).
    team.run(problem, first, 1);
    for (const auto& line : team.measure_base_power(req.idle_seconds)) obs.note(line);
  }
  // Held power before the first step (what its rounds' alignment margins are taken at); each step
  // measures it again after its rounds.
  if (req.idle_seconds > 0) (void)settle_held_power(team, problem, first);
}

// Says once what each processor's energy is (or why it has none); the platform's base power.
void describe_energies(Platform& team, ProfileOutcome& outcome, ProfileObserver& obs) {
  for (std::size_t i = 0; i < team.size(); ++i) {
    const auto& info = team.info(i);
    if (info.has_energy() && !info.base_power_w) {
      team.set_base_power(i, 0.0, "none: energies are total, not dynamic");
      obs.note(
          fmt::format("{}: no base power (--idle-seconds 0 and no --base-power): its energy column is total "
                      "energy",
                      info.name));
    }
    if (!info.has_energy())
      obs.note(
          fmt::format("{}: energy absent ({}); its energy column is 0 with energy_source=none, and `ctrl pareto` "
                      "will compare time only",
                      info.name, info.energy_absent));
    else if (info.energy_provenance == energy::Provenance::estimated)
      obs.note(fmt::format("{}: energy estimated, not measured: {}", info.name, info.energy_measures));
  }
  outcome.processors = team.processors();
  double base_sum = 0;
  bool any = false;
  for (const auto& proc : outcome.processors)
    if (proc.has_energy()) {
      base_sum += proc.base_power_w.value_or(0.0);
      any = true;
    }
  if (any) outcome.platform_base_power = base_sum;
}

// The rows of one measured step, a row per processor.
std::vector<ProfileRow> rows_of(const Workload& app, Platform& team, const Step& step, const MeasureResult& m,
                                index_t cols, bool held_measured) {
  std::vector<ProfileRow> rows;
  for (std::size_t i = 0; i < team.size(); ++i) {
    const auto& info = team.info(i);
    const auto& pr = m.processors[i];
    ProfileRow r;
    r.processor = info.name;
    r.size = step[i];
    r.time = pr.time.mean;
    r.time_ci = pr.time.ci;
    r.reps = m.reps;
    r.batch = static_cast<int>(std::lround(pr.runs_per_round));
    if (pr.energy) {
      r.energy_measured = pr.energy->mean;
      r.energy = std::max(0.0, pr.energy->mean);
      r.energy_ci = pr.energy->ci;
      r.base_power = info.base_power_w.value_or(0.0);
      r.energy_source = info.energy_source;
      r.energy_provenance = info.energy_provenance;
      if (held_measured) r.held_power = info.held_power_w;
    }
    r.converged = m.converged;
    r.gflops = pr.time.mean > 0 ? app.flops(step[i], cols) / pr.time.mean / 1e9 : 0.0;
    r.app = app.identity();
    r.cols = cols;
    r.granularity = app.granularity();
    if (app.exchanges_halos()) r.exchange_time = std::clamp(pr.exchange_s, 0.0, r.time);
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace

ProfileOutcome run_profile(const Workload& app, const ProfileRequest& req, Platform& team, ProfileObserver& obs,
                           const StopFlag* stop) {
  check_request(req);
  std::optional<ProfileWriter> writer;
  const ResumePlan plan = decide(app, req, team, writer, stop);
  ProfileOutcome outcome;
  outcome.cols = plan.cols;
  outcome.sizes = plan.sizes;
  if (plan.sizes.empty()) {  // stopped while calibrating
    outcome.interrupted = true;
    return outcome;
  }
  const std::vector<index_t> largest = largest_sizes(plan.sizes);
  for (const index_t x : largest) outcome.capacity += x / app.granularity() * app.granularity();
  const std::vector<Step>& todo = plan.todo;
  if (!todo.empty()) check_profile_size(app, largest, plan.cols);
  outcome.resumed = plan.resumed;
  if (plan.resumed > 0 || plan.dropped_rows > 0)
    obs.note(fmt::format(
        "resuming {}: {} step{} already measured{}", req.out, outcome.resumed, outcome.resumed == 1 ? "" : "s",
        plan.dropped_rows > 0
            ? fmt::format(", {} row{} of steps cut short dropped", plan.dropped_rows, plan.dropped_rows == 1 ? "" : "s")
            : std::string()));
  // One problem for the whole profile, every processor's largest block at once.
  std::unique_ptr<Problem> problem;
  if (!todo.empty()) {
    problem = team.make_problem(app, blocks_of(app, largest, largest), outcome.cols, req.seed);
    settle_powers(req, plan, team, *problem, blocks_of(app, todo.front(), largest), obs);
  }
  describe_energies(team, outcome, obs);
  obs.plan(todo, outcome.resumed);
  // A workload with halos runs its blocks as one execution, side by side; the others, each alone.
  const RoundMode mode = app.exchanges_halos() ? RoundMode::executions : RoundMode::fill;
  for (std::size_t k = 0; k < todo.size(); ++k) {
    if (stop != nullptr && stop->load()) {
      outcome.interrupted = true;
      break;
    }
    const Step& step = todo[k];
    obs.size_begin(step, k);
    const std::vector<Block> blocks = blocks_of(app, step, largest);
    const MeasureResult m = measure(
        team, *problem, blocks, req.rule, mode, [&](const RoundProgress& rp) { obs.round(step, rp); }, stop);
    if (m.interrupted) {
      outcome.interrupted = true;
      break;
    }
    // Held power: every device idle right after this step's rounds, for as long as a round (what a
    // device's tail after its block lasts in a run, at most about a round).
    if (req.idle_seconds > 0 && team.any_energy()) {
      const auto lines = team.measure_held_power(team.round_seconds());
      if (k == 0)
        for (const auto& line : lines) obs.note(line);
    }
    if (k == 0 || k + 1 == todo.size()) {  // the first and last steps are checked against a reference
      const Check c = team.verify(*problem, blocks);
      if (!c.ok)
        throw DeviceError(fmt::format("{} at sizes {}: wrong results ({}); nothing was written for this step",
                                      app.name(), fmt::join(step, "/"), c.detail));
    }
    for (const auto& line : contention_notes(team, m, fmt::format("at sizes {}", fmt::join(step, "/")))) obs.note(line);
    const std::vector<ProfileRow> rows = rows_of(app, team, step, m, outcome.cols, req.idle_seconds > 0);
    if (writer) writer->write(rows);
    ++outcome.measured;
    if (!m.converged) ++outcome.unconverged;
    obs.size_end(step, m, rows);
  }
  return outcome;
}

std::vector<std::pair<std::string, std::vector<index_t>>> refine_sizes(const partition::Front& front,
                                                                       const std::vector<std::string>& processors,
                                                                       const ProfileFile& existing, index_t granularity,
                                                                       index_t min_rows) {
  const index_t g = std::max<index_t>(granularity, 1);
  const auto step_of = [&](index_t x) { return std::max<index_t>(g, (x / 50 + g - 1) / g * g); };  // 2 %, in granules
  // Per processor: the sizes the profile measured, and those to measure.
  std::vector<std::set<index_t>> have(processors.size()), want(processors.size());
  for (std::size_t i = 0; i < processors.size(); ++i) {
    for (const ProfileRow& r : existing.rows)
      if (r.processor == processors[i]) have[i].insert(r.size);
    const auto add = [&](index_t x) {
      if (x >= std::max(min_rows, g) && x % g == 0 && !have[i].count(x)) want[i].insert(x);
    };
    for (const partition::Solution& s : front) {
      if (i >= s.distribution.size() || s.distribution[i] <= 0) continue;
      const auto x = static_cast<index_t>(s.distribution[i]);
      for (const index_t y : {x - step_of(x), x, x + step_of(x)}) add(y);
    }
  }
  std::size_t most = 0;
  for (const auto& w : want) most = std::max(most, w.size());
  std::vector<std::pair<std::string, std::vector<index_t>>> out;
  if (most == 0) return out;
  for (std::size_t i = 0; i < processors.size(); ++i) {
    std::set<index_t>& w = want[i];
    // A shorter list continues above its largest wanted size, else above the largest measured.
    index_t top = std::max(min_rows, g);
    if (!w.empty())
      top = *w.rbegin();
    else if (!have[i].empty())
      top = std::max(top, *have[i].rbegin());
    while (w.size() < most) {
      top += step_of(top);
      if (!have[i].count(top)) w.insert(top);
    }
    out.emplace_back(processors[i], std::vector<index_t>(w.begin(), w.end()));
  }
  return out;
}

}  // namespace ctrl::loop
