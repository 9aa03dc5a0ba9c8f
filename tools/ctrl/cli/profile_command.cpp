// ctrl profile APP [--device D...] [--sizes [D=]FROM:TO:STEP... | --refine FRONT.json] [--out FILE.csv] [options]
// Measures time and dynamic energy of every processor at its sizes, all processors at once, and
// appends them to a profile that `ctrl pareto` reads; an interrupted profile resumes when the same
// command is run again (docs/tool.md, docs/loop.md). Without --device, the processors `ctrl
// devices` suggests; without --sizes, sizes chosen by a calibration; without --out, APP-profile.csv.
#include "command.hpp"
#include "loop_common.hpp"
#include "job.hpp"
#include "progress_bar.hpp"

#include <ctrl/loop/args.hpp>
#include <ctrl/loop/front_file.hpp>
#include <ctrl/loop/machine.hpp>
#include <ctrl/loop/profile.hpp>

#include <ctrl/io/files.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <atomic>
#include <csignal>
#include <optional>
#include <cstdint>
#include <iostream>
#include <memory>
#include <algorithm>
#include <cmath>

namespace ctrl::tool {

namespace {

struct ProfileArgs {
  AppArgs app;
  std::vector<std::string> devices;
  int groups = 2;
  std::vector<std::string> sizes;
  std::string refine;
  int steps = loop::SizeCalibration{}.steps;
  double largest_run = loop::SizeCalibration{}.largest_run_s;
  std::string out;
  bool no_lock = false;
  std::string cols;
  MeasureArgs measure{30};
  PlatformArgs platform;
};

// "16 sizes from 64 to 1024" when evenly spaced ("64:1024:64" is what --sizes takes), else a list.
std::string sizes_text(const std::vector<index_t>& s) {
  if (s.size() < 3) return fmt::format("{}", fmt::join(s, ","));
  const index_t step = s[1] - s[0];
  for (std::size_t k = 2; k < s.size(); ++k)
    if (s[k] - s[k - 1] != step) return fmt::format("{} ({} sizes)", fmt::join(s, ","), s.size());
  return fmt::format("{}:{}:{} ({} sizes)", s.front(), s.back(), step, s.size());
}

class Observer final : public loop::ProfileObserver {
 public:
  explicit Observer(ProgressBar& bar) : bar_(bar) {}

  void note(const std::string& line) override { bar_.line("profile: " + line); }
  void plan(const std::vector<loop::Step>& todo, std::size_t done) override {
    total_ = todo.size();
    for (const auto& s : todo) todo_weight_ += weight(s);  // bigger sizes take longer
    bar_.line(fmt::format("profile: {} step{} to measure (a size of every processor at each){}", total_,
                          total_ == 1 ? "" : "s",
                          done ? fmt::format(" ({} already in the file)", done) : std::string()));
  }
  void size_begin(const loop::Step& step, std::size_t k) override {
    k_ = k;
    current_ = weight(step);
    bar_.update(fraction(0), fmt::format("sizes {} ({}/{})  warm-up", label(step), k + 1, total_), true);
  }
  void round(const loop::Step& step, const loop::RoundProgress& p) override {
    const double within = std::min(1.0, static_cast<double>(p.rep) / std::max(3, std::min(p.max_reps, 10)));
    bar_.update(fraction(within), fmt::format("sizes {} ({}/{})  {}", label(step), k_ + 1, total_,
                                              round_text(p.rep, p.batch, p.worst_relative_ci)));
  }
  void size_end(const loop::Step& step, const loop::MeasureResult& m,
                const std::vector<loop::ProfileRow>& rows) override {
    done_weight_ += weight(step);
    std::string text = fmt::format("profile: step {}/{}: {} round{}", k_ + 1, total_, m.reps, m.reps == 1 ? "" : "s");
    for (const auto& r : rows) {
      text += fmt::format("  {} {} rows {} ±{:.1f}% ({} runs/round)", r.processor, r.size, format_seconds(r.time),
                          100 * r.time_ci / r.time, r.batch);
      if (r.energy_measured) text += fmt::format(" {}", format_joules(*r.energy_measured));
    }
    if (!m.converged) text += fmt::format("  (not converged: {})", m.limiting);
    (void)step;
    bar_.line(text);
  }

 private:
  double fraction(double within) const {
    if (todo_weight_ <= 0) return 0;
    return (done_weight_ + within * current_) / todo_weight_;
  }
  // The sizes of a step are of about equal times: the step's largest share of rows stands for it.
  static double weight(const loop::Step& step) {
    double w = 0;
    for (const index_t x : step) w += static_cast<double>(x);
    return w;
  }
  static std::string label(const loop::Step& step) {
    const bool same = std::all_of(step.begin(), step.end(), [&](index_t x) { return x == step.front(); });
    return same ? std::to_string(step.front()) : fmt::format("{}", fmt::join(step, "/"));
  }

  ProgressBar& bar_;
  std::size_t total_ = 0, k_ = 0;
  double current_ = 0;
  double todo_weight_ = 0, done_weight_ = 0;
};

// --sizes: everyone's and per processor's; none: calibrated (--steps, --largest-run).
void set_sizes(const ProfileArgs& a, loop::ProfileRequest& req) {
  const loop::SizesOption sizes = loop::parse_sizes_options(a.sizes);
  req.sizes = sizes.all;
  req.sizes_of = sizes.of;
  req.calibration.steps = a.steps;
  req.calibration.largest_run_s = a.largest_run;
  if (req.sizes.empty() && req.sizes_of.empty()) req.calibration.validate();
}

// --refine FRONT.json: the sizes the front's points use and their neighbours, those the profile
// (--out) has not measured. False when there are none: nothing to measure.
bool set_refined_sizes(const ProfileArgs& a, const loop::Workload& app, loop::ProfileRequest& req) {
  if (!a.sizes.empty()) throw exit_error(exit_bad_input, "--refine chooses the sizes: give it or --sizes, not both");
  const io::FileArgument files[] = {{"--refine", a.refine, false}};
  io::check_files(files);
  const loop::FrontFile front = loop::read_front_file(a.refine);
  const loop::ProfileFile existing = loop::read_profile_file(req.out);
  if (existing.rows.empty())
    throw exit_error(
        exit_bad_input,
        fmt::format("--refine: {} holds no profile to refine (give the profile the front came from as --out)",
                    req.out));
  if (existing.processors != front.processors)
    throw exit_error(exit_bad_input,
                     fmt::format("--refine: {} is a front of {}, {} a profile of {}", a.refine,
                                 fmt::join(front.processors, ", "), req.out, fmt::join(existing.processors, ", ")));
  if (req.devices.empty())
    for (const auto& name : front.processors) req.devices.push_back(parse_device(name));
  req.sizes_of = loop::refine_sizes(front.front, front.processors, existing, app.granularity(), app.min_rows());
  return !req.sizes_of.empty();
}

// The processors: --device, else (one process) the ones `ctrl devices` suggests.
void set_devices(const ProfileArgs& a, loop::ProfileRequest& req) {
  for (const auto& d : a.devices) req.devices.push_back(parse_device(d));
  if (!a.refine.empty()) return;  // the front's, unless given
  if (req.devices.empty() && a.platform.selection.empty()) {
    if (a.groups < 1) throw exit_error(exit_bad_input, "--groups: at least 1 CPU group");
    req.devices = loop::suggested_processors(loop::probe_machine(), a.groups);
  }
}

int run_profile_command(const ProfileArgs& a, Job& job) {
  loop::ProfileRequest req;
  const auto named = a.app.workload();  // the application is the first thing to be wrong
  set_devices(a, req);
  req.out = a.out.empty() ? named->name() + "-profile.csv" : a.out;
  req.unlocked_ok = a.no_lock;
  if (a.refine.empty()) {
    set_sizes(a, req);
  } else if (!set_refined_sizes(a, *named, req)) {
    std::cout << fmt::format("profile {}: every size the front {} uses, and its neighbours, is measured already\n",
                             req.out, a.refine);
    return exit_ok;
  }
  if (!a.cols.empty()) req.cols = loop::parse_positive(a.cols, "--cols");
  req.rule = {a.measure.min_reps, a.measure.max_reps, a.measure.precision, a.measure.max_seconds};
  req.rule.validate();
  req.team.energy = !a.measure.no_energy;
  a.measure.cpu_power.apply(req.team.meters);
  req.team.min_window_s = a.measure.min_window;
  a.measure.check();
  req.team.min_round_s = a.measure.min_round;
  req.base_power = a.measure.base_powers();
  req.idle_seconds = a.measure.idle_seconds;
  req.seed = a.measure.seed;
  prefer_pci_order_for_cuda();

  // The first Ctrl-C or SIGTERM ends the profile after the size in progress (exit 130, the sizes
  // measured are kept).
  loop::StopFlag stop{false};
  std::optional<InterruptScope> watching(std::in_place, stop);
  std::string sizes = fmt::format("{}", fmt::join(req.sizes, ","));
  for (const auto& [name, own] : req.sizes_of) sizes += fmt::format(" {}={}", name, fmt::join(own, ","));
  if (req.sizes.empty() && req.sizes_of.empty())
    sizes = fmt::format("calibrated: {} steps up to {} s", req.calibration.steps, req.calibration.largest_run_s);
  const bool distributed = a.platform.distributed(!req.devices.empty());
  loop::agree_on_problem(job.group(a.platform, distributed),
                         fmt::format("{} --cols {} --sizes {} --seed {}", named->identity(),
                                     a.cols.empty() ? "(default)" : a.cols, sizes, req.seed));
  // Rank 0 writes the profile: its --out is checked there, before any device is made.
  job.from_root([&] {
    const io::FileArgument files[] = {{"--selection", a.platform.selection, false}, {"--out", req.out, true}};
    io::check_files(files);
    return std::string();
  });
  const auto platform = job.platform(a.platform, distributed, req.devices, req.team);
  const auto workload = a.app.workload(platform->local_devices());  // compiled for this member's devices
  const loop::Workload& app = *workload;
  ProgressBar bar(ProgressBar::parse_mode(platform->is_root() ? a.measure.progress : std::string("none")));
  Observer obs(bar);
  const loop::ProfileOutcome o = loop::run_profile(app, req, *platform, obs, &stop);
  watching.reset();
  bar.finish();

  std::cout << describe(app, o.cols) << '\n';
  std::cout << fmt::format("profile {}: {} step{} measured now, {} already there", req.out, o.measured,
                           o.measured == 1 ? "" : "s", o.resumed)
            << (o.unconverged ? fmt::format(", {} not converged within the repetition bound", o.unconverged) : "")
            << '\n';
  for (std::size_t i = 0; i < o.processors.size(); ++i) {
    const auto& p = o.processors[i];
    std::cout << fmt::format("  {:<14} {}", p.name, i < o.sizes.size() ? "sizes " + sizes_text(o.sizes[i]) + "; " : "");
    std::cout << p.description;
    if (p.has_energy())
      std::cout << fmt::format("; energy {} by {}, base power {:.2f} W ({})", energy::to_string(p.energy_provenance),
                               p.energy_source, p.base_power_w.value_or(0.0), p.base_power_origin);
    else
      std::cout << "; energy absent: " << p.energy_absent;
    std::cout << '\n';
  }
  if (o.platform_base_power)
    std::cout << fmt::format("  platform base power (devices with a meter): {:.2f} W\n", *o.platform_base_power);
  if (o.interrupted) {
    std::cout.flush();  // the report above first; the interruption is a message, on stderr
    std::cerr << "ctrl: profile: interrupted: the steps measured so far are in " << req.out
              << "; run the same command again to resume\n";
    return 130;
  }
  // A processor without energy gets no front of time and energy (ctrl pareto refuses one).
  const bool all_energy = std::all_of(o.processors.begin(), o.processors.end(),
                                      [](const loop::ProcessorInfo& p) { return p.has_energy(); });
  std::cout << fmt::format(
      "next: ctrl pareto --profile {} --workload {}{}   (any workload up to {}, the processors' "
      "largest sizes together{})\n",
      req.out, o.capacity, all_energy ? "" : " --time-only", o.capacity,
      all_energy ? "" : "; time only: a processor has no energy, see above");
  return exit_ok;
}

}  // namespace

void add_profile(CLI::App& app, action& run, Job& job) {
  auto args = std::make_shared<ProfileArgs>();
  CLI::App* cmd = app.add_subcommand(
      "profile",
      "Measure time and energy of every processor at every size, all at once, into a profile for ctrl pareto");
  args->app.add_to(cmd);
  cmd->add_option("--device", args->devices,
                  "A processor (repeat): cpu:0-7, cuda:0, offload:0-3 (default: those `ctrl devices` suggests)");
  cmd->add_option("--groups", args->groups,
                  "Without --device: the CPU groups the suggested processors split the cores into")
      ->capture_default_str();
  cmd->add_option("--sizes", args->sizes,
                  "Rows per processor: FROM:TO:STEP or a,b,c for every processor, DEVICE=FROM:TO:STEP for one "
                  "(repeatable; every processor needs as many sizes). Default: chosen by a calibration");
  cmd->add_option("--refine", args->refine,
                  "A front (`ctrl pareto --format json`) of the --out profile: measure only the sizes its points use "
                  "and their neighbours (±2 %), those not measured yet; the processors are the front's");
  cmd->add_option("--steps", args->steps, "Without --sizes: the sizes per processor")->capture_default_str();
  cmd->add_option("--largest-run", args->largest_run,
                  "Without --sizes: seconds of a processor's run at its largest size (sizes from there down)")
      ->capture_default_str();
  cmd->add_option("--out", args->out, "The profile file (CSV); an existing one is resumed (default: APP-profile.csv)")
      ->check(file_name);
  cmd->add_flag("--no-lock", args->no_lock,
                "Where --out's file system cannot lock it (Lustre without -o flock): write it unlocked; no other "
                "command may write it meanwhile");
  cmd->add_option("--cols", args->cols, cols_help());
  args->measure.add_to(cmd);
  args->platform.add_to(cmd);
  cmd->callback([&run, &job, args] { run = [args, &job] { return run_profile_command(*args, job); }; });
}

}  // namespace ctrl::tool
