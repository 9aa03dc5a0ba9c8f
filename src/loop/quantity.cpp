#include <ctrl/loop/quantity.hpp>

#include <ctrl/errors.hpp>

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <utility>

namespace ctrl::loop {

std::string format_seconds(double s) {
  if (!std::isfinite(s)) return "?";
  const double a = std::fabs(s);
  if (a != 0 && a < 1e-3) return fmt::format("{:.1f} us", s * 1e6);
  if (a < 1) return fmt::format("{:.3g} ms", s * 1e3);
  return fmt::format("{:.4g} s", s);
}

std::string format_joules(double j) {
  if (!std::isfinite(j)) return "?";
  const double a = std::fabs(j);
  if (a != 0 && a < 1) return fmt::format("{:.3g} mJ", j * 1e3);
  return fmt::format("{:.4g} J", j);
}

std::string format_percent(std::optional<double> r) {
  if (!r || !std::isfinite(*r)) return "—";
  return fmt::format("{:+.1f} %", *r * 100);
}

namespace {

using Units = std::array<std::pair<std::string_view, double>, 3>;

double parse_quantity(std::string_view text, std::string_view what, const Units& units, std::string_view expected) {
  const auto refuse = [&] {
    return UsageError(fmt::format("{} '{}': a positive number with a unit is needed ({})", what, text, expected));
  };
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end == text.data() || !std::isfinite(v) || v <= 0) throw refuse();
  std::string_view unit = text.substr(static_cast<std::size_t>(end - text.data()));
  if (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  for (const auto& [name, scale] : units)
    if (unit == name) return v * scale;
  throw refuse();
}

}  // namespace

double parse_seconds(std::string_view text, std::string_view what) {
  return parse_quantity(text, what, Units{{{"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}}}, "s, ms or us: 2.5s, 250ms");
}

double parse_joules(std::string_view text, std::string_view what) {
  return parse_quantity(text, what, Units{{{"J", 1.0}, {"kJ", 1e3}, {"mJ", 1e-3}}}, "J, kJ or mJ: 300J, 1.2kJ");
}

}  // namespace ctrl::loop
