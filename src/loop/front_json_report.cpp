// A front's report as JSON (front.hpp, front_report_json): the front file that `ctrl run --front`
// reads (front_file.hpp), with the sizes' model and the HEPOPTA paper's analysis beside its fields
// (docs/partition.md lists them).
#include <ctrl/loop/front.hpp>
#include <ctrl/loop/front_file.hpp>

#include <nlohmann/json.hpp>

namespace ctrl::loop {

namespace {

using json = nlohmann::ordered_json;

json number_or_null(const std::optional<double>& v) { return v ? json(*v) : json(); }

json solution_json(const partition::Solution& s) {
  return json{{"time", s.time}, {"energy", s.energy}, {"distribution", s.distribution}};
}

json balanced_json(const FrontReport& r) {
  if (!r.load_balanced) return json();
  json j = solution_json(*r.load_balanced);
  if (r.balance) {
    j["fastest_processor_time"] = r.balance->fastest;
    j["slowest_processor_time"] = r.balance->slowest;
  }
  return j;
}

json gain_json(const partition::Gain& g) {
  return json{{"time", number_or_null(g.time)}, {"energy", number_or_null(g.energy)}};
}

json gains_json(const partition::FrontAnalysis& a) {
  return json{{"time_optimal", gain_json(a.time_optimal_gain)}, {"energy_optimal", gain_json(a.energy_optimal_gain)}};
}

// The front's ends against the even split (the same gains as against the load-balanced solution).
json even_gains_json(const FrontReport& r) {
  if (!r.even_split) return json();
  return json{{"time_optimal", gain_json(partition::gain_against(r.time_optimal(), *r.even_split))},
              {"energy_optimal", gain_json(partition::gain_against(r.energy_optimal(), *r.even_split))}};
}

json imbalance_json(const partition::ImbalanceSummary& s) {
  const auto one = [](const partition::ImbalanceClass& c) {
    const bool range = c.points != 0 && c.lir_max != 0.0;
    return json{{"points", c.points},
                {"lir_min", range ? json(c.lir_min) : json()},
                {"lir_max", range ? json(c.lir_max) : json()}};
  };
  return json{{"balanced", one(s.balanced)}, {"weak", one(s.weak)}, {"strong", one(s.strong)}};
}

json budgets_json(const FrontReport& r, const partition::FrontAnalysis& a) {
  json out = json::array();
  for (const partition::BudgetPoint& b : a.budgets) {
    const partition::Solution& s = r.front[b.index];
    out.push_back(json{{"budget", b.budget},
                       {"time_limit", b.time_limit},
                       {"point", b.index + 1},
                       {"time", s.time},
                       {"energy", s.energy},
                       {"distribution", s.distribution},
                       {"slowdown", b.slowdown},
                       {"energy_saving", number_or_null(b.energy_saving)}});
  }
  return out;
}

json optima_json(const FrontReport& r) {
  if (!r.optima) return json{{"reason", r.optima_origin}};
  const partition::EnergyOptima& o = *r.optima;
  const auto one = [](const partition::EnergyOptimum& p) {
    return json{{"time", p.time},
                {"dynamic_energy", p.dynamic_energy},
                {"total_energy", p.total_energy},
                {"distribution", p.distribution}};
  };
  return json{{"base_power", o.base_power},
              {"base_power_origin", r.optima_origin},
              {"dynamic_optimum", one(o.dynamic_optimum)},
              {"total_optimum", one(o.total_optimum)},
              {"same", o.same()},
              {"total_excess", number_or_null(o.total_excess())},
              {"dynamic_excess", number_or_null(o.dynamic_excess())}};
}

void add_analysis(json& doc, const FrontReport& r) {
  if (!r.analysis) return;
  const partition::FrontAnalysis& a = *r.analysis;
  // Each point's imbalance, in the front and in time_optimal (its first point, kept equal to it).
  for (std::size_t k = 0; k < a.points.size(); ++k) {
    json& point = doc["front"][k];
    point["imbalance"] = partition::to_string(a.points[k].kind);
    point["lir"] = number_or_null(a.points[k].lir);
    if (k == 0) doc["time_optimal"] = point;
  }
  doc["load_balanced"] = balanced_json(r);
  doc["even_split"] = r.even_split ? solution_json(*r.even_split) : json();
  const bool balanced = a.load_balanced.has_value();
  doc["analysis"] = json{{"front_size", a.front_size},
                         {"gains", balanced ? gains_json(a) : json()},
                         {"gains_against_even_split", even_gains_json(r)},
                         {"imbalance", balanced ? imbalance_json(a.imbalance) : json()},
                         {"budgets", budgets_json(r, a)},
                         {"energy_optima", optima_json(r)},
                         {"unmetered", r.unmetered}};
  json held = json::object();
  for (std::size_t i = 0; i < r.held_power.size() && i < r.processors.size(); ++i)
    held[r.processors[i]] = r.held_power[i];
  doc["held_power"] = held;
  doc["held_power_unknown"] = r.held_unknown;
}

}  // namespace

std::string front_report_json(const FrontReport& r) {
  auto doc = json::parse(front_json({r.processors, r.workload, r.model, r.front, r.time_only, r.provenance}));
  // 0: the exact front; else every exact point is within a factor 1 + epsilon of one of these.
  doc["epsilon"] = r.epsilon;
  if (r.classes > 0) doc["classes"] = r.classes;
  if (!r.model_line.empty()) {
    doc["sizes"] = r.model_line;
    for (std::size_t k = 0; k < r.front.size(); ++k) doc["front"][k]["interpolated"] = r.interpolated.at(k);
  }
  if (!r.omitted.empty()) doc["omitted"] = r.omitted;
  if (!r.unconverged.empty()) {
    json& u = doc["unconverged"] = json::array();
    for (const auto& p : r.unconverged) u.push_back({{"processor", p.processor}, {"sizes", p.sizes}, {"of", p.of}});
  }
  add_analysis(doc, r);
  return doc.dump(2) + "\n";
}

}  // namespace ctrl::loop
