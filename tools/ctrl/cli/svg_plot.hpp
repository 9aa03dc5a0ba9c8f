// The small plotting kit of `ctrl pareto --plot` and `--plot-profile` (hand-written SVG, no
// plotting library): readable units chosen from the data (s, ms, µs, ns; kJ, J, mJ, µJ; sizes in
// thousands or millions), axes with "nice" ticks (1, 2, 2.5 or 5 times a power of ten), and the
// few SVG elements both plots draw.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ctrl::tool::plot {

enum class Quantity { time, energy, count };

// A display unit: a value in base units (s, J, 1) shows as value / scale followed by the symbol.
struct Unit {
  double scale = 1.0;
  std::string symbol;  // "ms", "J"; "" for plain counts
  std::string name;    // for an axis title: "ms", "J", "thousands", "" for plain counts
};

// The largest unit in which `magnitude` (>= 0, base units) is at least 1; the base unit for 0.
Unit unit_for(Quantity q, double magnitude);
// A value with its own unit and 4 significant digits: "13.02 ms", "1.988 J", "0 s".
std::string format_quantity(double value, Quantity q);

// One axis: [lo, hi] in display units, ticks every `step` from lo.
struct Axis {
  double lo = 0, hi = 1, step = 1;
  Unit unit;

  // Fits [a, b] (base units, a <= b; a >= 0 for every quantity here) in the unit that the larger
  // end needs, widened a little and to whole steps, never below 0.
  static Axis fit(double a, double b, Quantity q);
  // Where a value in base units falls: 0 at lo, 1 at hi.
  double frac(double base_value) const { return (base_value / unit.scale - lo) / (hi - lo); }
  std::vector<double> ticks() const;          // display units
  std::string tick_label(double tick) const;  // as many decimals as the step needs
  // "parallel execution time (ms)": a title with the unit in brackets (none for plain counts).
  std::string title(std::string_view what) const;
};

// A plotting area of the page, in pixels, with its two axes.
struct Frame {
  double left = 0, top = 0, width = 1, height = 1;
  Axis x, y;
  double X(double base_value) const { return left + x.frac(base_value) * width; }
  double Y(double base_value) const { return top + (1 - y.frac(base_value)) * height; }
};

std::string escape(std::string_view text);

// <svg ...> with a white background; the caller ends it with "</svg>\n".
std::string svg_open(double width, double height);
// A <text> element; `attrs` are extra attributes ("text-anchor=\"end\" fill=\"#555555\"").
std::string text(double x, double y, std::string_view content, std::string_view attrs = "");
// Grid, frame, tick labels and axis titles of `f` (the y grid and ticks left out when
// `y_ticks` is false, for a plot whose rows are not a quantity).
std::string axes(const Frame& f, std::string_view x_title, std::string_view y_title, bool y_ticks = true);

// Markers centred on (x, y) with "radius" r.
std::string triangle(double x, double y, double r, std::string_view style);
std::string square(double x, double y, double r, std::string_view style);
std::string circle(double x, double y, double r, std::string_view style);
std::string diamond(double x, double y, double r, std::string_view style);

// The colour of series i (ten distinct colours, then again), and its dash pattern (solid, then
// three others, so that lines on top of one another still show).
const char* series_colour(std::size_t i);
const char* series_dash(std::size_t i);

}  // namespace ctrl::tool::plot
