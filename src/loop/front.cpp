#include <ctrl/loop/front.hpp>

#include <ctrl/loop/held.hpp>
#include <ctrl/partition/classes.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace ctrl::loop {

std::string FrontReport::energy_name() const {
  return model.kind == partition::EnergyKind::total ? "total" : "dynamic";
}

std::vector<bool> energy_metered(const LoadedProfile& loaded) {
  std::vector<bool> metered;
  for (const auto& p : loaded.profile) {
    if (loaded.file)
      metered.push_back(std::any_of(loaded.file->rows.begin(), loaded.file->rows.end(), [&](const ProfileRow& r) {
        return r.processor == p.name() && r.energy_source != "none";
      }));
    else
      metered.push_back(std::any_of(p.points().begin(), p.points().end(), [](const auto& q) { return q.energy > 0; }));
  }
  return metered;
}

namespace {

// The sum of the profile's own base powers when `ctrl profile` measured one for every processor
// (each on a meter of its own: what its dynamic energies exclude), and in `origin` where it comes
// from; otherwise nullopt and, in `origin`, what is missing. 0 W would silently make total energy
// dynamic energy, so anything else is the caller's to give.
std::optional<double> profile_base_power(const LoadedProfile& loaded, const std::string& path, std::string& origin) {
  const auto found = loaded.file ? base_powers(*loaded.file) : std::vector<std::pair<std::string, double>>{};
  std::string missing, parts;
  for (const auto& name : loaded.profile.names())
    if (std::none_of(found.begin(), found.end(), [&](const auto& b) { return b.first == name; }))
      missing += (missing.empty() ? "" : ", ") + name;
  if (!missing.empty()) {
    origin = path + (loaded.file ? " has no base power for " + missing
                                 : " holds no base powers (only `ctrl profile` files record them)");
    return std::nullopt;
  }
  double sum = 0;
  for (const auto& [name, watts] : found) {
    sum += watts;
    parts += fmt::format("{}{} {:g} W", parts.empty() ? "" : ", ", name, watts);
  }
  origin = fmt::format("the sum of the base powers in {}: {}", path, parts);
  return sum;
}

void check_request(const FrontRequest& r) {
  if (r.workload <= 0) throw UsageError(fmt::format("the workload {} is not positive", r.workload));
  if (r.base_power && !(std::isfinite(*r.base_power) && *r.base_power >= 0))
    throw UsageError(fmt::format("{}: {} W is not a base power (a finite number of watts, at least 0)",
                                 r.names.base_power, *r.base_power));
  if (!(std::isfinite(r.options.epsilon) && r.options.epsilon >= 0))
    throw UsageError(fmt::format("epsilon {} is not a positive number (0.01: within 1 %) or 0", r.options.epsilon));
  for (const double b : r.budgets)
    if (!(std::isfinite(b) && b >= 0))
      throw UsageError(fmt::format("the time budget {} is not a slowdown (0.05: 5 % over the fastest time)", b));
  if (r.time_only && (r.energy == partition::EnergyKind::total || r.base_power || r.options.epsilon > 0))
    throw UsageError("a front of time only compares no energy: total energy, a base power and epsilon do not apply");
}

// The energy of the report: dynamic, or total with the request's base power, else the profile's.
void choose_energy(FrontReport& report, const LoadedProfile& loaded, const FrontRequest& r) {
  report.model.kind = r.energy;
  if (r.base_power) {
    report.model.base_power = *r.base_power;
    report.base_power_origin = "from " + r.names.base_power;
    return;
  }
  if (r.energy != partition::EnergyKind::total) return;
  const auto watts = profile_base_power(loaded, r.profile, report.base_power_origin);
  if (!watts)
    throw MissingBasePowerError(
        fmt::format("{} needs the platform's base power: give {} W (the total that `ctrl power --idle` prints); {}",
                    r.names.total_energy, r.names.base_power, report.base_power_origin));
  report.model.base_power = *watts;
}

// The load-balanced solution (equal times), with the spread of its times, and the even split; their
// energies with the held power of every point (held.hpp). Past the exact tables' limit (a
// cluster's approximate front), left out and said so.
void balance(FrontReport& report, const partition::ProfileModel& model, const HeldPower& held) {
  try {
    report.load_balanced = model_balanced(model, held, report.workload, Balance::load_balanced, report.model);
    report.even_split = model_balanced(model, held, report.workload, Balance::even, report.model);
  } catch (const partition::TooLargeError& e) {
    report.load_balanced.reset();
    report.even_split.reset();
    report.omitted.push_back(
        fmt::format("the load-balanced distribution, the even split and the gains against them: {}", e.what()));
    return;
  }
  if (report.load_balanced) {
    const auto& x = report.load_balanced->distribution;
    report.balance = partition::time_spread(model.point_profile(x, report.workload), x, report.workload);
  }
}

// The paper's analysis of the front against the balanced distributions, and the dynamic- against
// the total-energy optimum with the request's base power, else the profile's.
void analyse(FrontReport& report, const partition::Front& dynamic, const LoadedProfile& loaded, const FrontRequest& r) {
  report.analysis = partition::analyse_front(report.front, report.load_balanced, r.budgets);
  std::optional<double> watts;
  if (report.model.kind == partition::EnergyKind::total || r.base_power) {
    watts = report.model.base_power;
    report.optima_origin = report.base_power_origin;
  } else if (!(watts = profile_base_power(loaded, r.profile, report.optima_origin))) {
    report.optima_origin =
        "it needs the platform's base power: give " + r.names.base_power + " W; " + report.optima_origin;
  }
  if (watts) report.optima = partition::energy_optima(dynamic, *watts);
  const std::vector<bool> metered = energy_metered(loaded);
  for (std::size_t i = 0; i < metered.size(); ++i)
    if (!metered[i]) report.unmetered.push_back(report.processors[i]);
}

// The processors whose profiled sizes did not all converge: their predictions are less certain
// than the profile's precision asked for.
void find_unconverged(FrontReport& report, const LoadedProfile& loaded) {
  if (!loaded.file) return;
  for (const auto& name : loaded.profile.names()) {
    FrontReport::Unconverged u{name, 0, 0};
    for (const ProfileRow& row : loaded.file->rows)
      if (row.processor == name) {
        ++u.of;
        u.sizes += row.converged ? 0 : 1;
      }
    if (u.sizes > 0) report.unconverged.push_back(u);
  }
}

// How the report's sizes are taken, and which points rest on interpolated ones.
void describe_model(FrontReport& report, const partition::ProfileModel& model) {
  const auto& o = model.options();
  if (!o.interpolate) return;
  report.interpolates = true;
  const partition::Size chunks = std::min(report.workload / o.granularity, o.resolution);
  report.model_line = fmt::format(
      "any multiple of {} row{} up to each processor's largest measured size, time and energy linear between "
      "measured sizes{}",
      o.granularity, o.granularity == 1 ? "" : "s",
      chunks * o.granularity == report.workload
          ? std::string()
          : fmt::format(" (the workload in {} chunks of {:.4g} rows)", chunks,
                        static_cast<double>(report.workload) / static_cast<double>(chunks)));
  for (const auto& s : report.front) report.interpolated.push_back(interpolation_note(model, s.distribution));
}

}  // namespace

FrontReport compute_front(const LoadedProfile& loaded, const FrontRequest& r) {
  check_request(r);
  // A zero that is no measurement would make a processor's energy free.
  if (!r.time_only && loaded.file) require_energy(*loaded.file, r.profile, r.names.time_only);
  FrontReport report;
  report.profile_path = r.profile;
  report.workload = r.workload;
  report.time_only = r.time_only;
  report.epsilon = r.options.epsilon;
  choose_energy(report, loaded, r);
  const partition::ProfileModel model = profile_model(loaded, r.sizes);
  if (loaded.file) report.provenance = processor_provenance(*loaded.file);
  report.processors = loaded.profile.names();
  report.classes = partition::processor_classes(loaded.profile).count();
  // The (time, total energy) front is a subset of the dynamic one (as in HTPOPTA), which the
  // comparison of the two energies' optima needs; time only has the time-optimal point alone.
  // Every energy with the held power of the devices that finish first (held.hpp).
  const HeldPower held = loaded.file && !r.time_only ? held_model(*loaded.file, &report.held_unknown) : HeldPower{};
  report.held_power = held.watts;
  const partition::Front dynamic =
      r.time_only ? model_time_optimal(model, r.workload) : model_front(model, held, r.workload, {}, r.options);
  if (dynamic.empty())
    throw InfeasibleError(fmt::format(
        "workload {} cannot be split exactly with the sizes in {} (with measured sizes only, or a profile not "
        "written by `ctrl profile`, every non-zero part must be a measured size of its processor; a granularity "
        "takes the sizes between them)",
        r.workload, r.profile));
  report.front = report.model.kind == partition::EnergyKind::total
                     ? model_reevaluate(model, held, dynamic, r.workload, report.model)
                     : dynamic;
  describe_model(report, model);
  find_unconverged(report, loaded);
  if (r.analysis) {
    balance(report, model, held);
    if (!r.time_only) analyse(report, dynamic, loaded, r);
  }
  return report;
}

FrontReport compute_front(const FrontRequest& request) { return compute_front(read_profile(request.profile), request); }

}  // namespace ctrl::loop
