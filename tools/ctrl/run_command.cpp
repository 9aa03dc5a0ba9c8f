// ctrl run APP (--split DEVICE=ROWS... | --front FRONT.json --pick fastest|least-energy|load-balanced|K)
//              [--profile PROFILE.csv] [options]
// Executes one distribution of an application concurrently across its controllers (row blocks
// of one host array), checks the result against a reference, and reports per-processor and total
// time and energy, measured beside predicted (docs/tool.md).
#include "command.hpp"
#include "loop_common.hpp"
#include "progress_bar.hpp"

#include "workloads/loop_args.hpp"
#include "workloads/measure.hpp"
#include "workloads/profile_file.hpp"
#include "workloads/team.hpp"
#include "workloads/workload.hpp"

#include <ctrl/partition/load_balanced.hpp>
#include <ctrl/partition/pareto.hpp>
#include <ctrl/partition/profile_csv.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

namespace ctrl::tool {

namespace {

struct RunArgs {
  std::string app;
  std::vector<std::string> split;
  std::string front;
  std::string pick;
  std::string profile;
  std::string workload;
  std::string cols;
  MeasureArgs measure{10};
  std::string format = "table";
  std::string json_file;
};

// The distribution to run, and what is predicted for it.
struct Plan {
  std::vector<std::string> names;
  std::vector<index_t> rows;
  std::string source;                        // where the distribution comes from, in words
  std::optional<double> front_time, front_energy;
  bool total_energy = false;                 // the front's energy is total (HTPOPTA)
  double front_base_power = 0;
};

std::optional<double> relative(std::optional<double> measured, std::optional<double> predicted) {
  if (!measured || !predicted || *predicted == 0) return std::nullopt;
  return (*measured - *predicted) / *predicted;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw exit_error(exit_bad_input, fmt::format("--front {}: cannot read it", path));
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw exit_error(exit_bad_input, fmt::format("--front {}: not JSON ({})", path, e.what()));
  }
}

partition::Size parse_count(const std::string& text, const std::string& what) {
  return workloads::parse_positive(text, what);
}

Plan plan_from_front(const RunArgs& a, const partition::Profile* profile) {
  Plan plan;
  const nlohmann::json doc = read_json(a.front);
  try {
    plan.names = doc.at("processors").get<std::vector<std::string>>();
    const auto workload = doc.at("workload").get<partition::Size>();
    plan.total_energy = doc.value("energy", std::string("dynamic")) == "total";
    plan.front_base_power = doc.value("base_power", 0.0);
    const auto& front = doc.at("front");
    if (!front.is_array() || front.empty()) throw exit_error(exit_bad_input, "--front " + a.front + ": the front is empty");
    std::size_t k = 0;
    std::string what;
    if (a.pick == "fastest" || a.pick == "time-optimal") {
      k = 0;
      what = "fastest";
    } else if (a.pick == "least-energy" || a.pick == "energy-optimal") {
      k = front.size() - 1;
      what = "least energy";
    } else if (a.pick == "load-balanced") {
      if (profile == nullptr)
        throw exit_error(exit_bad_input, "--pick load-balanced needs --profile (the front file does not hold it)");
      partition::EnergyModel model;
      model.kind = plan.total_energy ? partition::EnergyKind::total : partition::EnergyKind::dynamic;
      model.base_power = plan.front_base_power;
      const auto lb = partition::load_balanced(*profile, workload, model);
      if (!lb)
        throw exit_error(exit_infeasible, fmt::format("no load-balanced distribution of {} with the sizes of {}",
                                                      workload, a.profile));
      plan.rows.assign(lb->distribution.begin(), lb->distribution.end());
      plan.front_time = lb->time;
      plan.front_energy = lb->energy;
      plan.source = fmt::format("{}: the load-balanced distribution of {} (from {})", a.front, workload, a.profile);
      return plan;
    } else {
      const auto idx = parse_count(a.pick, "--pick");
      if (static_cast<std::size_t>(idx) > front.size())
        throw exit_error(exit_bad_input, fmt::format("--pick {}: the front has {} points (1 to {})", a.pick,
                                                     front.size(), front.size()));
      k = static_cast<std::size_t>(idx - 1);
      what = fmt::format("point {}", idx);
    }
    const auto& point = front.at(k);
    plan.rows = point.at("distribution").get<std::vector<index_t>>();
    plan.front_time = point.at("time").get<double>();
    plan.front_energy = point.at("energy").get<double>();
    plan.source = fmt::format("{} point {} of {} ({})", a.front, k + 1, front.size(), what);
    if (plan.rows.size() != plan.names.size())
      throw exit_error(exit_bad_input, fmt::format("--front {}: a distribution of {} parts for {} processors", a.front,
                                                   plan.rows.size(), plan.names.size()));
  } catch (const nlohmann::json::exception& e) {
    throw exit_error(exit_bad_input,
                     fmt::format("--front {}: not a front written by `ctrl pareto --format json` ({})", a.front, e.what()));
  }
  return plan;
}

Plan plan_from_profile(const RunArgs& a, const partition::Profile& profile) {
  Plan plan;
  plan.names = profile.names();
  const auto workload = parse_count(a.workload, "--workload");
  partition::EnergyModel model;
  if (a.pick == "load-balanced") {
    const auto lb = partition::load_balanced(profile, workload, model);
    if (!lb)
      throw exit_error(exit_infeasible, fmt::format("no load-balanced distribution of {} with the sizes of {}", workload,
                                                    a.profile));
    plan.rows.assign(lb->distribution.begin(), lb->distribution.end());
    plan.front_time = lb->time;
    plan.front_energy = lb->energy;
    plan.source = fmt::format("the load-balanced distribution of {} from {}", workload, a.profile);
    return plan;
  }
  const partition::Front front = partition::pareto_front(profile, workload, model);
  if (front.empty())
    throw exit_error(exit_infeasible, fmt::format("workload {} cannot be split exactly with the sizes in {}", workload,
                                                  a.profile));
  std::size_t k = 0;
  if (a.pick == "fastest") k = 0;
  else if (a.pick == "least-energy") k = front.size() - 1;
  else {
    const auto idx = parse_count(a.pick, "--pick");
    if (static_cast<std::size_t>(idx) > front.size())
      throw exit_error(exit_bad_input, fmt::format("--pick {}: the front has {} points", a.pick, front.size()));
    k = static_cast<std::size_t>(idx - 1);
  }
  plan.rows.assign(front[k].distribution.begin(), front[k].distribution.end());
  plan.front_time = front[k].time;
  plan.front_energy = front[k].energy;
  plan.source = fmt::format("point {} of {} of the front of {} from {}", k + 1, front.size(), workload, a.profile);
  return plan;
}

struct ProcessorReport {
  std::string name;
  index_t rows = 0;
  workloads::Estimate time;
  std::optional<double> time_predicted;
  std::optional<workloads::Estimate> energy;
  std::optional<double> energy_predicted;
  std::string energy_source, energy_absent;
};

int run_run(const RunArgs& a) {
  const workloads::Workload& app = workloads::find_workload(a.app);
  const bool by_split = !a.split.empty();
  if (by_split == (!a.front.empty() || !a.pick.empty()))
    throw exit_error(exit_bad_input, "run: give either --split DEVICE=ROWS ... or --front FILE --pick WHICH");
  if (!a.front.empty() && a.pick.empty()) throw exit_error(exit_bad_input, "--front needs --pick fastest|least-energy|load-balanced|K");
  if (a.front.empty() && !a.pick.empty() && (a.profile.empty() || a.workload.empty()))
    throw exit_error(exit_bad_input, "--pick without --front needs --profile and --workload");
  workloads::StopRule rule{a.measure.min_reps, a.measure.max_reps, a.measure.precision, a.measure.max_seconds};
  rule.validate();

  // The profile: predictions per processor, N, and the base powers the predictions were made with.
  std::optional<partition::Profile> profile;
  workloads::ProfileFile meta;
  if (!a.profile.empty()) {
    profile = partition::read_profile_csv(a.profile);
    if (workloads::is_profile_file(a.profile)) meta = workloads::read_profile_file(a.profile);
    if (!meta.rows.empty() && meta.rows.front().app != a.app)
      throw exit_error(exit_bad_input, fmt::format("--profile {} is a profile of {}, not of {}", a.profile,
                                                   meta.rows.front().app, a.app));
  }

  Plan plan;
  if (by_split) {
    for (const auto& s : a.split) {
      const auto [spec, rows] = workloads::parse_split(s);
      plan.names.push_back(spec.str());
      plan.rows.push_back(rows);
    }
    plan.source = "--split";
  } else if (!a.front.empty()) {
    plan = plan_from_front(a, profile ? &*profile : nullptr);
  } else {
    plan = plan_from_profile(a, *profile);
  }
  if (profile && profile->names() != plan.names && !by_split)
    throw exit_error(exit_bad_input, fmt::format("the front's processors differ from those of --profile {}", a.profile));
  index_t m = 0;
  for (const index_t x : plan.rows) m += x;
  if (m <= 0) throw exit_error(exit_bad_input, "run: the distribution gives no rows to any processor");

  index_t cols = app.default_cols();
  std::string cols_from = "the default of " + a.app;
  if (!a.cols.empty()) {
    cols = workloads::parse_positive(a.cols, "--cols");
    cols_from = "--cols";
    if (!meta.rows.empty() && meta.rows.front().cols != cols)
      throw exit_error(exit_bad_input, fmt::format("--cols {} but --profile {} was measured with N = {}", cols,
                                                   a.profile, meta.rows.front().cols));
  } else if (!meta.rows.empty()) {
    cols = meta.rows.front().cols;
    cols_from = a.profile;
  }

  prefer_pci_order_for_cuda();
  std::vector<DeviceSpec> devices;
  for (const auto& n : plan.names) devices.push_back(parse_device(n));
  workloads::TeamOptions topt;
  topt.energy = !a.measure.no_energy;
  topt.min_window_s = a.measure.min_window;
  a.measure.check();
  topt.min_round_s = a.measure.min_round;
  workloads::Team team(devices, topt);
  ProgressBar bar(ProgressBar::parse_mode(a.measure.progress));
  for (std::size_t i = 0; i < team.size(); ++i) {
    if (!team.info(i).has_energy()) continue;
    for (const auto& b : a.measure.base_power) {
      const auto [spec, w] = workloads::parse_device_value(b, "--base-power");
      if (spec.str() == team.info(i).name) team.set_base_power(i, w, "given");
    }
    if (team.info(i).base_power_w) continue;
    for (const auto& r : meta.rows)
      if (r.processor == team.info(i).name && r.base_power) {
        team.set_base_power(i, *r.base_power, "from " + a.profile);
        break;
      }
  }
  auto problem = app.make_problem(m, cols, team.size(), a.measure.seed);
  const auto blocks = workloads::consecutive_blocks(plan.rows);
  bool need_base = false;
  for (std::size_t i = 0; i < team.size(); ++i) need_base |= team.info(i).has_energy() && !team.info(i).base_power_w;
  if (need_base && a.measure.idle_seconds > 0) {
    team.run(*problem, blocks, 1);  // base power "awake", as in `ctrl profile`
    for (const auto& line : team.measure_base_power(a.measure.idle_seconds)) bar.line("run: " + line);
  }
  bar.update(0, "warm-up", true);
  const workloads::MeasureResult res = workloads::measure(
      team, *problem, blocks, rule, workloads::RoundMode::executions,
      [&](const workloads::RoundProgress& p) {
        bar.update(std::min(1.0, static_cast<double>(p.rep) / rule.min_reps),
                   fmt::format("round {} x{}  ci {:.1f}%", p.rep, p.batch,
                               std::isfinite(p.worst_relative_ci) ? 100 * p.worst_relative_ci : 999.0));
      });
  bar.finish();
  const workloads::Check check = problem->verify(blocks);

  // Per processor: measured beside predicted.
  std::vector<ProcessorReport> reports;
  std::optional<double> pred_time, pred_energy, meas_energy;
  bool time_known = true;
  for (std::size_t i = 0; i < team.size(); ++i) {
    const auto& info = team.info(i);
    ProcessorReport r;
    r.name = info.name;
    r.rows = plan.rows[i];
    r.time = res.processors[i].time;
    r.energy = res.processors[i].energy;
    r.energy_source = info.energy_source;
    r.energy_absent = info.energy_absent;
    if (profile) {
      const std::vector<std::string> pnames = profile->names();
      const auto it = std::find(pnames.begin(), pnames.end(), r.name);
      if (r.rows == 0) {
        r.time_predicted = 0.0;
        r.energy_predicted = 0.0;
      } else if (it != pnames.end()) {
        const auto& pp = (*profile)[static_cast<std::size_t>(it - pnames.begin())];
        if (const auto* pt = pp.find(r.rows)) {
          r.time_predicted = pt->time;
          r.energy_predicted = pt->energy;
        }
      }
    }
    if (r.rows > 0) {
      if (r.time_predicted) pred_time = std::max(pred_time.value_or(0.0), *r.time_predicted);
      else time_known = false;
    }
    if (r.energy) {
      meas_energy = meas_energy.value_or(0.0) + r.energy->mean;
      if (r.energy_predicted) pred_energy = pred_energy.value_or(0.0) + *r.energy_predicted;
    }
    reports.push_back(std::move(r));
  }
  if (!time_known) pred_time.reset();
  if (plan.front_time) pred_time = plan.front_time;
  if (plan.front_energy && meas_energy) pred_energy = plan.front_energy;
  if (plan.total_energy && meas_energy) *meas_energy += plan.front_base_power * res.wall.mean;
  const std::string energy_word = plan.total_energy ? "total" : "dynamic";

  std::vector<std::string> with_energy, without_energy;
  for (const auto& r : reports)
    (r.energy ? with_energy : without_energy).push_back(r.energy ? r.name : r.name + " (" + r.energy_absent + ")");

  {
    auto est = [](const workloads::Estimate& e) { return nlohmann::ordered_json{{"mean", e.mean}, {"ci", e.ci}, {"n", e.n}}; };
    auto opt = [](std::optional<double> v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr); };
    nlohmann::ordered_json procs = nlohmann::ordered_json::array();
    for (const auto& r : reports) {
      nlohmann::ordered_json p{{"processor", r.name}, {"rows", r.rows}};
      p["time"] = {{"measured", r.rows ? est(r.time) : nlohmann::ordered_json(nullptr)},
                   {"predicted", opt(r.time_predicted)},
                   {"error", opt(r.rows ? relative(r.time.mean, r.time_predicted) : std::nullopt)}};
      if (r.energy)
        p["energy"] = {{"measured", est(*r.energy)},
                       {"predicted", opt(r.energy_predicted)},
                       {"error", opt(relative(r.energy->mean, r.energy_predicted))},
                       {"source", r.energy_source}};
      else
        p["energy"] = {{"measured", nullptr}, {"absent", r.energy_absent}};
      procs.push_back(p);
    }
    nlohmann::ordered_json doc{{"app", a.app},
                               {"cols", cols},
                               {"rows", m},
                               {"distribution_from", plan.source},
                               {"rounds", res.reps},
                               {"batch", res.batch},
                               {"converged", res.converged},
                               {"processors", procs}};
    doc["total"] = {{"time", {{"measured", est(res.wall)}, {"predicted", opt(pred_time)},
                              {"error", opt(relative(res.wall.mean, pred_time))}}},
                    {"energy", {{"kind", energy_word},
                                {"measured", opt(meas_energy)},
                                {"predicted", opt(meas_energy ? pred_energy : std::nullopt)},
                                {"error", opt(relative(meas_energy, pred_energy))},
                                {"covers", with_energy}}}};
    doc["check"] = {{"ok", check.ok}, {"worst", check.worst}, {"rows", check.rows_checked},
                    {"method", check.method}, {"detail", check.detail}};
    if (!a.json_file.empty()) {
      std::ofstream f(a.json_file, std::ios::binary | std::ios::trunc);
      f << doc.dump(2) << '\n';
      if (!f) throw exit_error(exit_bad_input, "--json " + a.json_file + ": cannot write it");
    }
    if (a.format == "json") std::cout << doc.dump(2) << '\n';
  }
  if (a.format != "json") {
    std::cout << app.summary(cols) << fmt::format(" (N from {})\n", cols_from);
    std::string dist;
    for (std::size_t i = 0; i < plan.names.size(); ++i) dist += fmt::format(" {}={}", plan.names[i], plan.rows[i]);
    std::cout << fmt::format("distribution ({} rows) from {}:{}\n", m, plan.source, dist);
    std::cout << fmt::format("measured: {} round{} of {} run{} each; 95% CI of every mean within {:.1f}%: {}\n\n", res.reps,
                             res.reps == 1 ? "" : "s", res.batch, res.batch == 1 ? "" : "s", 100 * rule.precision,
                             res.converged ? "yes" : "no (" + res.limiting + ")");
    std::cout << fmt::format("{:<14} {:>7}  {:>20} {:>11} {:>8}  {:>20} {:>11} {:>8}\n", "processor", "rows",
                             "time measured", "predicted", "error", "dynamic energy", "predicted", "error");
    for (const auto& r : reports) {
      const std::string tm = r.rows ? fmt::format("{} ±{:.1f}%", format_seconds(r.time.mean),
                                                  100 * r.time.relative_ci())
                                    : "idle";
      const std::string tp = r.time_predicted ? format_seconds(*r.time_predicted) : "—";
      std::string em = "—", ep = "—", ee = "—";
      if (r.energy) {
        em = fmt::format("{} ±{}", format_joules(r.energy->mean), format_joules(r.energy->ci));
        if (r.energy_predicted) ep = format_joules(*r.energy_predicted);
        ee = format_percent(relative(r.energy->mean, r.energy_predicted));
      }
      std::cout << fmt::format("{:<14} {:>7}  {:>20} {:>11} {:>8}  {:>20} {:>11} {:>8}\n", r.name, r.rows, tm, tp,
                               format_percent(r.rows ? relative(r.time.mean, r.time_predicted) : std::nullopt), em, ep,
                               ee);
    }
    std::cout << fmt::format("{:<14} {:>7}  {:>20} {:>11} {:>8}  {:>20} {:>11} {:>8}\n", "total", m,
                             fmt::format("{} ±{:.1f}%", format_seconds(res.wall.mean), 100 * res.wall.relative_ci()),
                             pred_time ? format_seconds(*pred_time) : "—", format_percent(relative(res.wall.mean, pred_time)),
                             meas_energy ? format_joules(*meas_energy) : "—",
                             meas_energy && pred_energy ? format_joules(*pred_energy) : "—",
                             format_percent(relative(meas_energy, pred_energy)));
    std::cout << "\ntotal time: from the common start to the last processor's completion; predicted: the largest "
                 "profile time\n";
    if (with_energy.empty()) {
      std::cout << "energy: absent on every processor — no sensor measures these devices here\n";
    } else {
      std::string w, wo;
      for (const auto& s : with_energy) w += (w.empty() ? "" : ", ") + s;
      for (const auto& s : without_energy) wo += (wo.empty() ? "" : "; ") + s;
      std::cout << "energy: dynamic energy of " << w
                << (wo.empty() ? std::string() : " only; absent: " + wo) << '\n';
      if (plan.total_energy)
        std::cout << fmt::format("total row: total energy = dynamic + {:g} W (the front's base power) x time\n",
                                 plan.front_base_power);
    }
    std::cout << fmt::format("check: {} — {} ({} rows; worst error {:.3g} of its tolerance){}\n",
                             check.ok ? "passed" : "FAILED", check.method, check.rows_checked, check.worst,
                             check.ok ? std::string() : "\n  " + check.detail);
  }
  if (!check.ok) {
    std::cerr << "ctrl: run: wrong results: " << check.detail << '\n';
    return exit_failure;
  }
  return exit_ok;
}

}  // namespace

void add_run(CLI::App& app, action& run) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run one distribution across its controllers; check it; report measured beside predicted time and energy");
  cmd->add_option("app", args->app, "The application: dgemm or fft2d")->required();
  cmd->add_option("--split", args->split, "Rows of a processor, DEVICE=ROWS (repeat for each processor)");
  cmd->add_option("--front", args->front, "A front from `ctrl pareto --format json`");
  cmd->add_option("--pick", args->pick, "Which point: fastest, least-energy, load-balanced (needs --profile), or K (1-based)");
  cmd->add_option("--profile", args->profile, "The profile the front came from: per-processor predictions, N, base powers");
  cmd->add_option("--workload", args->workload, "With --profile --pick and no --front: the workload to split");
  cmd->add_option("--cols", args->cols, "N, the fixed dimension (default: the profile's, else the application's)");
  args->measure.add_to(cmd);
  cmd->add_option("--format", args->format, "table or json")->check(CLI::IsMember({"table", "json"}))->capture_default_str();
  cmd->add_option("--json", args->json_file, "Also write the JSON report to this file");
  cmd->callback([&run, args] { run = [args] { return run_run(*args); }; });
}

}  // namespace ctrl::tool
