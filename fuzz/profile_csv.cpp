// The profile CSV of `ctrl pareto` and `ctrl run --profile`: parse_profile_csv (read_profile_csv
// only reads the file into a string first).
// Oracle: malformed text throws UsageError and nothing else; a profile that parses names each
// processor once.
#include "input_file.hpp"

#include <ctrl/errors.hpp>
#include <ctrl/partition/profile_csv.hpp>

#include <algorithm>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const ctrl::partition::Profile profile = ctrl::partition::parse_profile_csv(text, "fuzz.csv");
    std::vector<std::string> names = profile.names();
    std::sort(names.begin(), names.end());
    if (std::adjacent_find(names.begin(), names.end()) != names.end()) ctrl::fuzz::fail("a processor appears twice");
  } catch (const ctrl::UsageError&) {
  }
  return 0;
}
