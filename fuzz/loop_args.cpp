// The loop's option values: --sizes, --split, --base-power, --cols and processor names
// (ctrl/loop/args.hpp). Every input goes through each of them.
// Oracle: malformed text throws UsageError and nothing else; sizes come out positive, sorted and
// unique; a processor name that parses is already canonical when parsed again.
#include "input_file.hpp"

#include <ctrl/loop/args.hpp>

#include <ctrl/errors.hpp>

#include <algorithm>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace wl = ctrl::loop;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const std::vector<ctrl::index_t> sizes = wl::parse_sizes(text);
    if (sizes.empty() || sizes.front() <= 0 ||
        std::adjacent_find(sizes.begin(), sizes.end(), std::greater_equal<>()) != sizes.end())
      ctrl::fuzz::fail("--sizes gave sizes that are not positive, sorted and unique");
  } catch (const ctrl::UsageError&) {
  }
  try {
    const auto [name, rows] = wl::parse_split(text);
    if (rows < 0) ctrl::fuzz::fail("--split gave negative rows");
    if (wl::canonical_processor(name) != name) ctrl::fuzz::fail("--split gave a name that is not canonical");
  } catch (const ctrl::UsageError&) {
  }
  try {
    (void)wl::parse_device_value(text, "--base-power");
  } catch (const ctrl::UsageError&) {
  }
  try {
    if (wl::parse_positive(text, "--cols") <= 0) ctrl::fuzz::fail("--cols gave a value below 1");
  } catch (const ctrl::UsageError&) {
  }
  return 0;
}
