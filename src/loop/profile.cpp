#include <ctrl/loop/profile.hpp>

#include <ctrl/loop/workload.hpp>

#include <ctrl/sizes.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
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
  std::string error;                           // the file does not fit the request
  index_t cols = 0;
  std::vector<index_t> todo;
  std::size_t resumed = 0, dropped_rows = 0;
  std::vector<std::pair<std::string, double>> base_power;  // processor -> W, from the file
  std::vector<std::pair<std::string, double>> held_power;  // processor -> W (mean of its rows), from the file
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
      plan.error = fmt::format("--out {} holds a profile of {} with N = {} on {}; this command asks for {} with N = {} on "
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
  for (const index_t s : req.sizes)
    if (!std::binary_search(existing.complete_sizes.begin(), existing.complete_sizes.end(), s)) plan.todo.push_back(s);
  plan.resumed = req.sizes.size() - plan.todo.size();
  plan.dropped_rows = existing.dropped_rows;
  for (const auto& r : existing.rows)
    if (r.base_power && std::none_of(plan.base_power.begin(), plan.base_power.end(),
                                     [&](const auto& b) { return b.first == r.processor; }))
      plan.base_power.emplace_back(r.processor, *r.base_power);
  const auto held = held_powers(existing);
  for (std::size_t i = 0; i < held.size(); ++i)
    if (held[i]) plan.held_power.emplace_back(existing.processors[i], *held[i]);
  return plan;
}

// The plan as text for Platform::share, and back.
std::string to_text(const ResumePlan& p) {
  nlohmann::json j{{"error", p.error}, {"cols", p.cols}, {"todo", p.todo}, {"resumed", p.resumed},
                   {"dropped", p.dropped_rows}, {"base_power", p.base_power}, {"held_power", p.held_power}};
  return j.dump();
}

ResumePlan from_text(const std::string& text) {
  const auto j = nlohmann::json::parse(text);
  ResumePlan p;
  p.error = j.at("error").get<std::string>();
  p.cols = j.at("cols").get<index_t>();
  p.todo = j.at("todo").get<std::vector<index_t>>();
  p.resumed = j.at("resumed").get<std::size_t>();
  p.dropped_rows = j.at("dropped").get<std::size_t>();
  p.base_power = j.at("base_power").get<std::vector<std::pair<std::string, double>>>();
  p.held_power = j.at("held_power").get<std::vector<std::pair<std::string, double>>>();
  return p;
}

// The largest size on every processor at once (one problem of p x max_size rows), checked before
// it is allocated. Every rank finds the same (the plan is shared), so the error is agreed.
void check_profile_size(const Workload& app, std::size_t p, index_t max_size, index_t cols) {
  try {
    app.check_size(checked_sum(std::vector<index_t>(p, max_size)), cols, p);
  } catch (const UsageError& e) {
    throw AgreedUsageError(fmt::format("--sizes up to {} on {} processor{} with N = {}: {}", max_size, p,
                                       p == 1 ? "" : "s", cols, e.what()));
  }
}

// The request's own errors (application, rule, sizes, file), before any device is touched.
void check_request(const ProfileRequest& req) {
  req.rule.validate();
  if (req.sizes.empty()) throw UsageError("no sizes to profile: give --sizes FROM:TO:STEP");
  if (req.out.empty()) throw UsageError("no profile file: give --out FILE.csv");
}

}  // namespace

ProfileOutcome run_profile(const Workload& app, const ProfileRequest& req, ProfileObserver& obs,
                           const StopFlag* stop) {
  check_request(req);
  Team team(req.devices, req.team);
  return run_profile(app, req, team, obs, stop);
}

ProfileOutcome run_profile(const Workload& app, const ProfileRequest& req, Platform& team, ProfileObserver& obs,
                           const StopFlag* stop) {
  check_request(req);

  // Resume: the file must be a profile of the same application, N, processors and energy sources. The root reads
  // it and decides; every member follows.
  // The root opens and locks the file first: a file that cannot be the profile (another writer
  // holds it, it is no profile, it is a FIFO) is an error every member agrees on.
  std::optional<ProfileWriter> writer;
  std::string text;
  if (team.is_root()) {
    ResumePlan root_plan;
    try {
      writer.emplace(req.out);
      root_plan = plan_resume(req, writer->existing(), team.processors(), app);
    } catch (const UsageError& e) {
      root_plan.error = e.what();
    }
    text = to_text(root_plan);
  }
  team.share(text);
  const ResumePlan plan = from_text(text);
  if (!plan.error.empty()) throw AgreedUsageError(plan.error);
  ProfileOutcome outcome;
  outcome.cols = plan.cols;
  const std::vector<index_t>& todo = plan.todo;
  if (!todo.empty()) check_profile_size(app, team.size(), *std::max_element(todo.begin(), todo.end()), plan.cols);
  outcome.resumed = plan.resumed;
  if (plan.resumed > 0 || plan.dropped_rows > 0)
    obs.note(fmt::format("resuming {}: {} size{} already measured{}", req.out, outcome.resumed,
                         outcome.resumed == 1 ? "" : "s",
                         plan.dropped_rows > 0
                             ? fmt::format(", {} row{} of an interrupted size dropped", plan.dropped_rows,
                                           plan.dropped_rows == 1 ? "" : "s")
                             : std::string()));

  // Base powers: given, else the ones this file was measured with, else measured now.
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
  // Held powers of the file's sizes: what a round's counter-alignment margins are taken at until
  // this command measures its own (Team::round).
  for (std::size_t i = 0; i < team.size(); ++i)
    for (const auto& [name, w] : plan.held_power)
      if (name == team.info(i).name && team.info(i).has_energy()) team.set_held_power(i, w, "from " + req.out);
  // One problem for the whole profile: processor i uses rows [i * max, i * max + size).
  std::unique_ptr<Problem> problem;
  const std::size_t p = team.size();
  const index_t max_size = todo.empty() ? 0 : *std::max_element(todo.begin(), todo.end());
  auto blocks_of = [&](index_t size) {
    std::vector<Block> blocks;
    for (std::size_t i = 0; i < p; ++i)
      blocks.push_back({static_cast<index_t>(i) * max_size, static_cast<index_t>(i) * max_size + size});
    return blocks;
  };
  if (!todo.empty()) problem = team.make_problem(app, blocks_of(max_size), outcome.cols, req.seed);
  bool need_base = false;
  for (std::size_t i = 0; i < team.size(); ++i) need_base |= team.info(i).has_energy() && !team.info(i).base_power_w;
  if (!todo.empty() && need_base && req.idle_seconds > 0) {
    // Base power "awake": right after a run, as devices are between the runs of a profile (a GPU
    // left alone longer drops to a deeper idle state that the profile's runs never see).
    team.run(*problem, blocks_of(todo.front()), 1);
    for (const auto& line : team.measure_base_power(req.idle_seconds)) obs.note(line);
  }
  // Held power before the first size (what its rounds' alignment margins are taken at); each size
  // measures it again after its rounds.
  if (!todo.empty() && req.idle_seconds > 0) (void)settle_held_power(team, *problem, blocks_of(todo.front()));
  for (std::size_t i = 0; i < team.size(); ++i) {
    const auto& info = team.info(i);
    if (info.has_energy() && !info.base_power_w) {
      team.set_base_power(i, 0.0, "none: energies are total, not dynamic");
      obs.note(fmt::format("{}: no base power (--idle-seconds 0 and no --base-power): its energy column is total "
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

  obs.plan(todo, outcome.resumed);
  if (todo.empty()) return outcome;

  for (std::size_t k = 0; k < todo.size(); ++k) {
    if (stop != nullptr && stop->load()) {
      outcome.interrupted = true;
      break;
    }
    const index_t size = todo[k];
    obs.size_begin(size, k);
    const std::vector<Block> blocks = blocks_of(size);
    const MeasureResult m =
        measure(team, *problem, blocks, req.rule, RoundMode::fill,
                [&](const RoundProgress& rp) { obs.round(size, rp); }, stop);
    if (m.interrupted) {
      outcome.interrupted = true;
      break;
    }
    // Held power: every device idle right after this size's rounds, for as long as a round (what a
    // device's tail after its block lasts in a run, at most about a round).
    if (req.idle_seconds > 0 && team.any_energy()) {
      const auto lines = team.measure_held_power(team.round_seconds());
      if (k == 0)
        for (const auto& line : lines) obs.note(line);
    }
    if (k == 0 || k + 1 == todo.size()) {  // the first and last sizes are checked against a reference
      const Check c = team.verify(*problem, blocks);
      if (!c.ok)
        throw DeviceError(fmt::format("{} at size {}: wrong results ({}); nothing was written for this size",
                                      app.name(), size, c.detail));
    }
    std::vector<ProfileRow> rows;
    for (std::size_t i = 0; i < p; ++i) {
      const auto& info = team.info(i);
      const auto& pr = m.processors[i];
      ProfileRow r;
      r.processor = info.name;
      r.size = size;
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
        if (req.idle_seconds > 0) r.held_power = info.held_power_w;
      }
      r.converged = m.converged;
      r.gflops = pr.time.mean > 0 ? app.flops(size, outcome.cols) / pr.time.mean / 1e9 : 0.0;
      r.app = app.identity();
      r.cols = outcome.cols;
      rows.push_back(std::move(r));
    }
    if (writer) writer->write(rows);
    ++outcome.measured;
    if (!m.converged) ++outcome.unconverged;
    obs.size_end(size, m, rows);
  }
  return outcome;
}

}  // namespace ctrl::loop
