// The plots of `ctrl pareto`: `--plot FILE.svg` (the front, front_svg.hpp) and
// `--plot-profile FILE.svg` (the profile it is computed from, profile_svg.hpp).
#pragma once
#include "front_format.hpp"

#include <ctrl/loop/profile_file.hpp>

#include <string>

namespace ctrl::tool {

struct PlotFiles {
  std::string front;    // --plot; empty: not asked for
  std::string profile;  // --plot-profile; empty: not asked for
};

// Before any work: each plot asked for is a writable regular file (or new), neither is the
// profile, and they are not one file. Throws ctrl::UsageError naming the options.
void check_plot_files(const std::string& profile_path, const PlotFiles& files);

// Writes the plots asked for, each atomically; exit_error (exit 2) naming the option on failure.
void write_plots(const PlotFiles& files, const FrontReport& report, const loop::LoadedProfile& loaded);

}  // namespace ctrl::tool
