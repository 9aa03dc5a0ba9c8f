// `ctrl pareto --time-only`: the time-optimal distribution (HPOPTA) and the load-balanced one, with
// no energy (front_format.hpp).
#include "front_format.hpp"

#include <ctrl/io/csv.hpp>
#include <ctrl/loop/front_file.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <string>

namespace ctrl::tool {

namespace {

void write_time_only_table(std::ostream& out, const FrontReport& r) {
  out << fmt::format("Time only (--time-only: energy is not compared): workload {} on {} processors, from {}\n",
                     r.workload, r.processors.size(), r.profile_path);
  out << provenance_line(r);
  out << model_lines(r);
  std::string names;
  for (const auto& name : r.processors) names += (names.empty() ? "" : " ") + name;
  out << fmt::format("  {:<15} {:>12.6g} s   ({}: {}){}\n", "time-optimal", r.time_optimal().time, names,
                     parts_text(r.time_optimal().distribution), r.rests_on_interpolation(0) ? "   ~" : "");
  if (r.load_balanced)
    out << fmt::format("  {:<15} {:>12.6g} s   ({}: {})\n", "load-balanced", r.load_balanced->time, names,
                       parts_text(r.load_balanced->distribution));
  else
    out << "  load-balanced   none: no distribution gives every processor work with these sizes\n";
}

void write_time_only_csv(std::ostream& out, const FrontReport& r) {
  out << "time";
  for (const auto& name : r.processors) out << ',' << io::csv_field(name);
  if (r.interpolates) out << ",interpolated";
  out << '\n' << fmt::format("{}", r.time_optimal().time);
  for (const auto x : r.time_optimal().distribution) out << ',' << x;
  if (r.interpolates) out << ',' << (r.rests_on_interpolation(0) ? 1 : 0);
  out << '\n';
}

}  // namespace

void write_time_only(std::ostream& out, const FrontReport& r, const std::string& format) {
  if (format == "json") {
    auto doc = nlohmann::ordered_json::parse(
        loop::front_json({r.processors, r.workload, r.model, r.front, true, r.provenance}));
    if (!r.model_line.empty()) {
      doc["sizes"] = r.model_line;
      doc["front"][0]["interpolated"] = r.interpolated.at(0);
    }
    out << doc.dump(2) << '\n';
  } else if (format == "csv")
    write_time_only_csv(out, r);
  else
    write_time_only_table(out, r);
}

}  // namespace ctrl::tool
