// The profile file `ctrl profile` writes and resumes: read_profile_file and is_profile_file
// (they take a path, so each input is written to a memory file first).
// Oracle: a malformed file throws UsageError and nothing else; the rows a file yields, written
// again as a resumed profile rewrites them (header + format_profile_row), read back unchanged.
#include "input_file.hpp"

#include <ctrl/loop/profile_file.hpp>

#include <ctrl/errors.hpp>

#include <cmath>
#include <optional>

namespace {

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }
bool same(const std::optional<double>& a, const std::optional<double>& b) {
  return a.has_value() == b.has_value() && (!a || same(*a, *b));
}
bool same(const ctrl::loop::ProfileRow& a, const ctrl::loop::ProfileRow& b) {
  return a.processor == b.processor && a.size == b.size && same(a.time, b.time) && same(a.energy, b.energy) &&
         a.reps == b.reps && a.batch == b.batch && same(a.time_ci, b.time_ci) && same(a.energy_ci, b.energy_ci) &&
         same(a.energy_measured, b.energy_measured) && same(a.base_power, b.base_power) &&
         a.energy_source == b.energy_source && a.energy_provenance == b.energy_provenance &&
         a.converged == b.converged && same(a.gflops, b.gflops) && a.app == b.app && a.cols == b.cols;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace wl = ctrl::loop;
  static ctrl::fuzz::InputFile file("profile_file");
  const std::string& path = file.write(data, size);
  (void)wl::is_profile_file(path);
  wl::ProfileFile pf;
  try {
    pf = wl::read_profile_file(path);
  } catch (const ctrl::UsageError&) {
    return 0;
  }
  std::string text = wl::profile_header() + "\n";
  for (const auto& r : pf.rows) text += wl::format_profile_row(r) + "\n";
  const wl::ProfileFile back = wl::read_profile_file(file.write(text));
  if (back.rows.size() != pf.rows.size() || back.dropped_rows != 0)
    ctrl::fuzz::fail("rewritten profile reads back with another number of rows");
  for (std::size_t i = 0; i < pf.rows.size(); ++i)
    if (!same(back.rows[i], pf.rows[i])) ctrl::fuzz::fail("row " + std::to_string(i) + " reads back differently");
  return 0;
}
