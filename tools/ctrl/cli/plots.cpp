#include "plots.hpp"

#include "command.hpp"
#include "front_svg.hpp"
#include "profile_svg.hpp"

#include <ctrl/io/files.hpp>

#include <exception>
#include <vector>

namespace ctrl::tool {

void check_plot_files(const std::string& profile_path, const PlotFiles& files) {
  if (files.front.empty() && files.profile.empty()) return;
  std::vector<io::FileArgument> args{{"--profile", profile_path, false}};
  if (!files.front.empty()) args.push_back({"--plot", files.front, true});
  if (!files.profile.empty()) args.push_back({"--plot-profile", files.profile, true});
  io::check_files(args);  // distinct files, each output writable, named by its option
}

void write_plots(const PlotFiles& files, const FrontReport& report, const loop::LoadedProfile& loaded) {
  const auto write = [](const char* option, const std::string& path, const auto& make) {
    if (path.empty()) return;
    try {
      io::write_file_atomically(path, make());
    } catch (const std::exception& e) {
      throw exit_error(exit_bad_input, std::string(option) + ": " + e.what());
    }
  };
  write("--plot", files.front, [&] {
    EnergyCoverage coverage = energy_coverage(loaded);
    // Energy measured but not compared (--time-only); with none measured, the plot says that instead.
    coverage.time_only = report.time_only && coverage.measured;
    return front_svg(report, coverage);
  });
  write("--plot-profile", files.profile, [&] { return profile_svg(loaded, report.profile_path); });
}

}  // namespace ctrl::tool
