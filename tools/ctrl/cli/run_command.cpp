// ctrl run APP (--split DEVICE=ROWS... | --front FRONT.json --pick fastest|least-energy|load-balanced|even|K|all|BUDGET
//               | --profile PROFILE.csv --workload N --pick ...) [--profile PROFILE.csv] [options]
// Executes one distribution of an application concurrently across its controllers, checks the
// result against a reference, and reports per-processor and total time and energy, measured beside
// predicted (docs/tool.md). The plan is loop::plan_run's, the run loop::run_distribution's.
#include "command.hpp"
#include "job.hpp"
#include "loop_common.hpp"
#include "progress_bar.hpp"
#include "run_report.hpp"

#include <ctrl/loop/args.hpp>
#include <ctrl/loop/learn.hpp>
#include <ctrl/loop/plan.hpp>
#include <ctrl/loop/run.hpp>
#include <ctrl/loop/selection.hpp>

#include <ctrl/io/files.hpp>

#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <memory>

namespace ctrl::tool {

namespace {

struct RunArgs {
  AppArgs app;
  std::vector<std::string> split;
  std::string front;
  std::string pick;
  std::string profile;
  std::string workload;
  std::string cols;
  std::size_t points = 0;
  MeasureArgs measure{10};
  std::string format = "table";
  std::string json_file;
  std::string output;
  bool learn = false;
  bool no_lock = false;
  PlatformArgs platform;
};

loop::PlanRequest plan_request(const RunArgs& a) {
  const bool by_split = !a.split.empty();
  if (by_split == (!a.front.empty() || !a.pick.empty()))
    throw exit_error(exit_bad_input, "run: give either --split DEVICE=ROWS ... or --front FILE --pick WHICH");
  if (!a.front.empty() && a.pick.empty())
    throw exit_error(exit_bad_input, "--front needs --pick fastest|least-energy|load-balanced|even|K|all|BUDGET");
  if (a.front.empty() && !a.pick.empty() && (a.profile.empty() || a.workload.empty()))
    throw exit_error(exit_bad_input, "--pick without --front needs --profile and --workload");
  const bool balanced = a.pick == "load-balanced" || a.pick == "even" || a.pick == "even-split";
  if (!a.front.empty() && balanced && a.profile.empty())
    throw exit_error(exit_bad_input, "--pick " + a.pick + " needs --profile (the front file does not hold it)");
  loop::PlanRequest r;
  r.split_name = "--split";
  r.cols_name = "--cols";
  for (const auto& s : a.split) r.split.push_back(loop::parse_split(s));
  r.front = a.front;
  if (!a.pick.empty()) r.pick = loop::Pick::parse(a.pick);
  r.profile = a.profile;
  if (!a.workload.empty()) r.workload = loop::parse_positive(a.workload, "--workload");
  if (!a.cols.empty()) r.cols = loop::parse_positive(a.cols, "--cols");
  if (a.points > 0 && a.pick != "all") throw exit_error(exit_bad_input, "--points goes with --pick all");
  if (a.learn && a.profile.empty()) throw exit_error(exit_bad_input, "--learn needs --profile: the profile to teach");
  if (a.learn && a.pick == "all")
    throw exit_error(exit_bad_input, "--learn teaches one run: run the point to learn with --pick K --learn");
  r.points = a.points;
  return r;
}

// The plan, on rank 0 of an MPI job (which reads the files) and sent to the others: the
// distribution is computed once (docs/distributed.md).
loop::Plan plan(const RunArgs& a, const loop::PlanRequest& request, const loop::Workload& app, Job& job) {
  return loop::plan_from_text(job.from_root([&] {
    const io::FileArgument files[] = {{"--front", a.front, false},
                                      {"--profile", a.profile, false},
                                      {"--selection", a.platform.selection, false},
                                      {"--json", a.json_file, true},
                                      {"--output", a.output, true}};
    io::check_files(files);
    const loop::Plan p = loop::plan_run(app, request);
    if (a.learn) loop::check_learnable(a.profile, app, p, "--profile");  // before the run, not after it
    return loop::to_text(p);
  }));
}

// What decides the problem, as one text, for agree_on_problem: rank 0 computes the distribution
// and N, but every rank makes its own rows of the application with its own seed. File names are
// left out: only rank 0 reads the files, and the nodes need not share a file system.
std::string problem_text(const RunArgs& a, const loop::Workload& app) {
  std::string t = fmt::format("{} --cols {}", app.identity(), a.cols.empty() ? "(default)" : a.cols);
  for (const auto& s : a.split) t += " --split " + s;
  return t + fmt::format(" --seed {}", a.measure.seed);
}

// The plan's processors as this job's devices: HOST/DEVICE in an MPI job, DEVICE in one process.
std::vector<DeviceSpec> devices_of(const loop::Plan& plan, bool distributed) {
  std::vector<DeviceSpec> devices;
  for (const auto& n : plan.processors) {
    const auto [host, spec] = loop::split_processor_name(n);
    if (!host.empty() && !distributed)
      throw exit_error(exit_bad_input,
                       fmt::format("{} names a host: a distribution across hosts runs under mpirun with "
                                   "--selection FILE",
                                   n));
    if (host.empty() && distributed)
      throw exit_error(exit_bad_input, fmt::format("{} names no host: with --selection, processors are HOST/DEVICE (as "
                                                   "a distributed profile names them)",
                                                   n));
    devices.push_back(spec);
  }
  return devices;
}

// One distribution on the platform, measured beside its plan's predictions.
loop::RunOutcome run_plan(const RunArgs& a, const loop::Plan& p, const loop::StopRule& rule, loop::Platform& platform,
                          const loop::Workload& runnable, const std::string& label,
                          const loop::StopFlag* stop = nullptr) {
  loop::RunRequest req = loop::run_request(p);
  req.rule = rule;
  req.base_power = a.measure.base_powers();
  req.idle_seconds = a.measure.idle_seconds;
  req.seed = a.measure.seed;
  req.output = a.output;
  ProgressBar bar(ProgressBar::parse_mode(platform.is_root() ? a.measure.progress : std::string("none")));
  bar.update(0, label + "warm-up", true);
  loop::RunOutcome outcome = loop::run_distribution(
      runnable, req, platform,
      [&](const loop::RoundProgress& r) {
        bar.update(std::min(1.0, static_cast<double>(r.rep) / rule.min_reps),
                   label + round_text(r.rep, r.batch, r.worst_relative_ci));
      },
      stop);
  for (const auto& line : outcome.notes) bar.line("run: " + line);
  bar.finish();
  return outcome;
}

void write_json_file(const std::string& path, const std::string& text) {
  try {
    io::write_file_atomically(path, text);
  } catch (const std::exception& e) {
    throw exit_error(exit_bad_input, std::string("--json ") + e.what());
  }
}

loop::TeamOptions team_options(const RunArgs& a) {
  loop::TeamOptions topt;
  topt.energy = !a.measure.no_energy;
  a.measure.cpu_power.apply(topt.meters);
  topt.min_window_s = a.measure.min_window;
  topt.min_round_s = a.measure.min_round;
  return topt;
}

// --pick all: every point of the front, one after the other on one platform (one process), each
// reported as one run is, then the points side by side with the worst named. The first Ctrl-C
// or SIGTERM ends the point in progress and reports the points measured (exit 130).
int run_all_points(const RunArgs& a, const loop::PlanRequest& request, const loop::Workload& app,
                   const loop::StopRule& rule, Job& job) {
  if (a.platform.distributed(false))
    throw exit_error(exit_bad_input, "--pick all runs in one process: run each point (--pick K) under mpirun instead");
  if (!a.output.empty()) throw exit_error(exit_bad_input, "--pick all runs many distributions: --output takes one");
  const io::FileArgument files[] = {
      {"--front", a.front, false}, {"--profile", a.profile, false}, {"--json", a.json_file, true}};
  io::check_files(files);
  const std::vector<loop::Plan> plans = loop::plan_front(app, request);
  prefer_pci_order_for_cuda();
  const auto platform = job.platform(a.platform, false, devices_of(plans.front(), false), team_options(a), nullptr);
  const auto runnable = a.app.workload(platform->local_devices());
  loop::StopFlag stop{false};
  InterruptScope watching(stop);
  std::vector<loop::RunOutcome> outcomes;
  outcomes.reserve(plans.size());
  for (std::size_t k = 0; k < plans.size() && !stop.load(); ++k) {
    outcomes.push_back(
        run_plan(a, plans[k], rule, *platform, *runnable, fmt::format("point {}/{}: ", k + 1, plans.size()), &stop));
    if (outcomes.back().measured.interrupted) outcomes.pop_back();  // not measured to the rule: left out
  }
  std::vector<RunReport> reports;
  for (std::size_t k = 0; k < outcomes.size(); ++k)
    reports.push_back({app, plans[k], outcomes[k], loop::totals(plans[k], outcomes[k]), rule.precision, {}});
  if (reports.empty()) {
    std::cerr << "ctrl: run: interrupted before the first point was measured\n";
    return 130;
  }
  if (!a.json_file.empty()) write_json_file(a.json_file, front_runs_json(reports));
  if (a.format == "json")
    std::cout << front_runs_json(reports);
  else
    write_front_runs_table(std::cout, reports);
  int code = exit_ok;
  for (std::size_t k = 0; k < reports.size(); ++k)
    if (!outcomes[k].check.ok) {
      std::cerr << fmt::format("ctrl: run: point {}: wrong results: {}\n", k + 1, outcomes[k].check.detail);
      code = exit_failure;
    }
  if (stop.load()) {
    std::cerr << fmt::format("ctrl: run: interrupted: {} of {} points measured and reported\n", reports.size(),
                             plans.size());
    if (code == exit_ok) code = 130;
  }
  return code;
}

int run_run(const RunArgs& a, Job& job) {
  const auto named = a.app.workload();  // the application is the first thing to be wrong
  const loop::Workload& app = *named;
  const loop::PlanRequest request = plan_request(a);  // the arguments' errors, on every rank
  const loop::StopRule rule{a.measure.min_reps, a.measure.max_reps, a.measure.precision, a.measure.max_seconds};
  rule.validate();
  a.measure.check();
  if (request.pick && request.pick->kind == loop::Pick::all) return run_all_points(a, request, app, rule, job);
  const bool distributed = a.platform.distributed(false);
  loop::agree_on_problem(job.group(a.platform, distributed), problem_text(a, app));
  const loop::Plan p = plan(a, request, app, job);

  prefer_pci_order_for_cuda();
  const auto platform = job.platform(a.platform, distributed, devices_of(p, distributed), team_options(a),
                                     distributed ? &p.processors : nullptr);
  const auto runnable = a.app.workload(platform->local_devices());  // compiled for this member's devices
  const loop::RunOutcome outcome = run_plan(a, p, rule, *platform, *runnable, "");

  RunReport report{app, p, outcome, loop::totals(p, outcome), rule.precision, {}};
  if (a.learn && outcome.check.ok && platform->is_root())
    report.learned = loop::learn(a.profile, app, p, outcome, "--profile", a.no_lock);
  if (!a.json_file.empty() && platform->is_root()) write_json_file(a.json_file, run_json(report));
  if (a.format == "json")
    std::cout << run_json(report);
  else
    write_run_table(std::cout, report);
  if (!outcome.check.ok) {
    std::cerr << "ctrl: run: wrong results: " << outcome.check.detail << '\n';
    return exit_failure;
  }
  return exit_ok;
}

}  // namespace

void add_run(CLI::App& app, action& run, Job& job) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run one distribution across its controllers; check it; report measured beside predicted time and energy");
  args->app.add_to(cmd);
  cmd->add_option("--split", args->split, "Rows of a processor, DEVICE=ROWS (repeat for each processor)");
  cmd->add_option("--front", args->front, "A front from `ctrl pareto --format json`");
  cmd->add_option("--pick", args->pick,
                  "Which point: fastest, least-energy, K (1-based), all (every point of the front, one run each, "
                  "the worst named), a budget (energy@time+5%: the least energy within 5 % of the fastest time; "
                  "time@energy-20%: the fastest using at most 80 % of the fastest point's energy; energy@time<=2.5s; "
                  "time@energy<=300J), or computed from --profile: load-balanced (equal times) or even (equal rows)");
  cmd->add_option("--points", args->points,
                  "With --pick all: at most K points, spread evenly along the front (the fastest and the least "
                  "energy among them)");
  cmd->add_option("--profile", args->profile,
                  "The profile the front came from: per-processor predictions, N, base powers");
  cmd->add_option("--workload", args->workload, "With --profile --pick and no --front: the workload to split");
  cmd->add_option("--cols", args->cols, "N, the fixed dimension (default: the profile's, else the application's)");
  args->measure.add_to(cmd);
  cmd->add_option("--format", args->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cmd->add_option("--json", args->json_file, "Also write the JSON report to this file")->check(file_name);
  cmd->add_flag("--learn", args->learn,
                "Add what the run measured (each processor's own time and energy at its rows) to --profile, marked "
                "measured_in = run: the next front and plan use it; the profile's own rows are kept");
  cmd->add_flag("--no-lock", args->no_lock,
                "With --learn, where --profile's file system cannot lock it (Lustre without -o flock): write it "
                "unlocked; no other command may write it meanwhile");
  cmd->add_option("--output", args->output,
                  "Write the result matrix (all rows, in processor order) to this .npy file, when the check passes")
      ->check(file_name);
  args->platform.add_to(cmd);
  cmd->callback([&run, &job, args] { run = [args, &job] { return run_run(*args, job); }; });
}

}  // namespace ctrl::tool
