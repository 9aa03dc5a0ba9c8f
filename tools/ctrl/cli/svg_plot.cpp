#include "svg_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace ctrl::tool::plot {

namespace {

struct UnitRow {
  double scale;
  const char* symbol;
  const char* name;
};

// Largest first; the last row is the base unit's or the smallest's.
constexpr std::array<UnitRow, 4> time_units{
    {{1, "s", "s"}, {1e-3, "ms", "ms"}, {1e-6, "µs", "µs"}, {1e-9, "ns", "ns"}}};
constexpr std::array<UnitRow, 4> energy_units{
    {{1e3, "kJ", "kJ"}, {1, "J", "J"}, {1e-3, "mJ", "mJ"}, {1e-6, "µJ", "µJ"}}};
// Counts stay plain up to 9999 (sizes read best as written).
constexpr std::array<UnitRow, 3> count_units{{{1e6, "M", "millions"}, {1e4, "k", "thousands"}, {1, "", ""}}};

template <std::size_t N>
Unit pick(const std::array<UnitRow, N>& rows, double magnitude, double base) {
  if (!(magnitude > 0)) magnitude = base;  // 0 (or NaN) shows in the base unit
  for (const UnitRow& r : rows)
    if (magnitude >= r.scale * (1 - 1e-12)) {
      const double scale = r.scale == 1e4 ? 1e3 : r.scale;  // 10 000 and up shows in thousands
      return {scale, r.symbol, r.name};
    }
  const UnitRow& last = rows.back();
  return {last.scale, last.symbol, last.name};
}

}  // namespace

Unit unit_for(Quantity q, double magnitude) {
  magnitude = std::fabs(magnitude);
  switch (q) {
    case Quantity::time:
      return pick(time_units, magnitude, 1);
    case Quantity::energy:
      return pick(energy_units, magnitude, 1);
    case Quantity::count:
      break;
  }
  return pick(count_units, magnitude, 1);
}

std::string format_quantity(double value, Quantity q) {
  const Unit u = unit_for(q, value);
  const std::string number = fmt::format("{:.4g}", value / u.scale);
  return u.symbol.empty() ? number : number + " " + u.symbol;
}

Axis Axis::fit(double a, double b, Quantity q) {
  Axis ax;
  ax.unit = unit_for(q, std::max(std::fabs(a), std::fabs(b)));
  a /= ax.unit.scale;
  b /= ax.unit.scale;
  if (!(b > a)) {  // one value: open a window around it
    const double pad = a != 0 ? std::fabs(a) * 0.1 : 1.0;
    a -= pad;
    b += pad;
  }
  const double pad = (b - a) * 0.06;
  a -= pad;
  b += pad;
  const double raw = (b - a) / 6;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  ax.step = 10 * mag;
  for (const double f : {1.0, 2.0, 2.5, 5.0})
    if (f * mag >= raw) {
      ax.step = f * mag;
      break;
    }
  ax.lo = std::max(0.0, std::floor(a / ax.step) * ax.step);  // no negative seconds, joules or sizes
  ax.hi = std::ceil(b / ax.step) * ax.step;
  return ax;
}

std::vector<double> Axis::ticks() const {
  std::vector<double> out;
  for (int i = 0; lo + i * step <= hi + step * 1e-9; ++i) out.push_back(lo + i * step);
  return out;
}

std::string Axis::tick_label(double v) const {
  // As many decimals as the step needs (2.5 needs one, 0.25 two, 5 none).
  int decimals = 0;
  for (double scaled = step; decimals < 9 && std::fabs(scaled - std::round(scaled)) > 1e-9 * scaled; scaled *= 10)
    ++decimals;
  return fmt::format("{:.{}f}", std::fabs(v) < step * 1e-6 ? 0.0 : v, decimals);
}

std::string Axis::title(std::string_view what) const {
  return unit.name.empty() ? std::string(what) : fmt::format("{} ({})", what, unit.name);
}

std::string escape(std::string_view s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string svg_open(double width, double height) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"13\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      width, height);
}

std::string text(double x, double y, std::string_view content, std::string_view attrs) {
  return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\"{}{}>{}</text>\n", x, y, attrs.empty() ? "" : " ", attrs,
                     escape(content));
}

std::string axes(const Frame& f, std::string_view x_title, std::string_view y_title, bool y_ticks) {
  const double bottom = f.top + f.height, right = f.left + f.width;
  const auto x_at = [&](double tick) { return f.left + (tick - f.x.lo) / (f.x.hi - f.x.lo) * f.width; };
  const auto y_at = [&](double tick) { return f.top + (1 - (tick - f.y.lo) / (f.y.hi - f.y.lo)) * f.height; };
  std::string svg = "<g stroke=\"#e4e4e4\" stroke-width=\"1\">\n";
  for (const double v : f.x.ticks())
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\"/>\n", x_at(v), f.top, bottom);
  if (y_ticks)
    for (const double v : f.y.ticks())
      svg +=
          fmt::format("<line x1=\"{1:.1f}\" y1=\"{0:.1f}\" x2=\"{2:.1f}\" y2=\"{0:.1f}\"/>\n", y_at(v), f.left, right);
  svg += "</g>\n";
  svg += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#333333\"/>\n", f.left,
      f.top, f.width, f.height);
  for (const double v : f.x.ticks()) svg += text(x_at(v), bottom + 20, f.x.tick_label(v), "text-anchor=\"middle\"");
  if (y_ticks)
    for (const double v : f.y.ticks()) svg += text(f.left - 8, y_at(v) + 4, f.y.tick_label(v), "text-anchor=\"end\"");
  svg += text(f.left + f.width / 2, bottom + 46, x_title, "text-anchor=\"middle\" font-size=\"14\"");
  svg += fmt::format(
      "<text transform=\"translate({:.1f},{:.1f}) rotate(-90)\" text-anchor=\"middle\" font-size=\"14\">{}</text>\n",
      f.left - 64, f.top + f.height / 2, escape(y_title));
  return svg;
}

std::string triangle(double x, double y, double r, std::string_view style) {
  return fmt::format("<polygon points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\" {}/>\n", x, y - r, x - r * 0.9,
                     y + r * 0.6, x + r * 0.9, y + r * 0.6, style);
}

std::string square(double x, double y, double r, std::string_view style) {
  return fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" {}/>\n", x - r, y - r, 2 * r,
                     2 * r, style);
}

std::string circle(double x, double y, double r, std::string_view style) {
  return fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" {}/>\n", x, y, r, style);
}

std::string diamond(double x, double y, double r, std::string_view style) {
  return fmt::format("<polygon points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\" {}/>\n", x, y - r,
                     x + r, y, x, y + r, x - r, y, style);
}

const char* series_colour(std::size_t i) {
  static constexpr const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                            "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return colours[i % std::size(colours)];
}

const char* series_dash(std::size_t i) {
  static constexpr const char* dashes[] = {"none", "7,4", "2,3", "9,3,2,3"};
  return dashes[i % std::size(dashes)];
}

}  // namespace ctrl::tool::plot
