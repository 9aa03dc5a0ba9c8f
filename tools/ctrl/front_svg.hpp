// `ctrl pareto --plot`: the front as a hand-written SVG (no plotting library exists as a package).
// Axes in seconds and joules; the time-optimal point (red triangle), the energy-optimal point
// (green square) and the load-balanced distribution (blue circle, as in the paper's figures) are
// marked and named in the legend, which says so when no load-balanced distribution exists.
#pragma once
#include "front_format.hpp"

#include <string>

namespace ctrl::tool {

std::string front_svg(const FrontReport& report);

}  // namespace ctrl::tool
