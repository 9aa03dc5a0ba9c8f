#include "run_report.hpp"

#include <ctrl/loop/learn.hpp>

#include "loop_common.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace ctrl::tool {

namespace {

using json = nlohmann::ordered_json;

json estimate(const loop::Estimate& e) { return json{{"mean", e.mean}, {"ci", e.ci}, {"n", e.n}}; }
json optional(std::optional<double> v) { return v ? json(*v) : json(nullptr); }

json processor_json(const loop::ProcessorRun& r) {
  json p{{"processor", r.name}, {"rows", r.rows}};
  p["time"] = {{"measured", r.rows ? estimate(r.time) : json(nullptr)},
               {"predicted", optional(r.predicted.time)},
               {"error", optional(r.rows ? relative_error(r.time.mean, r.predicted.time) : std::nullopt)}};
  if (r.energy)
    p["energy"] = {
        {"measured", estimate(*r.energy)},
        {"predicted", optional(r.predicted.energy)},
        {"error", optional(relative_error(r.energy->mean, r.predicted.energy))},
        {"held", {{"measured", r.held ? estimate(*r.held) : json(nullptr)}, {"predicted", optional(r.predicted.held)}}},
        {"source", r.energy_source},
        {"provenance", energy::to_string(r.energy_provenance)}};
  else
    p["energy"] = {{"measured", nullptr}, {"absent", r.energy_absent}};
  p["cores_taken_by_others"] = r.cores_taken;
  return p;
}

bool estimated(const loop::ProcessorRun& r) { return r.energy_provenance == energy::Provenance::estimated; }

// The names of the processors whose energy the total covers.
std::vector<std::string> covered(const loop::RunOutcome& o) {
  std::vector<std::string> names;
  for (const auto& r : o.processors)
    if (r.energy) names.push_back(r.name);
  return names;
}

// The processors whose energy is measured or estimated (saying so), and the others with the reason.
std::pair<std::vector<std::string>, std::vector<std::string>> metered(const loop::RunOutcome& o) {
  std::vector<std::string> with, without;
  for (const auto& r : o.processors) {
    if (!r.energy)
      without.push_back(r.name + " (" + r.energy_absent + ")");
    else
      with.push_back(r.name + (estimated(r) ? " (estimated: " + r.energy_source + ")" : ""));
  }
  return {with, without};
}

std::string joined(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const auto& s : parts) out += (out.empty() ? "" : separator) + s;
  return out;
}

constexpr const char* row_format = "{:<14} {:>7}  {:>20} {:>11} {:>8}  {:>20} {:>11} {:>8}\n";

std::string processor_row(const loop::ProcessorRun& r) {
  const std::string tm =
      r.rows ? fmt::format("{} ±{:.1f}%", format_seconds(r.time.mean), 100 * r.time.relative_ci()) : "idle";
  const std::string tp = r.predicted.time ? format_seconds(*r.predicted.time) : "—";
  std::string em = "—", ep = "—", ee = "—";
  if (r.energy) {
    // "≈": an estimate (energy/estimate.hpp), not a meter's reading.
    em = fmt::format("{}{} ±{}", estimated(r) ? "≈" : "", format_joules(r.energy->mean), format_joules(r.energy->ci));
    if (r.predicted.energy) ep = format_joules(*r.predicted.energy);
    ee = format_percent(relative_error(r.energy->mean, r.predicted.energy));
  }
  return fmt::format(fmt::runtime(row_format), r.name, r.rows, tm, tp,
                     format_percent(r.rows ? relative_error(r.time.mean, r.predicted.time) : std::nullopt), em, ep, ee);
}

std::string total_row(const RunReport& r, index_t rows) {
  const auto& wall = r.outcome.measured.wall;
  const auto& t = r.totals;
  return fmt::format(fmt::runtime(row_format), "total", rows,
                     fmt::format("{} ±{:.1f}%", format_seconds(wall.mean), 100 * wall.relative_ci()),
                     t.time_predicted ? format_seconds(*t.time_predicted) : "—",
                     format_percent(relative_error(wall.mean, t.time_predicted)),
                     t.energy_measured ? format_joules(*t.energy_measured) : "—",
                     t.energy_predicted ? format_joules(*t.energy_predicted) : "—",
                     format_percent(relative_error(t.energy_measured, t.energy_predicted)));
}

// The held tails inside the energies above: what each device drew above base after its block
// while the others worked (ctrl/loop/held.hpp), measured beside predicted.
void write_held_note(std::ostream& out, const RunReport& r) {
  std::vector<std::string> parts;
  for (const auto& p : r.outcome.processors) {
    if (!p.held && !p.predicted.held) continue;
    parts.push_back(fmt::format("{} {} measured, {} predicted", p.name, p.held ? format_joules(p.held->mean) : "—",
                                p.predicted.held ? format_joules(*p.predicted.held) : "—"));
  }
  if (!parts.empty())
    out << "of which held after its own block, while the others worked: " << joined(parts, "; ") << '\n';
}

void write_energy_note(std::ostream& out, const RunReport& r) {
  const auto [with, without] = metered(r.outcome);
  if (with.empty()) {
    out << "energy: absent on every processor — neither measured nor estimated here (--cpu-power estimates a CPU's)\n";
    return;
  }
  out << "energy: dynamic energy of " << joined(with, ", ")
      << (without.empty() ? std::string() : " only; absent: " + joined(without, "; "))
      << ", each over the whole execution (common start to the last completion)\n";
  write_held_note(out, r);
  if (r.totals.total_energy)
    out << fmt::format("total row: total energy = dynamic + {:g} W (the front's base power) x time\n",
                       r.plan.model.base_power);
}

}  // namespace

std::optional<double> relative_error(std::optional<double> measured, std::optional<double> predicted) {
  if (!measured || !predicted || *predicted == 0) return std::nullopt;
  return (*measured - *predicted) / *predicted;
}

std::string run_json(const RunReport& r) {
  const loop::RunOutcome& o = r.outcome;
  const loop::RunTotals& t = r.totals;
  json procs = json::array();
  for (const auto& p : o.processors) procs.push_back(processor_json(p));
  json parameters = json::object();
  for (const loop::Parameter& p : r.app.settings().parameters()) parameters[p.name] = r.app.settings()[p.name];
  json doc{{"app", r.app.name()},
           {"parameters", parameters},
           {"cols", o.cols},
           {"rows", r.plan.total_rows()},
           {"distribution_from", r.plan.source},
           {"chosen_because", r.plan.reason},
           {"interpolated", r.plan.interpolated},
           {"unconverged", r.plan.unconverged},
           {"rounds", o.measured.reps},
           {"batch", o.measured.batch},
           {"converged", o.measured.converged},
           {"processors", procs}};
  doc["total"] = {{"time",
                   {{"measured", estimate(o.measured.wall)},
                    {"predicted", optional(t.time_predicted)},
                    {"error", optional(relative_error(o.measured.wall.mean, t.time_predicted))}}},
                  {"energy",
                   {{"kind", t.total_energy ? "total" : "dynamic"},
                    {"measured", optional(t.energy_measured)},
                    {"predicted", optional(t.energy_predicted)},
                    {"error", optional(relative_error(t.energy_measured, t.energy_predicted))},
                    {"covers", covered(o)}}}};
  json drift = json::array();
  for (const loop::Drift& d : loop::drifts(o))
    drift.push_back({{"processor", d.processor},
                     {"rows", d.rows},
                     {"measured", d.measured},
                     {"predicted", d.predicted},
                     {"interval", d.interval},
                     {"advice", d.advice}});
  doc["off_prediction"] = drift;
  doc["learned_rows"] = r.learned.size();
  doc["check"] = {{"ok", o.check.ok},
                  {"worst", o.check.worst},
                  {"rows", o.check.rows_checked},
                  {"method", o.check.method},
                  {"detail", o.check.detail}};
  return doc.dump(2) + "\n";
}

void write_run_table(std::ostream& out, const RunReport& r) {
  const loop::Plan& plan = r.plan;
  const loop::MeasureResult& res = r.outcome.measured;
  const index_t rows = plan.total_rows();
  out << describe(r.app, plan.cols) << fmt::format(" (N from {})\n", plan.cols_from);
  std::string dist;
  for (std::size_t i = 0; i < plan.processors.size(); ++i)
    dist += fmt::format(" {}={}", plan.processors[i], plan.rows[i]);
  out << fmt::format("distribution ({} rows) from {}:{}\n", rows, plan.source, dist);
  if (!plan.reason.empty()) out << "chosen: " << plan.reason << '\n';
  out << fmt::format("measured: {} round{} of {} run{} each; 95% CI of every mean within {:.1f}%: {}\n\n", res.reps,
                     res.reps == 1 ? "" : "s", res.batch, res.batch == 1 ? "" : "s", 100 * r.precision,
                     res.converged ? "yes" : "no (" + res.limiting + ")");
  out << fmt::format(fmt::runtime(row_format), "processor", "rows", "time measured", "predicted", "error",
                     "dynamic energy", "predicted", "error");
  for (const auto& p : r.outcome.processors) out << processor_row(p);
  out << total_row(r, rows);
  out << "\ntotal time: from the common start to the last processor's completion; predicted: "
      << (plan.time ? "the front's" : "the largest profile time") << '\n';
  if (!plan.interpolated.empty())
    out << "predicted between measured sizes (interpolated, not measured): " << plan.interpolated << '\n';
  if (!plan.unconverged.empty())
    out << "predicted from sizes the profile did not converge at (less certain than its precision): "
        << plan.unconverged << '\n';
  write_energy_note(out, r);
  const loop::Check& check = r.outcome.check;
  out << fmt::format("check: {} — {} ({} rows; worst error {:.3g} of its tolerance){}\n",
                     check.ok ? "passed" : "FAILED", check.method, check.rows_checked, check.worst,
                     check.ok ? std::string() : "\n  " + check.detail);
  for (const loop::Drift& d : loop::drifts(r.outcome)) out << "off its prediction: " << d.advice << '\n';
  if (!r.learned.empty())
    out << fmt::format("learned: {} row{} added to {} (measured_in = run); the next front and plan use them\n",
                       r.learned.size(), r.learned.size() == 1 ? "" : "s", r.plan.profile);
}

}  // namespace ctrl::tool
