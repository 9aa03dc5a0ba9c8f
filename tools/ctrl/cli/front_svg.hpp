// `ctrl pareto --plot`: the front as a hand-written SVG (svg_plot.hpp).
//
// With energy: time across and energy up, in units that suit the data (ms, J, ...), the staircase
// of the front, and the marked distributions: time-optimal (red triangle), energy-optimal (green
// square), load-balanced (the paper's equal times: blue ring, as in its figures), even split (grey
// diamond) and, for each time budget of the analysis (at most 4), the least energy within it
// (orange diamond) with the budget's time limit as a dashed orange line. Each is labelled on the
// plot with its name and distribution (the parts in the processors' order, listed in the legend);
// marks that would fall on one spot are fanned out around it, joined to it by a thin line, so that
// every one stays visible. Processors without an energy sensor are named in the legend. The page
// grows downwards when the legend needs it.
//
// Without energy (no processor measured any: no sensor, or every energy 0), or for --time-only:
// no energy axis. The plot is then the parallel time of each distribution of the front, of the
// load-balanced one and of the even split, one bar per row, and says "energy not measured" (or
// "energy not compared") and which processors lack a sensor. Processors whose energy is estimated
// are named so.
#pragma once
#include "front_format.hpp"

#include <string>
#include <vector>

namespace ctrl::tool {

// What the profile says about energy, for the plots to show.
struct EnergyCoverage {
  std::vector<bool> metered;    // per processor, in the report's order: its energy was measured
                                // (empty: unknown, no processor is named as lacking it)
  bool from_sensors = false;    // `metered` is whether it has a sensor (a `ctrl profile` file's
                                // energy_source), not only whether its energies are non-zero
  bool measured = true;         // false: no processor measured a non-zero energy
  std::vector<bool> estimated;  // per processor: its energy is estimated, not measured (empty: none is)
  bool time_only = false;       // --time-only: energy not compared, whatever was measured
};

std::string front_svg(const FrontReport& report, const EnergyCoverage& coverage = {});

}  // namespace ctrl::tool
