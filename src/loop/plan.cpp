#include <ctrl/loop/plan.hpp>

#include <ctrl/loop/front_file.hpp>
#include <ctrl/loop/held.hpp>
#include <ctrl/loop/model.hpp>
#include <ctrl/loop/profile_file.hpp>
#include <ctrl/partition/load_balanced.hpp>
#include <ctrl/partition/pareto.hpp>
#include <ctrl/sizes.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace ctrl::loop {

namespace {

// The profile, read once, with its provenance when `ctrl profile` wrote it.
struct Source {
  std::optional<LoadedProfile> loaded;
  std::optional<partition::ProfileModel> model;  // between its measured sizes (model.hpp)
  HeldPower held;                                // the profile's held powers (none for a plain CSV)
  std::optional<partition::Front> front;         // the profile's front, once computed (plan_front's points share it)

  const ProfileFile& meta() const {
    static const ProfileFile none;
    return loaded && loaded->file ? *loaded->file : none;
  }
  const partition::Profile* profile() const { return loaded ? &loaded->profile : nullptr; }
};

Source read_source(const Workload& app, const PlanRequest& r) {
  Source s;
  if (r.profile.empty()) return s;
  s.loaded = read_profile(r.profile);
  s.model = profile_model(*s.loaded);
  s.held = held_model(s.meta());
  if (!s.meta().rows.empty() && s.meta().rows.front().app != app.identity())
    throw UsageError(
        fmt::format("{} is a profile of {}, not of {}", r.profile, s.meta().rows.front().app, app.identity()));
  return s;
}

void take_point(Plan& plan, const partition::Solution& s, std::size_t front_points = 0, std::size_t k = 0,
                std::string reason = {}) {
  plan.reason = std::move(reason);
  plan.front_points = front_points;
  plan.front_point = front_points > 0 ? k + 1 : 0;
  plan.rows.assign(s.distribution.begin(), s.distribution.end());
  plan.time = s.time;
  plan.energy = s.energy;
}

// The parts whose prediction rests on a size the profile did not converge at: the measured sizes
// next to the part's rows, below and above (the last run's where a run learned them).
std::string unconverged_note(const ProfileFile& file, const Plan& plan) {
  std::string out;
  for (std::size_t i = 0; i < plan.processors.size() && i < plan.rows.size(); ++i) {
    const index_t x = plan.rows[i];
    if (x <= 0) continue;
    const ProfileRow *below = nullptr, *above = nullptr;
    for (const auto* rows : {&file.rows, &file.learned})
      for (const ProfileRow& r : *rows) {
        if (r.processor != plan.processors[i]) continue;
        if (r.size <= x && (!below || r.size >= below->size)) below = &r;
        if (r.size >= x && (!above || r.size <= above->size)) above = &r;
      }
    std::vector<index_t> loose;
    for (const ProfileRow* r : {below, above})
      if (r && !r->converged && std::find(loose.begin(), loose.end(), r->size) == loose.end()) loose.push_back(r->size);
    if (!loose.empty())
      out += fmt::format("{}{} at {} (size{} {})", out.empty() ? "" : ", ", plan.processors[i], x,
                         loose.size() == 1 ? "" : "s", fmt::join(loose, " and "));
  }
  return out;
}

// A balanced distribution of `workload` (the partition library's definitions): the paper's
// load-balanced solution (equal times) or the even split (equal rows). Not points of a front.
bool is_balanced(const Pick& pick) { return pick.kind == Pick::load_balanced || pick.kind == Pick::even; }

void take_balanced(Plan& plan, const Pick& pick, const Source& src, index_t workload, const std::string& path) {
  const auto s = model_balanced(*src.model, src.held, workload,
                                pick.kind == Pick::even ? Balance::even : Balance::load_balanced, plan.model);
  if (!s)
    throw InfeasibleError(fmt::format("no {} distribution of {} with the sizes of {} (none gives every processor work)",
                                      pick.name(), workload, path));
  take_point(plan, *s);
}

void plan_from_front(Plan& plan, const PlanRequest& r, const Source& src) {
  const FrontFile f = read_front_file(r.front);
  plan.processors = f.processors;
  plan.model = f.model;
  if (f.time_only && (r.pick->kind == Pick::least_energy || r.pick->kind == Pick::budget))
    throw UsageError(
        fmt::format("{} is a front of time only (`ctrl pareto --time-only`): it has no energies for "
                    "the pick {}; pick fastest",
                    r.front, r.pick->name()));
  if (src.profile() && src.profile()->names() != f.processors)
    throw UsageError(fmt::format("the processors of {} differ from those of {}", r.front, r.profile));
  if (is_balanced(*r.pick)) {
    if (!src.profile())
      throw UsageError(fmt::format("the {} pick needs the profile {} came from", r.pick->name(), r.front));
    take_balanced(plan, *r.pick, src, f.workload, r.profile);
    plan.source =
        fmt::format("{}: the {} distribution of {} (from {})", r.front, r.pick->name(), f.workload, r.profile);
    return;
  }
  auto [k, reason] = choose_point(*r.pick, f.front, "the front " + r.front);
  take_point(plan, f.front[k], f.front.size(), k, std::move(reason));
  if (f.time_only) plan.energy.reset();
  plan.source = fmt::format("{} point {} of {} ({})", r.front, k + 1, f.front.size(), r.pick->name());
}

void plan_from_profile(Plan& plan, const PlanRequest& r, Source& src) {
  plan.processors = src.profile()->names();
  const index_t workload = *r.workload;
  if (is_balanced(*r.pick)) {
    take_balanced(plan, *r.pick, src, workload, r.profile);
    plan.source = fmt::format("the {} distribution of {} from {}", r.pick->name(), workload, r.profile);
    return;
  }
  // The front `ctrl pareto` computes (compute_front). A front whose points are ordered by the
  // energy of processors that have none would be wrong: a pick by time takes the time-optimal
  // distribution alone there.
  if (!src.front) {
    FrontRequest fr;
    fr.profile = r.profile;
    fr.workload = workload;
    fr.analysis = false;
    fr.time_only = !r.pick->by_energy() && !processors_without_energy(src.meta()).empty();
    fr.names.time_only = "a pick by time (fastest, load-balanced)";
    src.front = compute_front(*src.loaded, fr).front;
  }
  const partition::Front& front = *src.front;
  auto [k, reason] = choose_point(*r.pick, front, "the front of " + r.profile);
  take_point(plan, front[k], front.size(), k, std::move(reason));
  plan.source = fmt::format("point {} of {} of the front of {} from {}", k + 1, front.size(), workload, r.profile);
}

void plan_from_split(Plan& plan, const PlanRequest& r) {
  for (const auto& [name, rows] : r.split) {
    if (std::find(plan.processors.begin(), plan.processors.end(), name) != plan.processors.end())
      throw UsageError(fmt::format("{}: {} is given twice", r.split_name, name));
    if (rows < 0) throw UsageError(fmt::format("{}: {} has a negative number of rows ({})", r.split_name, name, rows));
    plan.processors.push_back(name);
    plan.rows.push_back(rows);
  }
  plan.source = r.split_name;
}

void check_request(const PlanRequest& r) {
  const bool by_split = !r.split.empty();
  if (by_split == (!r.front.empty() || r.pick.has_value()))
    throw UsageError("a plan needs either a split, or a pick of a front (a front file, or a profile and a workload)");
  if (!r.front.empty() && !r.pick) throw UsageError(fmt::format("a front ({}) needs a pick", r.front));
  if (r.front.empty() && r.pick && (r.profile.empty() || !r.workload))
    throw UsageError("a pick without a front file needs a profile and a workload");
  if (r.workload && *r.workload <= 0) throw UsageError(fmt::format("the workload {} is not positive", *r.workload));
  if (r.cols && *r.cols <= 0) throw UsageError(fmt::format("{} {}: N must be positive", r.cols_name, *r.cols));
}

// N: asked for (and then the profile's, if any, must agree), else the profile's, else the default.
void choose_cols(Plan& plan, const Workload& app, const PlanRequest& r, const ProfileFile& meta) {
  plan.cols = app.default_cols();
  plan.cols_from = "the default of " + app.name();
  if (r.cols) {
    plan.cols = *r.cols;
    plan.cols_from = r.cols_name;
    if (!meta.rows.empty() && meta.rows.front().cols != plan.cols)
      throw UsageError(fmt::format("{} {}, but {} was measured with N = {}", r.cols_name, plan.cols, r.profile,
                                   meta.rows.front().cols));
  } else if (!meta.rows.empty()) {
    plan.cols = meta.rows.front().cols;
    plan.cols_from = r.profile;
  }
}

}  // namespace

index_t Plan::total_rows() const { return checked_sum(rows); }

namespace {

// plan_run, from the request's files read once into `src`.
Plan plan_with(const Workload& app, const PlanRequest& r, Source& src) {
  Plan plan;
  plan.profile = r.profile;
  if (!r.split.empty())
    plan_from_split(plan, r);
  else if (!r.front.empty())
    plan_from_front(plan, r, src);
  else
    plan_from_profile(plan, r, src);
  index_t m = 0;
  try {
    m = plan.total_rows();
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: {}", plan.source, e.what()));
  }
  if (m <= 0) throw UsageError(fmt::format("{}: the distribution gives no rows to any processor", plan.source));
  for (std::size_t i = 0; i < plan.rows.size(); ++i)
    if (plan.rows[i] % app.granularity() != 0)
      throw UsageError(fmt::format("{}: {} rows for {} are not a multiple of {}'s granularity, {} rows", plan.source,
                                   plan.rows[i], plan.processors[i], app.name(), app.granularity()));
  choose_cols(plan, app, r, src.meta());
  // Before any process allocates: the whole problem must be one that can be indexed and allocated.
  try {
    app.check_size(m, plan.cols, plan.processors.size());
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{} ({} row{}) with N = {} (from {}): {}", plan.source, m, m == 1 ? "" : "s",
                                 plan.cols, plan.cols_from, e.what()));
  }
  if (src.model) {
    plan.predicted = predict(*src.model, plan.processors, plan.rows, src.held, processors_without_energy(src.meta()));
    if (src.profile()->names() == plan.processors) plan.interpolated = interpolation_note(*src.model, plan.rows);
    plan.unconverged = unconverged_note(src.meta(), plan);
  }
  plan.base_power = base_powers(src.meta());
  const auto held = held_powers(src.meta());
  for (std::size_t i = 0; i < held.size(); ++i)
    if (held[i]) plan.held_power.emplace_back(src.meta().processors[i], *held[i]);
  return plan;
}

}  // namespace

Plan plan_run(const Workload& app, const PlanRequest& r) {
  check_request(r);
  if (r.pick && r.pick->kind == Pick::all)
    throw UsageError("the pick 'all' is every point of a front: plan_front plans them (one run each)");
  Source src = read_source(app, r);
  return plan_with(app, r, src);
}

std::vector<Plan> plan_front(const Workload& app, const PlanRequest& r) {
  if (!r.pick || r.pick->kind != Pick::all) throw UsageError("plan_front: the pick must be 'all'");
  PlanRequest one = r;
  one.pick = Pick{Pick::point, 1};
  check_request(one);
  Source src = read_source(app, one);  // read once: every point is of one front
  std::vector<Plan> plans{plan_with(app, one, src)};
  // The fastest point is the first of a front of time and energy, and a front of time only has no
  // other; a pick by energy is refused where some processor has no energy (plan_run's rule).
  const std::size_t n = plans.front().front_points, want = r.points == 0 ? n : std::min(r.points, n);
  std::size_t last = 1;
  for (std::size_t j = 1; j < want; ++j) {
    const std::size_t k = 1 + (j * (n - 1) + (want - 1) / 2) / (want - 1);  // evenly spaced, rounded
    if (k == last) continue;
    one.pick = Pick{Pick::point, k};
    plans.push_back(plan_with(app, one, src));
    last = k;
  }
  return plans;
}

std::string deciding_processor(const Plan& plan) {
  std::string who;
  double t = -1;
  for (std::size_t i = 0; i < plan.processors.size() && i < plan.predicted.size(); ++i) {
    if (plan.rows[i] == 0) continue;
    if (!plan.predicted[i].time) return {};
    if (*plan.predicted[i].time > t) {
      t = *plan.predicted[i].time;
      who = plan.processors[i];
    }
  }
  return who;
}

RunRequest run_request(const Plan& plan) {
  RunRequest r;
  r.rows = plan.rows;
  r.cols = plan.cols;
  r.predicted = plan.predicted;
  r.profile_base_power = plan.base_power;
  r.profile_held_power = plan.held_power;
  r.profile_path = plan.profile;
  return r;
}

RunTotals totals(const Plan& plan, const RunOutcome& outcome) {
  RunTotals t;
  t.total_energy = plan.model.kind == partition::EnergyKind::total;
  t.time_predicted = plan.time ? plan.time : outcome.time_predicted();
  t.energy_measured = outcome.energy_measured();
  if (!t.energy_measured) return t;
  t.energy_predicted = plan.energy ? plan.energy : outcome.energy_predicted();
  if (t.total_energy) *t.energy_measured += plan.model.base_power * outcome.measured.wall.mean;
  return t;
}

namespace {

nlohmann::json optional_json(std::optional<double> v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

std::optional<double> optional_from(const nlohmann::json& v) {
  return v.is_null() ? std::nullopt : std::optional<double>(v.get<double>());
}

}  // namespace

std::string to_text(const Plan& p) {
  nlohmann::json predicted = nlohmann::json::array();
  for (const auto& x : p.predicted)
    predicted.push_back({optional_json(x.time), optional_json(x.energy), optional_json(x.held)});
  const nlohmann::json j{{"processors", p.processors},
                         {"rows", p.rows},
                         {"source", p.source},
                         {"reason", p.reason},
                         {"time", optional_json(p.time)},
                         {"energy", optional_json(p.energy)},
                         {"total", p.model.kind == partition::EnergyKind::total},
                         {"base_power_w", p.model.base_power},
                         {"cols", p.cols},
                         {"cols_from", p.cols_from},
                         {"predicted", predicted},
                         {"base_power", p.base_power},
                         {"held_power", p.held_power},
                         {"front_points", p.front_points},
                         {"profile", p.profile},
                         {"interpolated", p.interpolated},
                         {"unconverged", p.unconverged},
                         {"front_point", p.front_point}};
  return j.dump();
}

Plan plan_from_text(const std::string& text) {
  const auto j = nlohmann::json::parse(text);
  Plan p;
  p.processors = j.at("processors").get<std::vector<std::string>>();
  p.rows = j.at("rows").get<std::vector<index_t>>();
  p.source = j.at("source").get<std::string>();
  p.reason = j.at("reason").get<std::string>();
  p.time = optional_from(j.at("time"));
  p.energy = optional_from(j.at("energy"));
  p.model.kind = j.at("total").get<bool>() ? partition::EnergyKind::total : partition::EnergyKind::dynamic;
  p.model.base_power = j.at("base_power_w").get<double>();
  p.cols = j.at("cols").get<index_t>();
  p.cols_from = j.at("cols_from").get<std::string>();
  for (const auto& x : j.at("predicted"))
    p.predicted.push_back({optional_from(x.at(0)), optional_from(x.at(1)), optional_from(x.at(2))});
  p.base_power = j.at("base_power").get<std::vector<std::pair<std::string, double>>>();
  p.held_power = j.at("held_power").get<std::vector<std::pair<std::string, double>>>();
  p.front_points = j.at("front_points").get<std::size_t>();
  p.profile = j.at("profile").get<std::string>();
  p.interpolated = j.at("interpolated").get<std::string>();
  p.unconverged = j.at("unconverged").get<std::string>();
  p.front_point = j.at("front_point").get<std::size_t>();
  return p;
}

}  // namespace ctrl::loop
