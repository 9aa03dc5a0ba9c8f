#include "loop_common.hpp"

#include "catalog/catalog.hpp"

#include "command.hpp"

#include <ctrl/loop/args.hpp>

#include <fmt/format.h>

#include <ctrl/io/files.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdlib>

namespace ctrl::tool {

namespace {

// "--iterations (default 100)" for each parameter of an application, or "".
std::string parameters_line(const loop::Settings& s) {
  std::string text;
  for (const loop::Parameter& p : s.parameters())
    text += fmt::format("{}--{} (default {})", text.empty() ? "" : ", ", p.name, p.value);
  return text;
}

// The help of APP: every application of apps::catalog(), with what it computes, its default N and
// its parameters.
std::string applications_help() {
  std::string text = "The application, one of:";
  for (const auto& name : apps::catalog().names()) {
    const auto& w = apps::catalog().find(name);
    text += "\n  " + w.summary(w.default_cols());
    if (const std::string p = parameters_line(apps::catalog().defaults(name)); !p.empty()) text += "; " + p;
  }
  return text;
}

}  // namespace

void AppArgs::add_to(CLI::App* cmd) {
  cmd->add_option("app", name, applications_help())->required();
  // Every parameter once, its help naming the applications that take it.
  struct Option {
    std::string name, help;
    bool integer;
  };
  std::vector<Option> options;
  for (const auto& app : apps::catalog().names()) {
    const loop::Settings defaults = apps::catalog().defaults(app);
    for (const loop::Parameter& p : defaults.parameters()) {
      const std::string line = fmt::format("{}: {} (default {})", app, p.help, p.value);
      auto it = std::find_if(options.begin(), options.end(), [&](const Option& o) { return o.name == p.name; });
      if (it == options.end()) {
        options.push_back({p.name, line, p.integer});
      } else {
        it->help += "; " + line;
        it->integer = it->integer && p.integer;
      }
    }
  }
  for (const Option& o : options)
    cmd->add_option_function<double>(
           "--" + o.name, [this, name = o.name](const double& v) { given.emplace_back(name, v); }, o.help)
        ->type_name(o.integer ? "INT" : "FLOAT");
}

std::shared_ptr<const loop::Workload> AppArgs::workload(const std::vector<DeviceSpec>& devices) const {
  const loop::Catalog& catalog = apps::catalog_for(devices);
  loop::Settings s = catalog.defaults(name);  // the application's name is the first thing to be wrong
  for (const auto& [parameter, value] : given) s.set(parameter, value);
  return catalog.make(name, s);
}

std::string cols_help() {
  std::string text = "N, the fixed dimension (by default";
  const auto names = apps::catalog().names();
  for (std::size_t i = 0; i < names.size(); ++i)
    text += fmt::format("{} {}: {}", i == 0 ? "" : ",", names[i], apps::catalog().find(names[i]).default_cols());
  return text + ")";
}

std::string describe(const loop::Workload& app, index_t cols) {
  const std::string s = app.settings().text();
  return app.summary(cols) + (s.empty() ? std::string() : " with " + s);
}

std::string round_text(int rep, int batch, double worst_relative_ci) {
  const std::string runs = fmt::format("round {}, {} run{} each", rep, batch, batch == 1 ? "" : "s");
  if (!std::isfinite(worst_relative_ci) || worst_relative_ci > 1) return runs + ", interval > ±100 % of a mean near 0";
  return fmt::format("{}, interval ±{:.1f} %", runs, 100 * worst_relative_ci);
}

void prefer_pci_order_for_cuda() { ::setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 0); }

void CpuPowerArg::add_to(CLI::App* cmd) {
  cmd->add_option_function<double>(
         "--cpu-power", [this](const double& w) { watts = w; },
         "Watts drawn by one busy CPU core, to estimate the energy of CPU processors that no counter measures (no "
         "RAPL); default: ctrl's table of rated CPUs, by model (docs/energy.md)")
      ->type_name("WATTS");
}

void CpuPowerArg::apply(energy::MeterEnvironment& env) const {
  if (!watts) return;
  try {
    energy::check_watts_per_core(*watts, "--cpu-power");
  } catch (const UsageError& e) {
    throw exit_error(exit_bad_input, e.what());
  }
  env.estimate.watts_per_core = *watts;
}

void MeasureArgs::add_to(CLI::App* cmd) {
  cmd->add_option("--min-reps", min_reps, "Fewest measured rounds")->capture_default_str();
  cmd->add_option("--max-reps", max_reps, "Most measured rounds")->capture_default_str();
  cmd->add_option("--precision", precision,
                  "Stop when the 95% confidence interval of every mean is within this fraction of it")
      ->capture_default_str();
  cmd->add_option("--max-seconds", max_seconds, "No new round after this long (0: no limit)")->capture_default_str();
  cmd->add_option("--base-power", base_power,
                  "A device's base power, DEVICE=WATTS (default: the profile's, else measured idle)");
  cmd->add_option("--idle-seconds", idle_seconds,
                  "Idle window to measure base powers known from nowhere else (0: do not)")
      ->capture_default_str();
  cmd->add_flag("--no-energy", no_energy, "Measure time only");
  cpu_power.add_to(cmd);
  cmd->add_option("--min-window", min_window,
                  "Shortest energy window in seconds (default: from the meters); rounds last at least this long");
  cmd->add_option("--min-round", min_round,
                  "Shortest round in seconds: every processor repeats its block until the round is over")
      ->capture_default_str();
  cmd->add_option("--seed", seed, "Seed of the input data")->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--progress", progress, "auto (a bar on a terminal, else lines), bar, plain or none")
      ->check(CLI::IsMember({"auto", "bar", "plain", "none"}))
      ->capture_default_str();
}

std::vector<std::pair<std::string, double>> MeasureArgs::base_powers() const {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& b : base_power) out.push_back(loop::parse_device_value(b, "--base-power"));
  return out;
}

namespace {

// A duration option: finite, at least 0 and at most an hour (a round, a window or an idle period
// longer than that is a typo, and 1e10 would overflow the clocks that wait for it).
void check_seconds(double s, const char* option) {
  constexpr double most = 3600;
  if (!(s >= 0 && s <= most))
    throw exit_error(exit_bad_input, fmt::format("{} {}: give seconds from 0 to {:g}", option, s, most));
}

}  // namespace

void MeasureArgs::check() const {
  check_seconds(min_round, "--min-round");
  check_seconds(idle_seconds, "--idle-seconds");
  if (min_window != -1) check_seconds(min_window, "--min-window");  // -1: from the meters
  // The stopping rule's own bounds (--min-reps, --max-reps, --max-seconds, a positive --precision)
  // are checked where the rule is, loop::StopRule::validate; a command's interval also stays
  // below its mean (the library takes wider ones, to stop early).
  if (!(precision < 1))
    throw exit_error(exit_bad_input, fmt::format("--precision {}: give a fraction above 0 and below 1", precision));
}

namespace {

std::atomic<loop::StopFlag*> interrupted{nullptr};  // read by the handler

extern "C" void on_interrupt(int sig) {
  std::signal(SIGINT, io::remove_temporary_files_and_die);
  std::signal(SIGTERM, io::remove_temporary_files_and_die);
  if (loop::StopFlag* stop = interrupted.load(); stop != nullptr)
    stop->store(true);
  else
    io::remove_temporary_files_and_die(sig);
}

}  // namespace

InterruptScope::InterruptScope(loop::StopFlag& stop) {
  interrupted = &stop;
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);  // in an MPI job the launcher's SIGTERM is the Communicator's
}

InterruptScope::~InterruptScope() { interrupted = nullptr; }

}  // namespace ctrl::tool
