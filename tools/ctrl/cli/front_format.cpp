#include "front_format.hpp"

#include "analysis_format.hpp"

#include <ctrl/io/csv.hpp>
#include <ctrl/loop/front_file.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

namespace ctrl::tool {

// Beyond this many processors a table shows distributions with runs folded ("3x218"), and the
// front's rows without a column per processor: a cluster's thousand columns help nobody.
constexpr std::size_t wide_platform = 16;

std::string parts_text(const partition::Distribution& x) {
  std::string out;
  for (std::size_t i = 0; i < x.size();) {
    std::size_t run = 1;
    while (x.size() > wide_platform && i + run < x.size() && x[i + run] == x[i]) ++run;
    if (run < 4) run = 1;
    out += (i != 0 ? " " : "") + std::to_string(x[i]) + (run > 1 ? "x" + std::to_string(run) : "");
    i += run;
  }
  return out;
}

// Beyond this many points a table shows this many, spread evenly by their place in the front.
constexpr std::size_t long_front = 60, shown_of_long = 40;

std::vector<std::size_t> shown_points(std::size_t n) {
  std::vector<std::size_t> out;
  const std::size_t want = n > long_front ? shown_of_long : n;
  for (std::size_t j = 0; j < want; ++j) {
    const std::size_t k = want == 1 ? 0 : (j * (n - 1) + (want - 1) / 2) / (want - 1);
    if (out.empty() || k != out.back()) out.push_back(k);
  }
  return out;
}

void write_table(std::ostream& out, const FrontReport& r) {
  const bool total = r.model.kind == partition::EnergyKind::total;
  out << fmt::format("Pareto front of (time, {} energy){}: workload {} on {} processors, from {}\n", r.energy_name(),
                     total ? fmt::format(" with base power {:g} W{}", r.model.base_power,
                                         r.base_power_origin.empty() ? "" : " (" + r.base_power_origin + ")")
                           : "",
                     r.workload, r.processors.size(), r.profile_path);
  out << provenance_line(r);
  out << classes_line(r);
  out << model_lines(r);
  if (r.epsilon > 0)
    out << fmt::format(
        "approximate front (--epsilon {:g}): every exact Pareto point is within a factor {:g} in time "
        "and in energy of one of these\n",
        r.epsilon, 1 + r.epsilon);
  out << fmt::format("{} {} distribution{}\n", r.front.size(), r.epsilon > 0 ? "non-dominated" : "Pareto-optimal",
                     r.front.size() == 1 ? "" : "s");
  const auto& t = r.time_optimal();
  const auto& e = r.energy_optimal();
  out << fmt::format("  time-optimal    {:>12.6g} s {:>14.6g} J   ({})\n", t.time, t.energy,
                     parts_text(t.distribution));
  out << fmt::format("  energy-optimal  {:>12.6g} s {:>14.6g} J   ({})\n", e.time, e.energy,
                     parts_text(e.distribution));
  write_balanced_lines(out, r);
  write_analysis_table(out, r);
  out << '\n';

  // Columns wide enough for the names and the largest part; on a wide platform one column of
  // folded distributions instead (the CSV and JSON formats list every part).
  const bool wide = r.processors.size() > wide_platform;
  std::vector<std::size_t> width(wide ? 0 : r.processors.size());
  for (std::size_t i = 0; i < width.size(); ++i) {
    width[i] = std::max<std::size_t>(r.processors[i].size(), 3);
    for (const auto& s : r.front) width[i] = std::max(width[i], std::to_string(s.distribution[i]).size());
  }
  const std::size_t idx = std::max<std::size_t>(std::to_string(r.front.size()).size(), 1);
  std::string header = fmt::format("{:>{}}  {:>12}  {:>14}", "#", idx, "time (s)", "energy (J)");
  for (std::size_t i = 0; i < width.size(); ++i) header += fmt::format("  {:>{}}", r.processors[i], width[i]);
  header += imbalance_header(r);
  if (wide) header += fmt::format("   distribution over {} processors (vxN: N in a row get v)", r.processors.size());
  out << header << '\n';
  // A long front (sizes between measured ones give one point per row moved) is shown at points
  // spread along it; CSV and JSON list every one.
  const std::vector<std::size_t> shown = shown_points(r.front.size());
  if (shown.size() < r.front.size())
    out << fmt::format("({} of the {} points, spread along the front; --format csv or json lists every one)\n",
                       shown.size(), r.front.size());
  for (const std::size_t k : shown) {
    const auto& s = r.front[k];
    std::string row = fmt::format("{:>{}}  {:>12.6g}  {:>14.6g}", k + 1, idx, s.time, s.energy);
    for (std::size_t i = 0; i < width.size(); ++i) row += fmt::format("  {:>{}}", s.distribution[i], width[i]);
    row += imbalance_cells(r, k);
    if (k == 0) row += "   time-optimal";
    if (k + 1 == r.front.size()) row += k == 0 ? ", energy-optimal" : "   energy-optimal";
    if (wide) row += "   (" + parts_text(s.distribution) + ")";
    if (r.rests_on_interpolation(k)) row += "   ~";
    row.erase(row.find_last_not_of(' ') + 1);  // the imbalance column's padding, on unmarked rows
    out << row << '\n';
  }
}

namespace {

// "held after a block (in every energy): cuda:0 44.8 W", and the processors without one.
std::string held_line(const FrontReport& r) {
  std::string held, unknown;
  for (std::size_t i = 0; i < r.held_power.size() && i < r.processors.size(); ++i)
    if (r.held_power[i] > 0)
      held += fmt::format("{}{} {:.3g} W", held.empty() ? "" : ", ", r.processors[i], r.held_power[i]);
  for (const auto& n : r.held_unknown) unknown += (unknown.empty() ? "" : ", ") + n;
  std::string line;
  if (!held.empty()) line += "held power after a block, in every energy below: " + held + "\n";
  if (!unknown.empty())
    line += "held power unknown (0 W) for " + unknown +
            ": the profile has no held_power (written before it, or with --idle-seconds 0); profile again to "
            "measure it\n";
  return line;
}

}  // namespace

std::string model_lines(const FrontReport& r) {
  std::string out;
  for (const auto& what : r.omitted) out += "not computed at this scale: " + what + "\n";
  if (!r.unconverged.empty()) {
    std::string who;
    for (const auto& u : r.unconverged)
      who += fmt::format("{}{} ({} of {} sizes)", who.empty() ? "" : ", ", u.processor, u.sizes, u.of);
    out += "not converged within the repetition bound: " + who +
           ": their times and energies are less certain than the profile's precision asked\n";
  }
  if (r.model_line.empty()) return out;
  std::size_t marked = 0;
  for (std::size_t k = 0; k < r.front.size(); ++k) marked += r.rests_on_interpolation(k) ? 1 : 0;
  out += "sizes: " + r.model_line + "\n";
  if (marked > 0)
    out += fmt::format("~: {} of the {} points rest on sizes between measured ones (interpolated), not measured\n",
                       marked, r.front.size());
  return out;
}

std::string provenance_line(const FrontReport& r) {
  if (r.provenance.size() != r.processors.size()) return held_line(r);
  std::string line;
  for (std::size_t i = 0; i < r.processors.size(); ++i)
    line += fmt::format("{}{} {}", line.empty() ? "" : ", ", r.processors[i], energy::to_string(r.provenance[i]));
  return "energies: " + line + "\n" + held_line(r);
}

std::string classes_line(const FrontReport& r) {
  if (r.classes == 0 || r.classes == r.processors.size()) return {};
  return fmt::format("{} processors in {} classes of identical profiles\n", r.processors.size(), r.classes);
}

void write_json(std::ostream& out, const FrontReport& r) { out << loop::front_report_json(r); }

void write_csv(std::ostream& out, const FrontReport& r) {
  out << "time,energy";
  for (const auto& name : r.processors) out << ',' << io::csv_field(name);
  // Where sizes between measured ones are taken, a last column says which points rest on them.
  if (r.interpolates) out << ",interpolated";
  out << '\n';
  for (std::size_t k = 0; k < r.front.size(); ++k) {
    const auto& s = r.front[k];
    out << fmt::format("{},{}", s.time, s.energy);
    for (const auto x : s.distribution) out << ',' << x;
    if (r.interpolates) out << ',' << (r.rests_on_interpolation(k) ? 1 : 0);
    out << '\n';
  }
}

}  // namespace ctrl::tool
