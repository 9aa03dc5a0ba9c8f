// `ctrl power --check`: each device's energy counter against its own power readings, integrated
// over the same window (energy/counter_check.hpp), as a terminal table or JSON (docs/tool.md).
#pragma once
#include <ctrl/energy/counter_check.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace ctrl::tool {

struct CheckedDevice {
  std::string device;          // "cuda:0"
  std::string absent;          // why the device has no meter at all ("no sensor: ..."); else empty
  energy::CounterCheck check;  // check.absent_reason: why its meter was not compared
};

void write_check_table(std::ostream& out, const std::vector<CheckedDevice>& rows, double seconds, double interval_s);
std::string check_json(const std::vector<CheckedDevice>& rows, double seconds, double interval_s);

}  // namespace ctrl::tool
