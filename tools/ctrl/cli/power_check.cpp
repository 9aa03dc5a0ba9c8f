#include "power_check.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ctrl::tool {

namespace {

std::string why_not_compared(const CheckedDevice& d) { return d.absent.empty() ? d.check.absent_reason : d.absent; }

// "agree", or how far apart beyond what the counter's resolution explains.
std::string verdict(const energy::CounterCheck& c) {
  const double r = c.ratio().value_or(0.0);
  if (!c.disagree()) return fmt::format("agree within the counter's resolution (±{:.1f} %)", 100 * c.resolution);
  return fmt::format("DIFFER by {:+.1f} % (the counter's resolution explains ±{:.1f} %)", 100 * (r - 1.0),
                     100 * c.resolution);
}

}  // namespace

void write_check_table(std::ostream& out, const std::vector<CheckedDevice>& rows, double seconds, double interval_s) {
  out << fmt::format("Energy counter against integrated power readings over {:g} s (power read every {:g} ms)\n",
                     seconds, 1e3 * interval_s);
  for (const auto& d : rows) {
    const energy::CounterCheck& c = d.check;
    if (!c.compared() || !d.absent.empty()) {
      out << fmt::format("  {:<12} not compared: {}\n", d.device, why_not_compared(d));
      continue;
    }
    const auto ratio = c.ratio();
    out << fmt::format("  {:<12} counter {:>10.3f} J   integrated power {:>10.3f} J   ratio {}   {}\n", d.device,
                       c.counter_j, c.integrated_j, ratio ? fmt::format("{:.4f}", *ratio) : std::string("—"), c.meter);
    out << fmt::format("  {:<12} {} power readings over {:.2f} s, at most {:.1f} ms apart, {:.1f}-{:.1f} W; {}\n", "",
                       c.samples, c.seconds, 1e3 * c.max_gap_s, c.min_power_w.value_or(0.0),
                       c.max_power_w.value_or(0.0), verdict(c));
  }
}

std::string check_json(const std::vector<CheckedDevice>& rows, double seconds, double interval_s) {
  using json = nlohmann::ordered_json;
  json arr = json::array();
  for (const auto& d : rows) {
    const energy::CounterCheck& c = d.check;
    json j{{"device", d.device}, {"meter", c.meter.empty() ? "none" : c.meter}};
    if (!c.compared() || !d.absent.empty()) {
      j["compared"] = false;
      j["reason"] = why_not_compared(d);
    } else {
      const auto ratio = c.ratio();
      j["compared"] = true;
      j["seconds"] = c.seconds;
      j["counter_j"] = c.counter_j;
      j["integrated_j"] = c.integrated_j;
      j["ratio"] = ratio ? json(*ratio) : json(nullptr);
      j["samples"] = c.samples;
      j["max_gap_s"] = c.max_gap_s;
      j["min_power_w"] = c.min_power_w.value_or(0.0);
      j["max_power_w"] = c.max_power_w.value_or(0.0);
      j["resolution"] = c.resolution;
      j["disagree"] = c.disagree();
    }
    arr.push_back(std::move(j));
  }
  return json{{"seconds", seconds}, {"interval_s", interval_s}, {"devices", std::move(arr)}}.dump(2) + "\n";
}

}  // namespace ctrl::tool
