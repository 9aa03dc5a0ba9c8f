#include "analysis_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace ctrl::tool {

// Helper names are particular to this file: the tool is built in unity batches
// (tools/ctrl/CMakeLists.txt), where the anonymous namespaces of several files are one.
namespace {

using partition::Imbalance;

// A ratio as a percentage with one decimal, "n/a" where it is undefined (a value of 0 J).
std::string pct1(const std::optional<double>& fraction) {
  return fraction ? fmt::format("{:.1f} %", 100 * *fraction) : "n/a";
}

std::string lir_text(const std::optional<double>& lir) { return lir ? fmt::format("{:.3g}", *lir) : "n/a"; }

std::string class_text(const char* name, const partition::ImbalanceClass& c) {
  if (c.points == 0 || c.lir_max == 0.0) return fmt::format("{} {}", c.points, name);
  if (c.lir_min == c.lir_max) return fmt::format("{} {} (LIR {:.3g})", c.points, name, c.lir_min);
  return fmt::format("{} {} (LIR {:.3g} to {:.3g})", c.points, name, c.lir_min, c.lir_max);
}

void write_gains(std::ostream& out, const FrontReport& r, const partition::FrontAnalysis& a) {
  out << fmt::format(
      "\nAgainst the load-balanced solution (the paper's gains, (load-balanced - point) / point: "
      "positive where the point is better)\n");
  out << fmt::format("  {:<16} {:>10} {:>12} {:>8}   {}\n", "", "time gain", "energy gain", "LIR", "imbalance");
  const auto row = [&](const char* name, std::size_t k, const partition::Gain& g) {
    out << fmt::format("  {:<16} {:>10} {:>12} {:>8}   {}\n", name, pct1(g.time), pct1(g.energy),
                       lir_text(a.points[k].lir), partition::to_string(a.points[k].kind));
  };
  row("time-optimal", 0, a.time_optimal_gain);
  row("energy-optimal", r.front.size() - 1, a.energy_optimal_gain);
  out << fmt::format("  the front's {} point{}: {}, {}, {}\n", a.front_size, a.front_size == 1 ? "" : "s",
                     class_text("balanced", a.imbalance.balanced), class_text("weak", a.imbalance.weak),
                     class_text("strong", a.imbalance.strong));
}

// The same gains against the even split, the balancer of rows a user may have in mind.
void write_even_gains(std::ostream& out, const FrontReport& r) {
  if (!r.even_split) return;
  const partition::Gain fast = partition::gain_against(r.time_optimal(), *r.even_split);
  const partition::Gain frugal = partition::gain_against(r.energy_optimal(), *r.even_split);
  out << fmt::format("  against the even split: time-optimal {} time, {} energy; energy-optimal {} time, {} energy\n",
                     pct1(fast.time), pct1(fast.energy), pct1(frugal.time), pct1(frugal.energy));
}

void write_budgets(std::ostream& out, const FrontReport& r, const partition::FrontAnalysis& a) {
  if (a.budgets.empty()) return;
  out << fmt::format("\nLeast {} energy within a time budget (against the time-optimal point, {:.6g} s, {:.6g} J)\n",
                     r.energy_name(), r.time_optimal().time, r.time_optimal().energy);
  for (const partition::BudgetPoint& b : a.budgets) {
    const partition::Solution& s = r.front[b.index];
    const std::string saving = b.energy_saving ? fmt::format("{:.1f} % less energy", 100 * *b.energy_saving) : "n/a";
    out << fmt::format(
        "  +{:<8} (<= {:.6g} s)  point {:<4} {:>12.6g} s {:>14.6g} J   {} at {:.1f} % more time   ({})\n",
        percent(b.budget), b.time_limit, b.index + 1, s.time, s.energy, saving, 100 * b.slowdown,
        parts_text(s.distribution));
  }
  std::string first = percent(a.budgets.front().budget);
  first.erase(first.size() - 2, 1);  // "5 %" -> "5%"
  out << fmt::format(
      "  run one by its budget: ctrl run --pick 'energy@time+{}' (the same front: the profile and the "
      "workload, or this front as JSON)\n",
      first);
}

void write_optima(std::ostream& out, const FrontReport& r) {
  if (!r.optima) {
    out << "\nDynamic- against total-energy optimum: not compared: " << r.optima_origin << '\n';
    return;
  }
  const partition::EnergyOptima& o = *r.optima;
  out << fmt::format("\nDynamic- against total-energy optimum (base power {:g} W, {})\n", o.base_power,
                     r.optima_origin);
  out << fmt::format("  {:<16} {:>12} {:>14} {:>14}\n", "", "time (s)", "dynamic (J)", "total (J)");
  for (const auto& [name, p] :
       {std::pair{"dynamic optimum", &o.dynamic_optimum}, std::pair{"total optimum", &o.total_optimum}})
    out << fmt::format("  {:<16} {:>12.6g} {:>14.6g} {:>14.6g}   ({})\n", name, p->time, p->dynamic_energy,
                       p->total_energy, parts_text(p->distribution));
  if (o.same())
    out << "  one distribution minimises both\n";
  else
    out << fmt::format(
        "  minimising dynamic energy costs {} more total energy; minimising total energy, {} more dynamic\n",
        pct1(o.total_excess()), pct1(o.dynamic_excess()));
}

}  // namespace

std::string percent(double fraction) {
  std::string s = fmt::format("{:.2f}", 100 * fraction);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s + " %";
}

void write_balanced_lines(std::ostream& out, const FrontReport& r) {
  if (!r.omitted.empty() && !r.load_balanced && !r.even_split) {
    out << "  load-balanced   not computed at this scale\n";
    return;
  }
  if (r.load_balanced) {
    std::string times;
    if (r.balance)
      times = r.balance->fastest == r.balance->slowest
                  ? fmt::format("   equal times, {:.6g} s", r.balance->slowest)
                  : fmt::format("   times {:.6g} to {:.6g} s ({} apart)", r.balance->fastest, r.balance->slowest,
                                percent(r.balance->relative()));
    out << fmt::format("  load-balanced   {:>12.6g} s {:>14.6g} J   ({}){}\n", r.load_balanced->time,
                       r.load_balanced->energy, parts_text(r.load_balanced->distribution), times);
  } else {
    out << "  load-balanced   none: no distribution gives every processor work with these sizes\n";
  }
  if (r.even_split)
    out << fmt::format("  even split      {:>12.6g} s {:>14.6g} J   ({})\n", r.even_split->time, r.even_split->energy,
                       parts_text(r.even_split->distribution));
  else
    out << "  even split      none: no distribution gives every processor work with these sizes\n";
}

void write_analysis_table(std::ostream& out, const FrontReport& r) {
  if (!r.analysis) return;
  if (!r.unmetered.empty()) {
    std::string names;
    for (const auto& n : r.unmetered) names += (names.empty() ? "" : ", ") + n;
    out << "  (no energy measured for " << names << ": counted as 0 J in every energy and gain below)\n";
  }
  if (r.analysis->load_balanced) write_gains(out, r, *r.analysis);
  write_even_gains(out, r);
  write_budgets(out, r, *r.analysis);
  write_optima(out, r);
}

std::string imbalance_header(const FrontReport& r) {
  return r.analysis && !r.analysis->points.empty() ? fmt::format("  {:>8}  {:<9}", "LIR", "imbalance") : "";
}

std::string imbalance_cells(const FrontReport& r, std::size_t k) {
  if (!r.analysis || k >= r.analysis->points.size()) return "";
  const partition::PointImbalance& p = r.analysis->points[k];
  return fmt::format("  {:>8}  {:<9}", lir_text(p.lir), partition::to_string(p.kind));
}

}  // namespace ctrl::tool
