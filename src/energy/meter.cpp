// The "no sensor" meter and the one spelling of absence.
#include <ctrl/energy/meter.hpp>

#include <utility>

namespace ctrl::energy {

namespace {
constexpr std::string_view no_sensor_prefix = "no sensor: ";
}

std::string no_sensor(std::string reason) {
  if (reason.rfind(no_sensor_prefix, 0) == 0) return reason;
  if (reason.empty()) reason = "reason unknown";
  return std::string(no_sensor_prefix) + reason;
}

std::string_view to_string(Provenance p) noexcept {
  switch (p) {
    case Provenance::measured:
      return "measured";
    case Provenance::estimated:
      return "estimated";
    case Provenance::absent:
      return "absent";
  }
  return "absent";
}

std::optional<Provenance> parse_provenance(std::string_view text) noexcept {
  for (const Provenance p : {Provenance::measured, Provenance::estimated, Provenance::absent})
    if (text == to_string(p)) return p;
  return std::nullopt;
}

NoMeter::NoMeter(std::string name, std::string reason) : reason_(no_sensor(std::move(reason))) {
  info_.name = std::move(name);
  info_.measures = "nothing (" + reason_ + ")";
  info_.update_interval_s = 0.0;
  info_.has_power = false;
  info_.provenance = Provenance::absent;
}

}  // namespace ctrl::energy
