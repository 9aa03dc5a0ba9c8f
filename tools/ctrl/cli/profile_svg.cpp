#include "profile_svg.hpp"

#include "svg_plot.hpp"

#include <ctrl/loop/front.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

namespace ctrl::tool {

namespace {

using namespace plot;

constexpr double width = 1180, height = 540;
constexpr double top = 72, bottom = 84, panel_w = 380, panel_h = height - top - bottom;
constexpr double time_left = 110, energy_left = time_left + panel_w + 120, legend_x = energy_left + panel_w + 28;

// One processor's line.
struct Series {
  std::string name;
  std::vector<partition::ProfilePoint> points;  // by size
  const char* colour;
  const char* dash;
  bool metered;
  std::string source;  // for the legend: "energy: nvml:0", "no energy sensor", ""
};

std::string source_of(const loop::LoadedProfile& loaded, const std::string& name, bool metered) {
  if (!loaded.file) return metered ? "" : "energy 0: not measured";
  for (const auto& row : loaded.file->rows)
    if (row.processor == name)
      return row.energy_source == "none"                              ? "no energy sensor"
             : row.energy_provenance == energy::Provenance::estimated ? "energy estimated: " + row.energy_source
                                                                      : "energy: " + row.energy_source;
  return "";
}

std::vector<Series> series_of(const loop::LoadedProfile& loaded, const EnergyCoverage& c) {
  std::vector<Series> out;
  for (std::size_t i = 0; i < loaded.profile.size(); ++i) {
    const auto& p = loaded.profile[i];
    const bool metered = i < c.metered.size() && c.metered[i];
    out.push_back({p.name(),
                   {p.points().begin(), p.points().end()},
                   series_colour(i),
                   series_dash(i),
                   metered,
                   source_of(loaded, p.name(), metered)});
  }
  return out;
}

double value(const partition::ProfilePoint& p, Quantity q) { return q == Quantity::time ? p.time : p.energy; }

std::string draw_series(const Frame& f, const Series& s, Quantity q, const char* panel) {
  std::string points;
  for (const auto& p : s.points)
    points +=
        fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", f.X(static_cast<double>(p.size)), f.Y(value(p, q)));
  std::string svg =
      fmt::format("<g class=\"series\" data-panel=\"{}\" data-processor=\"{}\" stroke=\"{}\" fill=\"{}\">\n", panel,
                  escape(s.name), s.colour, s.colour);
  svg += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke-width=\"1.8\" stroke-dasharray=\"{}\"/>\n", points,
                     s.dash);
  for (const auto& p : s.points)
    svg += circle(f.X(static_cast<double>(p.size)), f.Y(value(p, q)), 2.6, "stroke=\"none\"");
  return svg + "</g>\n";
}

// One panel: its axes, then a line for each series it shows.
std::string panel(const std::vector<Series>& series, Quantity q, double panel_left, const Axis& x,
                  const std::string& x_title) {
  double hi = 0;
  for (const Series& s : series)
    for (const auto& p : s.points) hi = std::max(hi, value(p, q));
  const Frame f{panel_left, top, panel_w, panel_h, x, Axis::fit(0, hi, q)};
  const bool time = q == Quantity::time;
  std::string svg = axes(f, x_title, f.y.title(time ? "time per run" : "dynamic energy per run"));
  for (const Series& s : series) svg += draw_series(f, s, q, time ? "time" : "energy");
  return svg;
}

// In place of the energy panel when no processor measured energy.
std::string no_energy_panel(const EnergyCoverage& c) {
  std::string svg = fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#f7f7f7\" stroke=\"#bbbbbb\"/>\n",
      energy_left, top, panel_w, panel_h);
  const double cx = energy_left + panel_w / 2, cy = top + panel_h / 2;
  svg += text(cx, cy - 8, "energy not measured",
              "text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\" fill=\"#b00020\"");
  return svg + text(cx, cy + 16,
                    c.from_sensors ? "no processor has an energy sensor" : "every energy in the profile is 0",
                    "text-anchor=\"middle\" fill=\"#555555\"");
}

std::string profile_legend(const std::vector<Series>& series, bool some_energy) {
  std::string svg = text(legend_x, top + 4, "processors:", "fill=\"#555555\" font-size=\"12\"");
  double y = top + 26;
  for (std::size_t i = 0; i < series.size() && i < 14; ++i, y += 34) {
    const Series& s = series[i];
    svg += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"2.5\" "
        "stroke-dasharray=\"{}\"/>\n",
        legend_x, y - 4, legend_x + 22, y - 4, s.colour, s.dash);
    svg += text(legend_x + 28, y, s.name);
    if (!s.source.empty()) svg += text(legend_x + 28, y + 15, s.source, "fill=\"#555555\" font-size=\"12\"");
  }
  if (series.size() > 14) svg += text(legend_x, y, fmt::format("... {} more", series.size() - 14));
  if (some_energy && std::any_of(series.begin(), series.end(), [](const Series& s) { return !s.metered; })) {
    svg += text(legend_x, y + 8, "energy: only the processors", "fill=\"#555555\" font-size=\"12\"");
    svg += text(legend_x, y + 24, "that measured it", "fill=\"#555555\" font-size=\"12\"");
  }
  return svg;
}

std::string title_of(const loop::LoadedProfile& loaded) {
  const std::size_t p = loaded.profile.size();
  if (!loaded.file || loaded.file->rows.empty())
    return fmt::format("Profile of {} processors: time and energy per size", p);
  const auto& row = loaded.file->rows.front();
  return fmt::format("Profile: {}, N = {}, on {} processors: time and energy per size", row.app, row.cols, p);
}

Axis size_axis(const std::vector<Series>& series) {
  double lo = 0, hi = 0;
  bool first = true;
  for (const Series& s : series)
    for (const auto& p : s.points) {
      const double v = static_cast<double>(p.size);
      lo = first ? v : std::min(lo, v);
      hi = first ? v : std::max(hi, v);
      first = false;
    }
  return Axis::fit(lo, hi, Quantity::count);
}

}  // namespace

EnergyCoverage energy_coverage(const loop::LoadedProfile& loaded) {
  EnergyCoverage c;
  c.from_sensors = loaded.file.has_value();
  c.metered = loop::energy_metered(loaded);
  c.measured = false;
  for (std::size_t i = 0; i < loaded.profile.size(); ++i) {
    const auto& p = loaded.profile[i];
    const bool nonzero = std::any_of(p.points().begin(), p.points().end(), [](const auto& q) { return q.energy > 0; });
    c.estimated.push_back(
        loaded.file && std::any_of(loaded.file->rows.begin(), loaded.file->rows.end(), [&](const loop::ProfileRow& r) {
          return r.processor == p.name() && r.energy_provenance == energy::Provenance::estimated;
        }));
    c.measured = c.measured || (c.metered[i] && nonzero);
  }
  return c;
}

std::string profile_svg(const loop::LoadedProfile& loaded, const std::string& path) {
  const EnergyCoverage c = energy_coverage(loaded);
  const std::vector<Series> series = series_of(loaded, c);
  std::vector<Series> metered;
  std::copy_if(series.begin(), series.end(), std::back_inserter(metered), [](const Series& s) { return s.metered; });
  const Axis x = size_axis(series);
  const std::string rows = loaded.file ? "rows" : "";  // a `ctrl profile` file's sizes are rows
  const std::string x_title = x.unit.name.empty()
                                  ? (rows.empty() ? "size" : "size (rows)")
                                  : fmt::format("size ({}{})", x.unit.name, rows.empty() ? "" : " of rows");
  std::string svg = svg_open(width, height);
  svg += text(time_left, 30, title_of(loaded), "font-size=\"17\" font-weight=\"bold\"");
  svg += text(time_left, 50, path, "fill=\"#555555\"");
  svg += panel(series, Quantity::time, time_left, x, x_title);
  svg += c.measured ? panel(metered, Quantity::energy, energy_left, x, x_title) : no_energy_panel(c);
  return svg + profile_legend(series, c.measured) + "</svg>\n";
}

}  // namespace ctrl::tool
