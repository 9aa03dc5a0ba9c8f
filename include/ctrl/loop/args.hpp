// Parsing of the loop's command-line values, shared by the tool and its tests. Every error is a
// UsageError that quotes the text and says what was expected.
#pragma once
#include <ctrl/device_spec.hpp>
#include <ctrl/threads.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ctrl::loop {

// "FROM:TO:STEP" (TO included when reached), "a,b,c", or one number; positive, sorted, unique.
std::vector<index_t> parse_sizes(std::string_view text);
// Several --sizes options merged.
std::vector<index_t> parse_sizes(const std::vector<std::string>& texts);

// --sizes options, each for every processor ("64:1024:64") or for one ("cuda:0=256:4096:256"):
// the sizes of every processor, and those of each processor named (merged per processor, in the
// order first named). UsageError quoting the text that is malformed.
struct SizesOption {
  std::vector<index_t> all;
  std::vector<std::pair<std::string, std::vector<index_t>>> of;
};
SizesOption parse_sizes_options(const std::vector<std::string>& texts);

// "cpu:0-7=SIZE" -> ("cpu:0-7", SIZE), "node2/cuda:0=SIZE" -> ("node2/cuda:0", SIZE); SIZE >= 0.
std::pair<std::string, index_t> parse_split(std::string_view text);

// "cuda:0=75.5" -> (cuda:0, 75.5 W); W >= 0.
std::pair<std::string, double> parse_device_value(std::string_view text, std::string_view what);
// "DEVICE" or "HOST/DEVICE" in canonical form ("cpu:0-3", "node2/cuda:0"); UsageError if malformed.
std::string canonical_processor(std::string_view text);

// A positive integer (e.g. --cols); `what` names the option.
index_t parse_positive(std::string_view text, std::string_view what);

}  // namespace ctrl::loop
