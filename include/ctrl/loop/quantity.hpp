// Times and energies as text, both ways: how reports print them ("12.3 ms", "456 mJ", "+3.2 %")
// and how a bound given by a user reads ("2.5s", "250 ms", "300J", "1.2 kJ").
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace ctrl::loop {

std::string format_seconds(double s);                 // "12.3 ms", "1.234 s", "?" when not finite
std::string format_joules(double j);                  // "12.3 J", "456 mJ"
std::string format_percent(std::optional<double> r);  // +0.032 -> "+3.2 %", "—" when absent

// A positive, finite number with a unit: seconds (s, ms, us) or joules (J, kJ, mJ); a space
// before the unit allowed. UsageError quoting `text`, naming `what` and the units expected.
double parse_seconds(std::string_view text, std::string_view what);
double parse_joules(std::string_view text, std::string_view what);

}  // namespace ctrl::loop
