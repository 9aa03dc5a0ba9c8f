#include <ctrl/loop/front_file.hpp>

#include <ctrl/errors.hpp>
#include <ctrl/io/files.hpp>
#include <ctrl/sizes.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

namespace ctrl::loop {

namespace {

using json = nlohmann::ordered_json;

json point_json(const partition::Solution& s, bool time_only) {
  if (time_only) return json{{"time", s.time}, {"distribution", s.distribution}};
  return json{{"time", s.time}, {"energy", s.energy}, {"distribution", s.distribution}};
}

// An integer of the file. nlohmann's get<index_t> casts whatever number the value holds: a float
// beyond index_t (1e19) is undefined behaviour, an unsigned one beyond it wraps.
partition::Size integer(const json& v, const std::string& where, const char* what) {
  constexpr auto most = std::numeric_limits<partition::Size>::max();
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(most)))
    throw UsageError(fmt::format("{}: {} {} is not an integer of at most {}", where, what, v.dump(), most));
  return v.get<partition::Size>();
}

double non_negative(const json& v, const std::string& where, const char* what) {
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
    throw UsageError(fmt::format("{}: {} {} is not a non-negative number", where, what, v.dump()));
  return v.get<double>();
}

partition::Solution parse_point(const json& p, const FrontFile& f, const std::string& where) {
  partition::Solution s;
  s.time = non_negative(p.at("time"), where, "the time");
  if (!f.time_only) s.energy = non_negative(p.at("energy"), where, "the energy");
  const json& parts = p.at("distribution");
  if (!parts.is_array()) throw UsageError(where + ": the distribution is not a list");
  for (const json& part : parts) {
    const auto x = integer(part, where, "a distribution part");
    if (x < 0) throw UsageError(fmt::format("{}: a distribution part {} is negative", where, x));
    s.distribution.push_back(x);
  }
  if (s.distribution.size() != f.processors.size())
    throw UsageError(fmt::format("{}: a distribution of {} parts for {} processors", where, s.distribution.size(),
                                 f.processors.size()));
  // A hand-edited point would otherwise run (and be compared with predictions) as another workload.
  index_t sum = 0;
  try {
    sum = checked_sum(s.distribution);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: {}", where, e.what()));
  }
  if (sum != f.workload)
    throw UsageError(
        fmt::format("{}: the distribution sums to {}, not to the front's workload {}", where, sum, f.workload));
  return s;
}

// {"cpu:0-7": "estimated", ...}: one value for each processor, in the processors' order.
std::vector<energy::Provenance> provenance_of_processors(const json& j, const FrontFile& f, const std::string& path) {
  if (!j.is_object() || j.size() != f.processors.size())
    throw UsageError(fmt::format("{}: energy_provenance is not one value per processor", path));
  std::vector<energy::Provenance> out;
  for (const auto& name : f.processors) {
    if (!j.contains(name)) throw UsageError(fmt::format("{}: energy_provenance has no value for {}", path, name));
    const auto p = energy::parse_provenance(j.at(name).get<std::string>());
    if (!p)
      throw UsageError(fmt::format("{}: energy_provenance of {} is {}, none of measured, estimated, absent", path, name,
                                   j.at(name).dump()));
    out.push_back(*p);
  }
  return out;
}

FrontFile parse_document(const json& doc, const std::string& path) {
  FrontFile f;
  f.processors = doc.at("processors").get<std::vector<std::string>>();
  if (f.processors.empty()) throw UsageError(path + ": no processors");
  f.workload = integer(doc.at("workload"), path, "the workload");
  if (f.workload <= 0) throw UsageError(fmt::format("{}: the workload {} is not positive", path, f.workload));
  const std::string energy = doc.contains("energy") ? doc.at("energy").get<std::string>() : "dynamic";
  if (energy != "dynamic" && energy != "total" && energy != "none")
    throw UsageError(fmt::format("{}: energy \"{}\" is none of \"dynamic\", \"total\", \"none\"", path, energy));
  f.time_only = energy == "none";
  f.model.kind = energy == "total" ? partition::EnergyKind::total : partition::EnergyKind::dynamic;
  if (doc.contains("base_power")) f.model.base_power = non_negative(doc.at("base_power"), path, "the base power");
  if (doc.contains("energy_provenance")) f.provenance = provenance_of_processors(doc.at("energy_provenance"), f, path);
  const json& front = doc.at("front");
  if (!front.is_array() || front.empty()) throw UsageError(path + ": the front is empty");
  for (std::size_t k = 0; k < front.size(); ++k) {
    const std::string where = fmt::format("{}: point {}", path, k + 1);
    f.front.push_back(parse_point(front[k], f, where));
    // The picks (fastest first, least energy last) rely on the order `ctrl pareto` writes.
    if (k > 0 && f.front[k].time < f.front[k - 1].time)
      throw UsageError(fmt::format("{}: faster than point {}: a front is sorted by time", where, k));
  }
  return f;
}

}  // namespace

std::string front_json(const FrontFile& f) {
  if (f.front.empty()) throw UsageError("front_json: the front is empty");
  if (!f.provenance.empty() && f.provenance.size() != f.processors.size())
    throw UsageError("front_json: energy provenance for another number of processors");
  json front = json::array();
  for (const auto& s : f.front) front.push_back(point_json(s, f.time_only));
  json doc{{"processors", f.processors}, {"workload", f.workload}};
  if (f.time_only) {
    doc["energy"] = "none";
  } else {
    doc["energy"] = f.model.kind == partition::EnergyKind::total ? "total" : "dynamic";
    doc["base_power"] = f.model.base_power;
  }
  if (!f.provenance.empty()) {
    json provenance = json::object();
    for (std::size_t i = 0; i < f.processors.size(); ++i)
      provenance[f.processors[i]] = std::string(energy::to_string(f.provenance[i]));
    doc["energy_provenance"] = std::move(provenance);
  }
  doc["time_optimal"] = point_json(f.front.front(), f.time_only);
  doc["front"] = std::move(front);
  return doc.dump(2) + "\n";
}

FrontFile parse_front_file(const std::string& text, const std::string& path) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    throw UsageError(fmt::format("{}: not JSON ({})", path, e.what()));
  }
  try {
    return parse_document(doc, path);
  } catch (const json::exception& e) {
    throw UsageError(fmt::format("{}: not a front written by `ctrl pareto --format json` ({})", path, e.what()));
  }
}

FrontFile read_front_file(const std::string& path) {
  return parse_front_file(io::read_input(path), path);  // a FIFO is refused, not waited on
}

}  // namespace ctrl::loop
