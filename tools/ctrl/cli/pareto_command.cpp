// ctrl pareto --profile FILE.csv --workload N [--energy dynamic|total] [--base-power W] [--time-only]
//              [--format table|json|csv] [--plot FILE.svg] [--plot-profile FILE.svg]
//              [--algorithm dp|paper|brute-force] [--epsilon E] [--threads T] [--memory-limit SIZE]
//              [--budget P%]... [--granularity G | --measured-only]
// The exact Pareto front of workload distributions for time and energy (or, with --epsilon, one
// within a factor 1 + E of it), and the HEPOPTA paper's analysis of it (docs/partition.md). A
// `ctrl profile` file in which a processor has no energy at all gets no front of time and energy
// (exit 2, saying what supplies it), only the time-optimal distribution with --time-only. Between
// measured sizes, time and energy are interpolated (ctrl/loop/model.hpp): any workload up to the
// processors' largest sizes splits, and every output marks the points that rest on interpolation.
// The report is the library's (loop::compute_front, ctrl/loop/front.hpp): this file parses the
// options into its request and renders it.
#include "command.hpp"
#include "front_format.hpp"
#include "plots.hpp"

#include <ctrl/errors.hpp>
#include <ctrl/loop/args.hpp>
#include <ctrl/loop/front.hpp>
#include <ctrl/partition/pareto.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ctrl::tool {

namespace {

struct ParetoArgs {
  std::string profile;
  std::string workload;
  std::string energy = "dynamic";
  std::string base_power;
  std::string format = "table";
  std::string plot;
  std::string plot_profile;
  std::string algorithm = "dp";
  unsigned threads = 0;
  std::string epsilon;
  std::string memory_limit;
  std::vector<std::string> budgets{"5%"};
  bool time_only = false;
  std::string granularity;
  bool measured_only = false;
};

partition::Size parse_workload(const std::string& text) {
  const bool digits =
      !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  partition::Size n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (!digits || ec != std::errc() || end != text.data() + text.size() || n <= 0)
    throw exit_error(exit_bad_input, "--workload: '" + text + "' is not a positive integer");
  return n;
}

double parse_base_power(const std::string& text) {
  double w = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), w);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(w))
    throw exit_error(exit_bad_input, "--base-power: '" + text + "' is not a number of watts");
  if (w < 0) throw exit_error(exit_bad_input, "--base-power: '" + text + "' is negative");
  return w;
}

// --epsilon E: a positive number (0.01: within 1 %); the approximation is the dp method's.
double parse_epsilon(const std::string& text, const std::string& algorithm) {
  if (text.empty()) return 0.0;
  double e = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), e);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(e) || e <= 0)
    throw exit_error(exit_bad_input, "--epsilon: '" + text + "' is not a positive number (0.01: within 1 %)");
  if (algorithm != "dp")
    throw exit_error(exit_bad_input,
                     "--epsilon: the approximate front is the dp method's, not --algorithm " + algorithm);
  return e;
}

// --memory-limit SIZE: bytes with an optional binary unit (512M, 2G, 1.5G), or none. Past it the
// exact sweep keeps checkpoints and sweeps levels again (same front, slower): docs/partition.md.
std::size_t parse_memory_limit(const std::string& text) {
  if (text.empty()) return partition::DpOptions{}.memory_limit;
  if (text == "none") return SIZE_MAX;
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  const std::string unit(end, text.data() + text.size());
  static const std::pair<const char*, int> units[] = {{"", 0},     {"K", 10},   {"M", 20},   {"G", 30},  {"T", 40},
                                                      {"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}};
  const auto* u = std::find_if(std::begin(units), std::end(units), [&](const auto& x) { return unit == x.first; });
  const double bytes = u == std::end(units) ? 0 : std::ldexp(v, u->second);
  if (ec != std::errc() || !std::isfinite(v) || bytes < 1 || bytes >= 0x1p63)
    throw exit_error(exit_bad_input, "--memory-limit: '" + text +
                                         "' is not a size: a number of bytes, or of K, M, G or T (binary: 512M, "
                                         "2G), or none");
  return static_cast<std::size_t>(bytes);
}

// --budget P%: the slowdown allowed over the fastest time, as a fraction. A bare number is refused
// rather than guessed at (is 0.05 five percent or a twentieth of one?).
double parse_budget(const std::string& text) {
  const std::string number = !text.empty() && text.back() == '%' ? text.substr(0, text.size() - 1) : std::string();
  double p = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), p);
  if (number.empty() || ec != std::errc() || end != number.data() + number.size() || !std::isfinite(p))
    throw exit_error(exit_bad_input, "--budget: '" + text +
                                         "' is not a percentage: write it as 5% (the slowdown allowed over the "
                                         "fastest time)");
  if (p < 0) throw exit_error(exit_bad_input, "--budget: '" + text + "' is negative");
  return p / 100;
}

// --time-only: no second objective, so no option of one.
void check_objectives(const ParetoArgs& a) {
  if (a.time_only && (a.energy != "dynamic" || !a.base_power.empty() || !a.epsilon.empty()))
    throw exit_error(exit_bad_input,
                     "--time-only compares no energy: --energy, --base-power and --epsilon do not apply");
}

// --granularity G (interpolate between measured sizes at multiples of G) or --measured-only.
loop::ModelChoice model_choice(const ParetoArgs& a) {
  loop::ModelChoice choice;
  choice.measured_only = a.measured_only;
  if (!a.granularity.empty()) {
    if (a.measured_only) throw exit_error(exit_bad_input, "--granularity and --measured-only exclude each other");
    choice.granularity = loop::parse_positive(a.granularity, "--granularity");
  }
  return choice;
}

// The request of the command's options, checked as they are named.
loop::FrontRequest front_request(const ParetoArgs& a) {
  check_objectives(a);
  loop::FrontRequest r;
  r.profile = a.profile;
  r.workload = parse_workload(a.workload);
  r.energy = a.energy == "total" ? partition::EnergyKind::total : partition::EnergyKind::dynamic;
  if (!a.base_power.empty()) r.base_power = parse_base_power(a.base_power);
  r.time_only = a.time_only;
  r.options.method = partition::parse_method(a.algorithm).value_or(partition::Method::dp);
  r.options.epsilon = parse_epsilon(a.epsilon, a.algorithm);
  r.options.dp.threads = a.threads;
  r.options.dp.memory_limit = parse_memory_limit(a.memory_limit);
  r.budgets.clear();
  for (const auto& b : a.budgets) r.budgets.push_back(parse_budget(b));
  r.sizes = model_choice(a);
  r.names = {"--base-power", "--energy total", "--time-only"};
  return r;
}

int run_pareto(const ParetoArgs& a) {
  const loop::FrontRequest request = front_request(a);
  const PlotFiles plots{a.plot, a.plot_profile};
  check_plot_files(a.profile, plots);  // before the table: a plot that cannot be written fails first
  const loop::LoadedProfile loaded = loop::read_profile(a.profile);
  const FrontReport report = loop::compute_front(loaded, request);
  if (report.model.kind == partition::EnergyKind::total && a.base_power.empty() && a.format != "table")
    // The table says it in its first line; JSON and CSV have no place for it.
    std::cerr << fmt::format("pareto: base power {:g} W: {}\n", report.model.base_power, report.base_power_origin);

  if (a.time_only)
    write_time_only(std::cout, report, a.format);
  else if (a.format == "json")
    write_json(std::cout, report);
  else if (a.format == "csv")
    write_csv(std::cout, report);
  else
    write_table(std::cout, report);
  std::cout.flush();

  write_plots(plots, report, loaded);
  return exit_ok;
}

}  // namespace

void add_pareto(CLI::App& app, action& run) {
  auto args = std::make_shared<ParetoArgs>();
  CLI::App* cmd = app.add_subcommand(
      "pareto", "The exact Pareto front of workload distributions for time and energy (HEPOPTA, HTPOPTA)");
  cmd->add_option("--profile", args->profile,
                  "CSV profile: a header naming processor,size,time,energy (any order), one row per point")
      ->required();
  cmd->add_option("--workload", args->workload,
                  "The workload n to split, in the units of the sizes (a positive integer)")
      ->required();
  cmd->add_option("--energy", args->energy, "Second objective: dynamic energy, or total = dynamic + base power x time")
      ->check(CLI::IsMember({"dynamic", "total"}))
      ->capture_default_str();
  cmd->add_option("--base-power", args->base_power,
                  "Base (static) power of the platform in watts, for --energy total (default: the sum of the "
                  "profile's base powers, when it has one for every processor)");
  cmd->add_option("--format", args->format, "Output: table (for a terminal), json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  cmd->add_option("--plot", args->plot, "Also write the front as an SVG plot to this file")->check(file_name);
  cmd->add_option("--plot-profile", args->plot_profile,
                  "Also write the profile (time and energy per size, one line per processor) as an SVG plot")
      ->check(file_name);
  cmd->add_option("--algorithm", args->algorithm,
                  "dp (the fast exact method), paper (HEPOPTA as published) or brute-force (tiny inputs)")
      ->check(CLI::IsMember({"dp", "paper", "brute-force"}))
      ->capture_default_str();
  cmd->add_option("--epsilon", args->epsilon,
                  "An approximate front for large platforms: every exact Pareto point within a factor 1 + E in time "
                  "and in energy of a reported one (0.01: within 1 %; the dp method)");
  cmd->add_option("--threads", args->threads, "Threads for the dp method (0: every core this process may use)")
      ->capture_default_str();
  cmd->add_option("--memory-limit", args->memory_limit,
                  "Memory for the exact dp method's tables (512M, 2G, ...; none: no limit). Past it the same front "
                  "takes longer (levels swept again); default 2G");
  cmd->add_option("--budget", args->budgets,
                  "A slowdown allowed over the fastest time, as a percentage (5%): the table, JSON and plot show the "
                  "least energy within it (repeat for several)")
      ->capture_default_str();
  cmd->add_option("--granularity", args->granularity,
                  "Parts are multiples of G rows, time and energy interpolated between measured sizes (default: the "
                  "granularity a `ctrl profile` file records; a plain CSV: measured sizes only)");
  cmd->add_flag("--measured-only", args->measured_only,
                "Measured sizes only, as in the HEPOPTA paper: every non-zero part is a size the profile measured");
  cmd->add_flag("--time-only", args->time_only,
                "Time only: the time-optimal distribution, energy not compared (for a profile in which a processor "
                "has no energy, measured or estimated)");
  cmd->callback([&run, args] { run = [args] { return run_pareto(*args); }; });
}

}  // namespace ctrl::tool
