// ctrl run APP (--split DEVICE=ROWS... | --front FRONT.json --pick fastest|least-energy|load-balanced|K)
//              [--profile PROFILE.csv] [options]
// Executes one distribution of an application concurrently across its controllers (row blocks
// of one host array), checks the result against a reference, and reports per-processor and total
// time and energy, measured beside predicted (docs/tool.md).
#include "command.hpp"
#include "catalog/catalog.hpp"
#include "loop_common.hpp"
#include "job.hpp"
#include "progress_bar.hpp"
#include "run_plan.hpp"

#include <ctrl/loop/args.hpp>
#include <ctrl/loop/measure.hpp>
#include <ctrl/loop/profile_file.hpp>
#include <ctrl/loop/run.hpp>
#include <ctrl/loop/selection.hpp>
#include <ctrl/loop/team.hpp>
#include <ctrl/loop/workload.hpp>

#include <ctrl/io/files.hpp>
#include <ctrl/partition/load_balanced.hpp>
#include <ctrl/partition/pareto.hpp>
#include <ctrl/partition/profile_csv.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>

namespace ctrl::tool {

namespace {

std::optional<double> relative(std::optional<double> measured, std::optional<double> predicted) {
  if (!measured || !predicted || *predicted == 0) return std::nullopt;
  return (*measured - *predicted) / *predicted;
}

// What decides the problem, as one text, for agree_on_problem: rank 0 computes the distribution
// and N, but every rank makes its own rows of the application with its own seed. File names are
// left out: only rank 0 reads the files, and the nodes need not share a file system.
std::string problem_text(const RunArgs& a) {
  std::string t = fmt::format("{} --cols {}", a.app, a.cols.empty() ? "(default)" : a.cols);
  for (const auto& s : a.split) t += " --split " + s;
  return t + fmt::format(" --seed {}", a.measure.seed);
}

int run_run(const RunArgs& a, Job& job) {
  const loop::Workload& app = apps::catalog().find(a.app);
  const bool by_split = !a.split.empty();
  if (by_split == (!a.front.empty() || !a.pick.empty()))
    throw exit_error(exit_bad_input, "run: give either --split DEVICE=ROWS ... or --front FILE --pick WHICH");
  if (!a.front.empty() && a.pick.empty()) throw exit_error(exit_bad_input, "--front needs --pick fastest|least-energy|load-balanced|K");
  if (a.front.empty() && !a.pick.empty() && (a.profile.empty() || a.workload.empty()))
    throw exit_error(exit_bad_input, "--pick without --front needs --profile and --workload");
  loop::StopRule rule{a.measure.min_reps, a.measure.max_reps, a.measure.precision, a.measure.max_seconds};
  rule.validate();
  const auto base_powers = a.measure.base_powers();

  const bool distributed = a.platform.distributed(false);
  loop::agree_on_problem(job.group(a.platform, distributed), problem_text(a));
  // The distribution and its predictions, computed once: by rank 0 in an MPI job, which reads the
  // files and sends the result to every rank.
  const Prepared prep = prepared_from_text(
      job.from_root([&] { return to_text(prepare_run(a, app)); }));
  const Plan& plan = prep.plan;
  const index_t cols = prep.cols;
  const std::string& cols_from = prep.cols_from;
  index_t m = 0;
  for (const index_t x : plan.rows) m += x;

  prefer_pci_order_for_cuda();
  std::vector<DeviceSpec> devices;
  for (const auto& n : plan.names) {
    const auto [host, spec] = loop::split_processor_name(n);
    if (!host.empty() && !distributed)
      throw exit_error(exit_bad_input, fmt::format("{} names a host: a distribution across hosts runs under mpirun with "
                                                   "--selection FILE", n));
    if (host.empty() && distributed)
      throw exit_error(exit_bad_input, fmt::format("{} names no host: with --selection, processors are HOST/DEVICE (as "
                                                   "a distributed profile names them)", n));
    devices.push_back(spec);
  }
  loop::TeamOptions topt;
  topt.energy = !a.measure.no_energy;
  topt.min_window_s = a.measure.min_window;
  a.measure.check();
  topt.min_round_s = a.measure.min_round;
  const auto platform = job.platform(a.platform, distributed, devices, topt,
                                      distributed ? &plan.names : nullptr);
  loop::Platform& team = *platform;
  ProgressBar bar(ProgressBar::parse_mode(team.is_root() ? a.measure.progress : std::string("none")));
  // Base powers from the profile (given ones are the request's, and win).
  for (std::size_t i = 0; i < team.size(); ++i)
    if (const auto it = prep.base_power.find(team.info(i).name);
        team.info(i).has_energy() && it != prep.base_power.end())
      team.set_base_power(i, it->second, "from " + a.profile);
  loop::RunRequest req;
  req.rows = plan.rows;
  req.cols = cols;
  req.rule = rule;
  req.base_power = base_powers;
  req.idle_seconds = a.measure.idle_seconds;
  req.seed = a.measure.seed;
  req.output = a.output;
  for (const auto& name : plan.names) {
    loop::Prediction pr;
    if (const auto it = prep.predicted.find(name); it != prep.predicted.end()) pr = {it->second.first, it->second.second};
    req.predicted.push_back(pr);
  }
  bar.update(0, "warm-up", true);
  const loop::RunOutcome outcome = loop::run_distribution(app, req, team, [&](const loop::RoundProgress& p) {
    bar.update(std::min(1.0, static_cast<double>(p.rep) / rule.min_reps),
               fmt::format("round {} x{}  ci {:.1f}%", p.rep, p.batch,
                           std::isfinite(p.worst_relative_ci) ? 100 * p.worst_relative_ci : 999.0));
  });
  for (const auto& line : outcome.notes) bar.line("run: " + line);
  bar.finish();
  const loop::MeasureResult& res = outcome.measured;
  const loop::Check& check = outcome.check;

  // Per processor: measured beside predicted.
  const std::vector<loop::ProcessorRun>& reports = outcome.processors;
  std::optional<double> pred_time = outcome.time_predicted(), pred_energy, meas_energy = outcome.energy_measured();
  if (meas_energy) pred_energy = outcome.energy_predicted();
  if (plan.front_time) pred_time = plan.front_time;
  if (plan.front_energy && meas_energy) pred_energy = plan.front_energy;
  if (plan.total_energy && meas_energy) *meas_energy += plan.front_base_power * res.wall.mean;
  const std::string energy_word = plan.total_energy ? "total" : "dynamic";

  std::vector<std::string> with_energy, without_energy;
  for (const auto& r : reports)
    (r.energy ? with_energy : without_energy).push_back(r.energy ? r.name : r.name + " (" + r.energy_absent + ")");

  {
    auto est = [](const loop::Estimate& e) { return nlohmann::ordered_json{{"mean", e.mean}, {"ci", e.ci}, {"n", e.n}}; };
    auto opt = [](std::optional<double> v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr); };
    nlohmann::ordered_json procs = nlohmann::ordered_json::array();
    for (const auto& r : reports) {
      nlohmann::ordered_json p{{"processor", r.name}, {"rows", r.rows}};
      p["time"] = {{"measured", r.rows ? est(r.time) : nlohmann::ordered_json(nullptr)},
                   {"predicted", opt(r.predicted.time)},
                   {"error", opt(r.rows ? relative(r.time.mean, r.predicted.time) : std::nullopt)}};
      if (r.energy)
        p["energy"] = {{"measured", est(*r.energy)},
                       {"predicted", opt(r.predicted.energy)},
                       {"error", opt(relative(r.energy->mean, r.predicted.energy))},
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
    if (!a.json_file.empty() && team.is_root()) {
      try {
        io::write_file_atomically(a.json_file, doc.dump(2) + "\n");
      } catch (const std::exception& e) {
        throw exit_error(exit_bad_input, std::string("--json ") + e.what());
      }
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
      const std::string tp = r.predicted.time ? format_seconds(*r.predicted.time) : "—";
      std::string em = "—", ep = "—", ee = "—";
      if (r.energy) {
        em = fmt::format("{} ±{}", format_joules(r.energy->mean), format_joules(r.energy->ci));
        if (r.predicted.energy) ep = format_joules(*r.predicted.energy);
        ee = format_percent(relative(r.energy->mean, r.predicted.energy));
      }
      std::cout << fmt::format("{:<14} {:>7}  {:>20} {:>11} {:>8}  {:>20} {:>11} {:>8}\n", r.name, r.rows, tm, tp,
                               format_percent(r.rows ? relative(r.time.mean, r.predicted.time) : std::nullopt), em, ep,
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

void add_run(CLI::App& app, action& run, Job& job) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run one distribution across its controllers; check it; report measured beside predicted time and energy");
  cmd->add_option("app", args->app, applications_help())->required();
  cmd->add_option("--split", args->split, "Rows of a processor, DEVICE=ROWS (repeat for each processor)");
  cmd->add_option("--front", args->front, "A front from `ctrl pareto --format json`");
  cmd->add_option("--pick", args->pick, "Which point: fastest, least-energy, load-balanced (needs --profile), or K (1-based)");
  cmd->add_option("--profile", args->profile, "The profile the front came from: per-processor predictions, N, base powers");
  cmd->add_option("--workload", args->workload, "With --profile --pick and no --front: the workload to split");
  cmd->add_option("--cols", args->cols, "N, the fixed dimension (default: the profile's, else the application's)");
  args->measure.add_to(cmd);
  cmd->add_option("--format", args->format, "table or json")->check(CLI::IsMember({"table", "json"}))->capture_default_str();
  cmd->add_option("--json", args->json_file, "Also write the JSON report to this file");
  cmd->add_option("--output", args->output,
                  "Write the result matrix (all rows, in processor order) to this .npy file, when the check passes");
  args->platform.add_to(cmd);
  cmd->callback([&run, &job, args] { run = [args, &job] { return run_run(*args, job); }; });
}

}  // namespace ctrl::tool
