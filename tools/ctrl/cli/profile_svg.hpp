// `ctrl pareto --plot-profile`: the profile a front is computed from, as an SVG beside the front's
// plot (svg_plot.hpp). Left, the time of one run against the size, one line per processor; right,
// the energy of one run against the size for the processors that measured it, or "energy not
// measured" in its place when none did (never an axis of zeros). The legend names each processor
// with its energy source ("nvml:0", "no sensor") when the profile is a `ctrl profile` file.
#pragma once
#include "front_svg.hpp"

#include <ctrl/loop/profile_file.hpp>

#include <string>

namespace ctrl::tool {

// Which processors measured energy: from the energy_source column of a `ctrl profile` file, else
// from whether any of a processor's energies is non-zero.
EnergyCoverage energy_coverage(const loop::LoadedProfile& loaded);

// `path` is the profile's name as the user gave it, for the subtitle.
std::string profile_svg(const loop::LoadedProfile& loaded, const std::string& path);

}  // namespace ctrl::tool
