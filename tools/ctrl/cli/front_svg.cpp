#include "front_svg.hpp"

#include "analysis_format.hpp"
#include "svg_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

namespace ctrl::tool {

namespace {

using namespace plot;

constexpr double width = 960, height = 600;
constexpr double left = 110, right = 310, top = 72, bottom = 84;  // margins; the legend is on the right
constexpr double legend_x = width - right + 24;

constexpr const char* fast_style = "fill=\"#d62728\" stroke=\"#7f1414\" stroke-width=\"1\"";
constexpr const char* frugal_style = "fill=\"#2ca02c\" stroke=\"#145214\" stroke-width=\"1\"";
constexpr const char* balanced_style = "fill=\"none\" stroke=\"#1f5fd6\" stroke-width=\"2.5\"";
constexpr const char* even_style = "fill=\"none\" stroke=\"#7f7f7f\" stroke-width=\"2\"";
constexpr const char* budget_style = "fill=\"#ff7f0e\" stroke=\"#a04f00\" stroke-width=\"1\"";
constexpr std::size_t budgets_drawn = 4;  // more would crowd the plot; the table lists every one
constexpr const char* point_style = "fill=\"#333333\"";
constexpr const char* grey = "fill=\"#555555\" font-size=\"12\"";

using Shape = std::string (*)(double, double, double, std::string_view);

// A marked distribution: its name, its point, and how it is drawn.
struct Mark {
  std::string name;
  const partition::Solution* solution;
  Shape shape;
  double r;
  const char* style;
  const char* colour;  // of its label
};

// "within +5 % time": the name of a budget's point.
std::string budget_name(const partition::BudgetPoint& b) { return "within +" + percent(b.budget) + " time"; }

std::vector<Mark> marks_of(const FrontReport& r) {
  std::vector<Mark> marks{{"time-optimal", &r.time_optimal(), triangle, 9, fast_style, "#b01c1c"},
                          {"energy-optimal", &r.energy_optimal(), square, 6.5, frugal_style, "#1d7a1d"}};
  if (r.load_balanced) marks.push_back({"load-balanced", &*r.load_balanced, circle, 8, balanced_style, "#1f5fd6"});
  if (r.even_split) marks.push_back({"even split", &*r.even_split, diamond, 8, even_style, "#555555"});
  if (r.analysis)
    for (std::size_t i = 0; i < r.analysis->budgets.size() && i < budgets_drawn; ++i) {
      const partition::BudgetPoint& b = r.analysis->budgets[i];
      marks.push_back({budget_name(b), &r.front[b.index], diamond, 6.5, budget_style, "#a04f00"});
    }
  return marks;
}

// The parts in the processors' order, "(0 16384)", cut short with "…" past about 36 characters.
std::string parts(const partition::Distribution& x) {
  std::string out = "(";
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::string part = (i != 0 ? " " : "") + std::to_string(x[i]);
    if (out.size() + part.size() > 36) return out + " …)";
    out += part;
  }
  return out + ")";
}

// About how wide a line of 13 px text is.
double text_width(const std::string& s) { return 7.0 * static_cast<double>(s.size()); }

std::string heading(const FrontReport& r, const std::string& title) {
  std::string svg = text(left, 30, title, "font-size=\"17\" font-weight=\"bold\"");
  const std::string base = r.model.kind == partition::EnergyKind::total
                               ? fmt::format(", base power {:g} W", r.model.base_power)
                               : std::string();
  return svg + text(left, 50, r.profile_path + base, "fill=\"#555555\"");
}

// One mark, its shape centred on (x, y), in a group that names it.
std::string mark_at(const Mark& m, double x, double y) {
  return fmt::format("<g class=\"mark\" data-mark=\"{}\" transform=\"translate({:.1f},{:.1f})\">\n{}</g>\n", m.name, x,
                     y, m.shape(0, 0, m.r, m.style));
}

// Marks on one spot (`group`, around (x, y)): fanned out on a small ring when there are several,
// each joined to the spot; their labels stacked beside it, on the side with room.
std::string draw_group(const Frame& f, const std::vector<const Mark*>& group, double x, double y) {
  std::string svg;
  const std::size_t k = group.size();
  for (std::size_t j = 0; j < k; ++j) {
    double mx = x, my = y;
    if (k > 1) {
      const double angle =
          -std::numbers::pi / 2 + 2 * std::numbers::pi * static_cast<double>(j) / static_cast<double>(k);
      mx += 17 * std::cos(angle);
      my += 17 * std::sin(angle);
      svg += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#777777\"/>\n", x, y,
                         mx, my);
    }
    svg += mark_at(*group[j], mx, my);
  }
  double widest = 0;
  for (const Mark* m : group) widest = std::max(widest, text_width(m->name + " " + parts(m->solution->distribution)));
  const double room_right = f.left + f.width - x, room_left = x - f.left;
  const bool on_left = room_right < widest + 34 && room_left > room_right;
  const double tx = on_left ? x - 30 : x + 30;
  const double span = 16 * static_cast<double>(k - 1);
  const double ty = std::clamp(y - span / 2 + 4, f.top + 14, f.top + f.height - span - 6);
  for (std::size_t j = 0; j < k; ++j)
    svg +=
        text(tx, ty + 16 * static_cast<double>(j), group[j]->name + " " + parts(group[j]->solution->distribution),
             fmt::format("class=\"mark-label\" fill=\"{}\" text-anchor=\"{}\" paint-order=\"stroke\" stroke=\"white\" "
                         "stroke-width=\"3\"",
                         group[j]->colour, on_left ? "end" : "start"));
  return svg;
}

// Every mark, those closer than 22 px to one another drawn as one group.
std::string draw_marks(const Frame& f, const std::vector<Mark>& marks) {
  struct Group {
    double x, y;
    std::vector<const Mark*> marks;
  };
  std::vector<Group> groups;
  for (const Mark& m : marks) {
    const double x = f.X(m.solution->time), y = f.Y(m.solution->energy);
    const auto near =
        std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return std::hypot(g.x - x, g.y - y) < 22; });
    if (near != groups.end())
      near->marks.push_back(&m);
    else
      groups.push_back({x, y, {&m}});
  }
  std::string svg;
  for (const Group& g : groups) svg += draw_group(f, g.marks, g.x, g.y);
  return svg;
}

// The staircase of the best energy reachable by each time, then the points.
std::string draw_front(const Frame& f, const partition::Front& front) {
  std::string path = fmt::format("M{:.1f},{:.1f}", f.X(front[0].time), f.Y(front[0].energy));
  for (std::size_t i = 1; i < front.size(); ++i)
    path += fmt::format(" H{:.1f} V{:.1f}", f.X(front[i].time), f.Y(front[i].energy));
  std::string svg = fmt::format(
      "<path d=\"{}\" fill=\"none\" stroke=\"#999999\" stroke-width=\"1.2\" stroke-dasharray=\"4,3\"/>\n", path);
  const double pr = front.size() > 300 ? 2.0 : 3.0;
  for (const auto& s : front) svg += circle(f.X(s.time), f.Y(s.energy), pr, point_style);
  return svg;
}

// The processors, in the order of the distributions' parts, each without a sensor said so; `y`
// moves past them.
std::string processor_list(const FrontReport& r, const EnergyCoverage& c, double& y) {
  std::string svg = text(legend_x, y, "processors (parts in this order):", grey);
  y += 18;
  for (std::size_t i = 0; i < r.processors.size() && i < 12; ++i, y += 17) {
    const bool lacks = i < c.metered.size() && !c.metered[i];
    const bool estimated = i < c.estimated.size() && c.estimated[i];
    svg += text(legend_x + 8, y,
                r.processors[i] + (estimated        ? "  (energy estimated)"
                                   : !lacks         ? ""
                                   : c.from_sensors ? "  (no energy sensor)"
                                                    : "  (energy 0: not measured)"),
                grey);
  }
  if (r.processors.size() > 12) {
    svg += text(legend_x + 8, y, fmt::format("... {} more", r.processors.size() - 12), grey);
    y += 17;
  }
  return svg;
}

// The legend, from the top of the right margin down; `y` ends past it.
std::string legend(const FrontReport& r, const EnergyCoverage& c, double& y) {
  std::string svg;
  y = top + 10;
  const auto entry = [&](const std::string& marker, const std::string& title, const std::vector<std::string>& detail) {
    svg += marker + text(legend_x + 22, y + 4, title);
    for (std::size_t i = 0; i < detail.size(); ++i)
      svg += text(legend_x + 22, y + 21 + 15 * static_cast<double>(i), detail[i], grey);
    y += 28 + 16 * static_cast<double>(detail.size());
  };
  const auto values = [](const partition::Solution& s) {
    return format_quantity(s.time, Quantity::time) + ", " + format_quantity(s.energy, Quantity::energy);
  };
  const double pr = r.front.size() > 300 ? 2.0 : 3.0;
  entry(circle(legend_x + 8, y, pr, point_style),
        fmt::format("Pareto-optimal ({} point{})", r.front.size(), r.front.size() == 1 ? "" : "s"), {});
  const auto both = [&](const partition::Solution& s) { return std::vector{values(s), parts(s.distribution)}; };
  entry(triangle(legend_x + 8, y, 9, fast_style), "time-optimal", both(r.time_optimal()));
  entry(square(legend_x + 8, y, 6.5, frugal_style), "energy-optimal", both(r.energy_optimal()));
  if (r.load_balanced)
    entry(circle(legend_x + 8, y, 8, balanced_style), "load-balanced (equal times)", both(*r.load_balanced));
  else
    entry(circle(legend_x + 8, y, 8, balanced_style), "load-balanced: none", {"no split gives every processor work"});
  if (r.even_split) entry(diamond(legend_x + 8, y, 8, even_style), "even split (equal rows)", both(*r.even_split));
  for (std::size_t i = 0; r.analysis && i < r.analysis->budgets.size() && i < budgets_drawn; ++i) {
    const partition::BudgetPoint& b = r.analysis->budgets[i];
    const std::string saving = b.energy_saving ? fmt::format(": {:.1f} % less energy", 100 * *b.energy_saving) : "";
    entry(diamond(legend_x + 8, y, 6.5, budget_style), "least energy " + budget_name(b) + saving,
          {values(r.front[b.index])});
  }
  if (std::find(c.metered.begin(), c.metered.end(), false) != c.metered.end()) {
    svg += text(legend_x, y + 6, "dynamic energy: of the processors that", grey);
    svg += text(legend_x, y + 22, "measured it; the others count 0 J", grey);
    y += 44;
  }
  y += 6;
  return svg + processor_list(r, c, y);
}

// Each budget's time limit, a dashed line across the plot where it falls within it.
std::string budget_lines(const Frame& f, const FrontReport& r) {
  std::string svg;
  for (std::size_t i = 0; r.analysis && i < r.analysis->budgets.size() && i < budgets_drawn; ++i) {
    const partition::BudgetPoint& b = r.analysis->budgets[i];
    const double x = f.X(b.time_limit);
    if (x < f.left || x > f.left + f.width) continue;
    svg += fmt::format(
        "<line class=\"budget\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ff7f0e\" "
        "stroke-dasharray=\"6,4\"/>\n",
        x, f.top, x, f.top + f.height);
    svg += text(x + 4, f.top + 14 + 14 * static_cast<double>(i), "+" + percent(b.budget),
                "fill=\"#a04f00\" font-size=\"12\"");
  }
  return svg;
}

Frame front_frame(const FrontReport& r) {
  double t0 = r.front.front().time, t1 = t0, e0 = r.front.front().energy, e1 = e0;
  const auto widen = [&](const partition::Solution& s) {
    t0 = std::min(t0, s.time);
    t1 = std::max(t1, s.time);
    e0 = std::min(e0, s.energy);
    e1 = std::max(e1, s.energy);
  };
  for (const auto& s : r.front) widen(s);
  if (r.load_balanced) widen(*r.load_balanced);
  if (r.even_split) widen(*r.even_split);
  return {left,
          top,
          width - left - right,
          height - top - bottom,
          Axis::fit(t0, t1, Quantity::time),
          Axis::fit(e0, e1, Quantity::energy)};
}

// As tall as the legend needs (the plot keeps its size).
std::string energy_plot(const FrontReport& r, const EnergyCoverage& c) {
  const Frame f = front_frame(r);
  double legend_end = 0;
  const std::string key = legend(r, c, legend_end);
  std::string svg = svg_open(width, std::max(height, legend_end + 20));
  svg += heading(r, fmt::format("Pareto front: workload {} on {} processors, time and {} energy", r.workload,
                                r.processors.size(), r.energy_name()));
  svg += axes(f, f.x.title("parallel execution time"), f.y.title(r.energy_name() + " energy"));
  svg += budget_lines(f, r);
  svg += draw_front(f, r.front);
  svg += draw_marks(f, marks_of(r));
  return svg + key + "</svg>\n";
}

// Time only: one row per distribution (the front's, the load-balanced one, the even split), a bar as long
// as its parallel time, its name, parts and time above it, and its mark at the bar's end.
std::string time_rows(const Frame& f, const std::vector<Mark>& rows) {
  std::string svg;
  const double row_h = f.height / static_cast<double>(rows.size());
  const double bar_h = std::min(24.0, row_h * 0.45);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Mark& m = rows[i];
    const double yc = f.top + (static_cast<double>(i) + 0.62) * row_h, x1 = f.X(m.solution->time);
    svg += fmt::format(
        "<rect class=\"time-bar\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#dde6f5\"/>\n",
        f.left, yc - bar_h / 2, std::max(0.0, x1 - f.left), bar_h);
    svg +=
        text(f.left + 6, yc - bar_h / 2 - 6,
             m.name + " " + parts(m.solution->distribution) + ": " + format_quantity(m.solution->time, Quantity::time),
             fmt::format("class=\"mark-label\" fill=\"{}\"", m.colour));
    if (m.shape != nullptr) svg += mark_at(m, x1, yc);
  }
  return svg;
}

std::vector<Mark> time_only_rows(const FrontReport& r) {
  std::vector<Mark> rows;
  for (std::size_t k = 0; k < r.front.size() && k < 10; ++k)
    rows.push_back(k == 0 ? Mark{"time-optimal", &r.front[0], triangle, 9, fast_style, "#b01c1c"}
                          : Mark{fmt::format("point {}", k + 1), &r.front[k], nullptr, 0, point_style, "#333333"});
  if (r.load_balanced) rows.push_back({"load-balanced", &*r.load_balanced, circle, 8, balanced_style, "#1f5fd6"});
  if (r.even_split) rows.push_back({"even split", &*r.even_split, diamond, 8, even_style, "#555555"});
  return rows;
}

// Why the plot has no energy axis, and what follows for the front.
std::vector<std::string> not_measured_lines(const FrontReport& r, const EnergyCoverage& c) {
  if (c.time_only) return {"time only (--time-only): energy is not", "compared; the time-optimal distribution"};
  const bool no_sensor =
      c.from_sensors && !c.metered.empty() && std::find(c.metered.begin(), c.metered.end(), true) == c.metered.end();
  std::vector<std::string> lines{no_sensor ? "no processor has an energy sensor"
                                           : "no processor measured a non-zero energy"};
  if (r.model.kind == partition::EnergyKind::total)
    lines.insert(lines.end(), {"dynamic energy 0 J everywhere: total energy", "is base power x time, and the front is",
                               "the time-optimal distribution alone"});
  else
    lines.insert(lines.end(), {"every distribution counts 0 J: the front", "is the time-optimal distribution alone"});
  if (r.front.size() > 10) lines.push_back(fmt::format("(the first 10 of its {} points shown)", r.front.size()));
  return lines;
}

std::string not_measured_note(const FrontReport& r, const EnergyCoverage& c, const std::vector<std::string>& lines) {
  std::string svg = text(legend_x, top + 14, c.time_only ? "energy not compared" : "energy not measured",
                         "font-size=\"16\" font-weight=\"bold\" fill=\"#b00020\"");
  double y = top + 38;
  for (const auto& line : lines) {
    svg += text(legend_x, y, line, grey);
    y += 17;
  }
  y += 24;
  return svg + processor_list(r, c, y);
}

// As tall as its rows need (at most 80 px each), and its note and processors.
std::string time_only_plot(const FrontReport& r, const EnergyCoverage& c) {
  const std::vector<Mark> rows = time_only_rows(r);
  const std::vector<std::string> lines = not_measured_lines(r, c);
  double t1 = 0;
  for (const Mark& m : rows) t1 = std::max(t1, m.solution->time);
  const double note_h = 80 + 17 * static_cast<double>(lines.size() + std::min<std::size_t>(r.processors.size(), 13));
  const double plot_h = std::max(80 * static_cast<double>(rows.size()), std::max(160.0, note_h - bottom));
  const Frame f{left, top, width - left - right, plot_h, Axis::fit(0, t1, Quantity::time), Axis{}};
  std::string svg = svg_open(width, top + plot_h + bottom);
  svg += heading(r, fmt::format("Workload {} on {} processors: parallel time only (energy not {})", r.workload,
                                r.processors.size(), c.time_only ? "compared" : "measured"));
  svg += axes(f, f.x.title("parallel execution time"), "distributions", false);
  svg += time_rows(f, rows);
  return svg + not_measured_note(r, c, lines) + "</svg>\n";
}

bool any_energy(const FrontReport& r) {
  const auto nonzero = [](const partition::Solution& s) { return s.energy != 0; };
  return std::any_of(r.front.begin(), r.front.end(), nonzero) || (r.load_balanced && nonzero(*r.load_balanced)) ||
         (r.even_split && nonzero(*r.even_split));
}

}  // namespace

std::string front_svg(const FrontReport& report, const EnergyCoverage& coverage) {
  return coverage.measured && !coverage.time_only && any_energy(report) ? energy_plot(report, coverage)
                                                                        : time_only_plot(report, coverage);
}

}  // namespace ctrl::tool
