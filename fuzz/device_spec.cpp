// Device specs (`--device cpu:0-3`, `cuda:0`, profile and front processor names): parse_device
// and parse_cores.
// Oracle: malformed text throws UsageError and nothing else; what parses prints (str,
// format_cores) as text that parses back to the same value.
#include "input_file.hpp"

#include <ctrl/device_spec.hpp>
#include <ctrl/errors.hpp>

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const ctrl::DeviceSpec spec = ctrl::parse_device(text);
    if (ctrl::parse_device(spec.str()) != spec) ctrl::fuzz::fail("'" + spec.str() + "' reads back differently");
  } catch (const ctrl::UsageError&) {
  }
  try {
    const std::vector<int> cores = ctrl::parse_cores(text);
    if (ctrl::parse_cores(ctrl::format_cores(cores)) != cores) ctrl::fuzz::fail("core list reads back differently");
  } catch (const ctrl::UsageError&) {
  }
  return 0;
}
