// `ctrl run --pick all`: the points of a front side by side, measured beside predicted, with the
// worst named (run_report.hpp).
#include "front_format.hpp"
#include "loop_common.hpp"
#include "run_report.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

namespace ctrl::tool {

namespace {

using json = nlohmann::ordered_json;

struct PointErrors {
  std::optional<double> time, energy;
};

// Report k's place in the front (the runs may be a spread of its points).
std::size_t point_of(const std::vector<RunReport>& reports, std::size_t k) {
  return reports[k].plan.front_point > 0 ? reports[k].plan.front_point : k + 1;
}

PointErrors errors_of(const RunReport& r) {
  return {relative_error(r.outcome.measured.wall.mean, r.totals.time_predicted),
          relative_error(r.totals.energy_measured, r.totals.energy_predicted)};
}

// The point (index) with the largest |error| among `which`, by `pick`; nullopt when none has one.
template <class Pick>
std::optional<std::size_t> worst(const std::vector<RunReport>& reports, const std::vector<std::size_t>& which,
                                 Pick pick) {
  std::optional<std::size_t> w;
  for (const std::size_t k : which) {
    const auto e = pick(errors_of(reports[k]));
    if (e && (!w || std::fabs(*e) > std::fabs(*pick(errors_of(reports[*w]))))) w = k;
  }
  return w;
}

// The points grouped by the processor that decides their time ("" when unknown), in first order.
std::vector<std::pair<std::string, std::vector<std::size_t>>> by_decider(const std::vector<RunReport>& reports) {
  std::vector<std::pair<std::string, std::vector<std::size_t>>> groups;
  for (std::size_t k = 0; k < reports.size(); ++k) {
    const std::string who = loop::deciding_processor(reports[k].plan);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == who; });
    if (it == groups.end()) it = groups.insert(groups.end(), {who, {}});
    it->second.push_back(k);
  }
  return groups;
}

// The points of `which` with the worst time and the worst dynamic energy.
std::pair<std::optional<std::size_t>, std::optional<std::size_t>> worst_points(const std::vector<RunReport>& reports,
                                                                               const std::vector<std::size_t>& which) {
  return {worst(reports, which, [](const PointErrors& e) { return e.time; }),
          worst(reports, which, [](const PointErrors& e) { return e.energy; })};
}

std::string worst_text(const std::vector<RunReport>& reports, const std::vector<std::size_t>& which) {
  const auto [t, e] = worst_points(reports, which);
  return fmt::format(
      "time {}, dynamic energy {}",
      t ? fmt::format("{} at point {}", format_percent(errors_of(reports[*t]).time), point_of(reports, *t)) : "—",
      e ? fmt::format("{} at point {}", format_percent(errors_of(reports[*e]).energy), point_of(reports, *e)) : "—");
}

std::vector<std::size_t> all_points(std::size_t n) {
  std::vector<std::size_t> v(n);
  for (std::size_t k = 0; k < n; ++k) v[k] = k;
  return v;
}

}  // namespace

void write_front_runs_table(std::ostream& out, const std::vector<RunReport>& reports) {
  for (std::size_t k = 0; k < reports.size(); ++k) {
    out << fmt::format("== point {} of {} ==\n", point_of(reports, k), reports.front().plan.front_points);
    write_run_table(out, reports[k]);
    out << '\n';
  }
  const std::size_t front = reports.front().plan.front_points;
  out << (reports.size() == front
              ? fmt::format("every point of the front, measured beside predicted ({} points):\n", front)
              : fmt::format("{} of the front's {} points, spread along it, measured beside predicted:\n",
                            reports.size(), front));
  constexpr const char* row = "{:>5}  {:<22} {:<14} {:>11} {:>11} {:>8}  {:>11} {:>11} {:>8}\n";
  out << fmt::format(row, "point", "distribution", "decided by", "time", "predicted", "error", "energy", "predicted",
                     "error");
  for (std::size_t k = 0; k < reports.size(); ++k) {
    const RunReport& r = reports[k];
    const auto e = errors_of(r);
    const std::string who = loop::deciding_processor(r.plan);
    out << fmt::format(row, point_of(reports, k), parts_text(r.plan.rows), who.empty() ? "—" : who,
                       format_seconds(r.outcome.measured.wall.mean),
                       r.totals.time_predicted ? format_seconds(*r.totals.time_predicted) : "—", format_percent(e.time),
                       r.totals.energy_measured ? format_joules(*r.totals.energy_measured) : "—",
                       r.totals.energy_predicted ? format_joules(*r.totals.energy_predicted) : "—",
                       format_percent(e.energy));
  }
  out << "worst: " << worst_text(reports, all_points(reports.size())) << '\n';
  for (const auto& [who, points] : by_decider(reports))
    if (!who.empty()) out << fmt::format("worst where {} decides the time: {}\n", who, worst_text(reports, points));
}

std::string front_runs_json(const std::vector<RunReport>& reports) {
  json points = json::array();
  for (std::size_t k = 0; k < reports.size(); ++k) {
    const auto e = errors_of(reports[k]);
    points.push_back({{"point", point_of(reports, k)},
                      {"decided_by", loop::deciding_processor(reports[k].plan)},
                      {"time_error", e.time ? json(*e.time) : json(nullptr)},
                      {"energy_error", e.energy ? json(*e.energy) : json(nullptr)},
                      {"run", json::parse(run_json(reports[k]))}});
  }
  json worst_by = json::object();
  const auto entry = [&](const std::vector<std::size_t>& which) {
    const auto [t, en] = worst_points(reports, which);
    return json{
        {"time", t ? json{{"point", point_of(reports, *t)}, {"error", *errors_of(reports[*t]).time}} : json(nullptr)},
        {"energy",
         en ? json{{"point", point_of(reports, *en)}, {"error", *errors_of(reports[*en]).energy}} : json(nullptr)}};
  };
  for (const auto& [who, which] : by_decider(reports))
    if (!who.empty()) worst_by[who] = entry(which);
  const json doc{{"points", points}, {"worst", entry(all_points(reports.size()))}, {"worst_by_decider", worst_by}};
  return doc.dump(2) + "\n";
}

}  // namespace ctrl::tool
