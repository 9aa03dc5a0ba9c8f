#include "front_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace ctrl::tool {

namespace {

constexpr double width = 960, height = 600;
constexpr double left = 96, right = 300, top = 64, bottom = 78;  // margins; the legend is on the right

std::string escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// An axis: the data range widened to round ticks.
struct Axis {
  double lo = 0, hi = 1, step = 1;

  static Axis fit(double a, double b) {
    const bool non_negative = a >= 0;  // seconds and joules: the data decides, not the padding
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
    double step = mag;
    for (const double f : {1.0, 2.0, 2.5, 5.0, 10.0})
      if (f * mag >= raw) {
        step = f * mag;
        break;
      }
    Axis ax;
    ax.step = step;
    ax.lo = std::floor(a / step) * step;
    ax.hi = std::ceil(b / step) * step;
    if (non_negative && ax.lo < 0) ax.lo = 0;  // no negative seconds or joules
    return ax;
  }
  double frac(double v) const { return (v - lo) / (hi - lo); }
};

std::string label(double v, double step) {
  // As many decimals as the step needs (2.5 needs one, 0.25 two, 5 none).
  int decimals = 0;
  for (double scaled = step; decimals < 9 && std::fabs(scaled - std::round(scaled)) > 1e-9 * scaled; scaled *= 10) ++decimals;
  return fmt::format("{:.{}f}", std::fabs(v) < step * 1e-6 ? 0.0 : v, decimals);
}

std::string triangle(double x, double y, double r, const char* style) {
  return fmt::format("<polygon points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\" {}/>\n", x, y - r, x - r * 0.9,
                     y + r * 0.6, x + r * 0.9, y + r * 0.6, style);
}

std::string square(double x, double y, double r, const char* style) {
  return fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" {}/>\n", x - r, y - r, 2 * r,
                     2 * r, style);
}

std::string circle(double x, double y, double r, const char* style) {
  return fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" {}/>\n", x, y, r, style);
}

constexpr const char* fast_style = "fill=\"#d62728\" stroke=\"#7f1414\" stroke-width=\"1\"";
constexpr const char* frugal_style = "fill=\"#2ca02c\" stroke=\"#145214\" stroke-width=\"1\"";
constexpr const char* balanced_style = "fill=\"none\" stroke=\"#1f5fd6\" stroke-width=\"2.5\"";
constexpr const char* point_style = "fill=\"#333333\"";

}  // namespace

std::string front_svg(const FrontReport& r) {
  const auto& front = r.front;
  double t0 = front.front().time, t1 = front.back().time;
  double e0 = front.back().energy, e1 = front.front().energy;
  for (const auto& s : front) {
    t0 = std::min(t0, s.time);
    t1 = std::max(t1, s.time);
    e0 = std::min(e0, s.energy);
    e1 = std::max(e1, s.energy);
  }
  if (r.load_balanced) {
    t0 = std::min(t0, r.load_balanced->time);
    t1 = std::max(t1, r.load_balanced->time);
    e0 = std::min(e0, r.load_balanced->energy);
    e1 = std::max(e1, r.load_balanced->energy);
  }
  const Axis ax = Axis::fit(t0, t1), ay = Axis::fit(e0, e1);
  const double pw = width - left - right, ph = height - top - bottom;
  const auto X = [&](double t) { return left + ax.frac(t) * pw; };
  const auto Y = [&](double e) { return top + (1 - ay.frac(e)) * ph; };

  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"13\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      width, height);
  svg += fmt::format("<text x=\"{:.1f}\" y=\"30\" font-size=\"17\" font-weight=\"bold\">{}</text>\n", left,
                     escape(fmt::format("Pareto front: workload {} on {} processors, time and {} energy", r.workload,
                                        r.processors.size(), r.energy_name())));
  svg += fmt::format("<text x=\"{:.1f}\" y=\"50\" fill=\"#555555\">{}</text>\n", left,
                     escape(fmt::format("{}{}", r.profile_path,
                                        r.model.kind == partition::EnergyKind::total
                                            ? fmt::format(", base power {:g} W", r.model.base_power)
                                            : std::string())));

  // Grid, ticks and axes.
  svg += "<g stroke=\"#e4e4e4\" stroke-width=\"1\">\n";
  for (double v = ax.lo; v <= ax.hi + ax.step * 1e-9; v += ax.step)
    svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\"/>\n", X(v), top, top + ph);
  for (double v = ay.lo; v <= ay.hi + ay.step * 1e-9; v += ay.step)
    svg += fmt::format("<line x1=\"{1:.1f}\" y1=\"{0:.1f}\" x2=\"{2:.1f}\" y2=\"{0:.1f}\"/>\n", Y(v), left, left + pw);
  svg += "</g>\n";
  svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#333333\"/>\n",
                     left, top, pw, ph);
  for (double v = ax.lo; v <= ax.hi + ax.step * 1e-9; v += ax.step)
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", X(v), top + ph + 20,
                       label(v, ax.step));
  for (double v = ay.lo; v <= ay.hi + ay.step * 1e-9; v += ay.step)
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", left - 8, Y(v) + 4,
                       label(v, ay.step));
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" font-size=\"14\">parallel execution time (s)</text>\n",
                     left + pw / 2, height - 24);
  svg += fmt::format("<text transform=\"translate({:.1f},{:.1f}) rotate(-90)\" text-anchor=\"middle\" font-size=\"14\">{} energy (J)</text>\n",
                     24.0, top + ph / 2, r.energy_name());

  // The front: the staircase of the best energy reachable by each time, then the points.
  std::string path = fmt::format("M{:.1f},{:.1f}", X(front[0].time), Y(front[0].energy));
  for (std::size_t i = 1; i < front.size(); ++i)
    path += fmt::format(" H{:.1f} V{:.1f}", X(front[i].time), Y(front[i].energy));
  svg += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"#999999\" stroke-width=\"1.2\" stroke-dasharray=\"4,3\"/>\n", path);
  const double pr = front.size() > 300 ? 2.0 : 3.0;
  for (const auto& s : front) svg += circle(X(s.time), Y(s.energy), pr, point_style);
  svg += triangle(X(r.time_optimal().time), Y(r.time_optimal().energy), 9, fast_style);
  svg += square(X(r.energy_optimal().time), Y(r.energy_optimal().energy), 6.5, frugal_style);
  if (r.load_balanced) svg += circle(X(r.load_balanced->time), Y(r.load_balanced->energy), 8, balanced_style);

  // Legend.
  const double lx = width - right + 24;
  double ly = top + 10;
  const auto entry = [&](const std::string& marker, const std::string& title, const std::string& detail) {
    svg += marker;
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", lx + 22, ly + 4, escape(title));
    if (!detail.empty())
      svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"#555555\" font-size=\"12\">{}</text>\n", lx + 22,
                         ly + 21, escape(detail));
    ly += detail.empty() ? 28 : 46;
  };
  const auto values = [](const partition::Solution& s) { return fmt::format("{:.4g} s, {:.4g} J", s.time, s.energy); };
  entry(circle(lx + 8, ly, pr, point_style), fmt::format("Pareto-optimal ({} point{})", front.size(), front.size() == 1 ? "" : "s"), "");
  entry(triangle(lx + 8, ly, 9, fast_style), "time-optimal", values(r.time_optimal()));
  entry(square(lx + 8, ly, 6.5, frugal_style), "energy-optimal", values(r.energy_optimal()));
  if (r.load_balanced)
    entry(circle(lx + 8, ly, 8, balanced_style), "load-balanced", values(*r.load_balanced));
  else
    entry(circle(lx + 8, ly, 8, balanced_style), "load-balanced: none",
          "no split gives every processor work");
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"#555555\" font-size=\"12\">processors:</text>\n", lx, ly + 6);
  ly += 24;
  for (std::size_t i = 0; i < r.processors.size() && i < 12; ++i, ly += 17)
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"#555555\" font-size=\"12\">{}</text>\n", lx + 8, ly,
                       escape(r.processors[i]));
  if (r.processors.size() > 12)
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"#555555\" font-size=\"12\">... {} more</text>\n", lx + 8,
                       ly, r.processors.size() - 12);
  svg += "</svg>\n";
  return svg;
}

}  // namespace ctrl::tool
