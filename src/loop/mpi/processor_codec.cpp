#include "mpi/processor_codec.hpp"

#include <optional>
#include <string>

namespace ctrl::loop::mpi {

namespace {

nlohmann::json optional_number(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

std::optional<double> number_or_none(const nlohmann::json& j) {
  if (j.is_null()) return std::nullopt;
  return j.get<double>();
}

}  // namespace

nlohmann::json encode(const loop::ProcessorInfo& p) {
  return {{"spec", p.spec.str()},
          {"name", p.name},
          {"description", p.description},
          {"energy_source", p.energy_source},
          {"energy_absent", p.energy_absent},
          {"energy_provenance", std::string(energy::to_string(p.energy_provenance))},
          {"energy_measures", p.energy_measures},
          {"update_interval_s", p.update_interval_s},
          {"base_power_w", optional_number(p.base_power_w)},
          {"base_power_origin", p.base_power_origin}};
}

loop::ProcessorInfo decode_processor(const nlohmann::json& j) {
  loop::ProcessorInfo p;
  p.spec = parse_device(j.at("spec").get<std::string>());
  p.name = j.at("name").get<std::string>();
  p.description = j.at("description").get<std::string>();
  p.energy_source = j.at("energy_source").get<std::string>();
  p.energy_absent = j.at("energy_absent").get<std::string>();
  p.energy_provenance =
      energy::parse_provenance(j.at("energy_provenance").get<std::string>()).value_or(energy::Provenance::absent);
  p.energy_measures = j.at("energy_measures").get<std::string>();
  p.update_interval_s = j.at("update_interval_s").get<double>();
  p.base_power_w = number_or_none(j.at("base_power_w"));
  p.base_power_origin = j.at("base_power_origin").get<std::string>();
  return p;
}

nlohmann::json encode(const loop::Check& c) {
  return {{"ok", c.ok}, {"worst", c.worst}, {"rows", c.rows_checked}, {"method", c.method}, {"detail", c.detail}};
}

loop::Check decode_check(const nlohmann::json& j) {
  loop::Check c;
  c.ok = j.at("ok").get<bool>();
  c.worst = j.at("worst").get<double>();
  c.rows_checked = j.at("rows").get<std::size_t>();
  c.method = j.at("method").get<std::string>();
  c.detail = j.at("detail").get<std::string>();
  return c;
}

nlohmann::json encode(const loop::RoundResult& r) {
  nlohmann::json energies = nlohmann::json::array();
  for (const auto& e : r.dynamic_j) energies.push_back(optional_number(e));
  return {{"batch", r.batch},     {"runs", r.runs},   {"wall", r.wall_s},
          {"window", r.window_s}, {"time", r.time_s}, {"energy", energies}};
}

loop::RoundResult decode_round(const nlohmann::json& j) {
  loop::RoundResult r;
  r.batch = j.at("batch").get<int>();
  r.runs = j.at("runs").get<std::vector<int>>();
  r.wall_s = j.at("wall").get<double>();
  r.window_s = j.at("window").get<double>();
  r.time_s = j.at("time").get<std::vector<double>>();
  for (const auto& e : j.at("energy")) r.dynamic_j.push_back(number_or_none(e));
  return r;
}

}  // namespace ctrl::loop::mpi
