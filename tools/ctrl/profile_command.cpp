// ctrl profile APP --device D... --sizes FROM:TO:STEP --out FILE.csv [options]
// Measures time and dynamic energy of every processor at every size, all processors at once, and
// appends them to a profile that `ctrl pareto` reads; an interrupted profile resumes when the same
// command is run again (docs/tool.md, docs/loop.md).
#include "command.hpp"
#include "loop_common.hpp"
#include "job.hpp"
#include "progress_bar.hpp"

#include <ctrl/loop/args.hpp>
#include <ctrl/loop/profile.hpp>

#include <ctrl/io/files.hpp>

#include <fmt/format.h>

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
  std::vector<std::string> sizes;
  std::string out;
  std::string cols;
  MeasureArgs measure{30};
  PlatformArgs platform;
};

class Observer final : public loop::ProfileObserver {
 public:
  explicit Observer(ProgressBar& bar) : bar_(bar) {}

  void note(const std::string& line) override { bar_.line("profile: " + line); }
  void plan(const std::vector<index_t>& todo, std::size_t done) override {
    total_ = todo.size();
    for (const index_t s : todo) todo_weight_ += static_cast<double>(s);  // bigger sizes take longer
    bar_.line(fmt::format("profile: {} size{} to measure{}", total_, total_ == 1 ? "" : "s",
                          done ? fmt::format(" ({} already in the file)", done) : std::string()));
  }
  void size_begin(index_t size, std::size_t k) override {
    k_ = k;
    current_ = size;
    bar_.update(fraction(0), fmt::format("size {} ({}/{})  warm-up", size, k + 1, total_), true);
  }
  void round(index_t size, const loop::RoundProgress& p) override {
    const double within = std::min(1.0, static_cast<double>(p.rep) / std::max(3, std::min(p.max_reps, 10)));
    bar_.update(fraction(within),
                fmt::format("size {} ({}/{})  round {} x{}  ci {:.1f}%", size, k_ + 1, total_, p.rep, p.batch,
                            std::isfinite(p.worst_relative_ci) ? p.worst_relative_ci * 100 : 999.0));
  }
  void size_end(index_t size, const loop::MeasureResult& m,
                const std::vector<loop::ProfileRow>& rows) override {
    done_weight_ += static_cast<double>(size);
    std::string text = fmt::format("profile: size {} ({}/{}): {} round{}", size, k_ + 1, total_, m.reps,
                                   m.reps == 1 ? "" : "s");
    for (const auto& r : rows) {
      text += fmt::format("  {} {} ±{:.1f}% x{}", r.processor, format_seconds(r.time), 100 * r.time_ci / r.time,
                          r.batch);
      if (r.energy_measured) text += fmt::format(" {}", format_joules(*r.energy_measured));
    }
    if (!m.converged) text += fmt::format("  (not converged: {})", m.limiting);
    bar_.line(text);
  }

 private:
  double fraction(double within) const {
    if (todo_weight_ <= 0) return 0;
    return (done_weight_ + within * static_cast<double>(current_)) / todo_weight_;
  }

  ProgressBar& bar_;
  std::size_t total_ = 0, k_ = 0;
  index_t current_ = 0;
  double todo_weight_ = 0, done_weight_ = 0;
};

int run_profile_command(const ProfileArgs& a, Job& job) {
  loop::ProfileRequest req;
  const auto named = a.app.workload();  // the application is the first thing to be wrong
  if (a.devices.empty() && a.platform.selection.empty())
    throw exit_error(exit_bad_input, "profile: name the processors with --device (cpu:0-3, cuda:0), or the ranks' "
                                     "with --selection FILE");
  for (const auto& d : a.devices) req.devices.push_back(parse_device(d));
  req.sizes = loop::parse_sizes(a.sizes);
  req.out = a.out;
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
  std::string sizes;
  for (const index_t s : req.sizes) sizes += fmt::format("{}{}", sizes.empty() ? "" : ",", s);
  const bool distributed = a.platform.distributed(!req.devices.empty());
  loop::agree_on_problem(job.group(a.platform, distributed),
                   fmt::format("{} --cols {} --sizes {} --seed {}", named->identity(), a.cols.empty() ? "(default)" : a.cols, sizes,
                               req.seed));
  // Rank 0 writes the profile: its --out is checked there, before any device is made.
  job.from_root([&] {
    const io::FileArgument files[] = {{"--selection", a.platform.selection, false}, {"--out", a.out, true}};
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
  std::cout << fmt::format("profile {}: {} size{} measured now, {} already there", req.out, o.measured,
                           o.measured == 1 ? "" : "s", o.resumed)
            << (o.unconverged ? fmt::format(", {} not converged within the repetition bound", o.unconverged) : "")
            << '\n';
  for (const auto& p : o.processors) {
    std::cout << fmt::format("  {:<14} {}", p.name, p.description);
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
    std::cout << "interrupted: the sizes measured so far are in " << req.out
              << "; run the same command again to resume\n";
    return 130;
  }
  const index_t total_rows = req.sizes.back() * static_cast<index_t>(platform->size());
  // A processor without energy gets no front of time and energy (ctrl pareto refuses one).
  const bool all_energy = std::all_of(o.processors.begin(), o.processors.end(),
                                      [](const loop::ProcessorInfo& p) { return p.has_energy(); });
  std::cout << fmt::format("next: ctrl pareto --profile {} --workload N{}   (N up to {}{})\n", req.out,
                           all_energy ? "" : " --time-only", total_rows,
                           all_energy ? "" : "; time only: a processor has no energy, see above");
  return exit_ok;
}

}  // namespace

void add_profile(CLI::App& app, action& run, Job& job) {
  auto args = std::make_shared<ProfileArgs>();
  CLI::App* cmd = app.add_subcommand(
      "profile", "Measure time and energy of every processor at every size, all at once, into a profile for ctrl pareto");
  args->app.add_to(cmd);
  cmd->add_option("--device", args->devices, "A processor (repeat): cpu:0-7, cuda:0, offload:0-3");
  cmd->add_option("--sizes", args->sizes, "Rows per processor: FROM:TO:STEP, or a,b,c (repeatable)")->required();
  cmd->add_option("--out", args->out, "The profile file (CSV); an existing one is resumed")->required();
  cmd->add_option("--cols", args->cols, cols_help());
  args->measure.add_to(cmd);
  args->platform.add_to(cmd);
  cmd->callback([&run, &job, args] { run = [args, &job] { return run_profile_command(*args, job); }; });
}

}  // namespace ctrl::tool
