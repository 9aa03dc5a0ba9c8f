// The devices the case-study tests run their kernels on: one list for every test, so that a new
// device kind joins all of them at once. "cpu:0" (one worker) and "cpu" (every core) always;
// "offload:0" and "cuda:0" when this build has those kinds and the machine has the device (probed
// by creating a controller). CTRL_TEST_DEVICES="cpu:0;cuda:0" replaces the list.
#pragma once
#include <ctrl/ctrl.hpp>

#include <cstdlib>
#include <string>
#include <vector>

namespace apps::testing {

inline std::vector<std::string> test_devices() {
  std::vector<std::string> devices;
  if (const char* env = std::getenv("CTRL_TEST_DEVICES"); env && *env) {
    std::string list = env;
    for (std::size_t pos = 0; pos <= list.size();) {
      const std::size_t semi = std::min(list.find(';', pos), list.size());
      if (semi > pos) devices.push_back(list.substr(pos, semi - pos));
      pos = semi + 1;
    }
    return devices;
  }
  devices = {"cpu:0", "cpu"};
  for (const char* later : {"offload:0", "cuda:0"}) {
    try {
      ctrl::Controller probe{ctrl::parse_device(later)};
      devices.emplace_back(later);
    } catch (const ctrl::Error&) {
      // not in this build, or no such device here
    }
  }
  return devices;
}

// Test-name-safe spelling: "cpu:0-3" -> "cpu_0_3".
inline std::string device_test_name(std::string device) {
  for (char& c : device)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) c = '_';
  return device;
}

}  // namespace apps::testing
