#include <ctrl/device_spec.hpp>
#include <ctrl/errors.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>

namespace ctrl {

namespace {
int parse_int(std::string_view s, std::string_view whole, std::string_view what) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v < 0) {
    throw UsageError(fmt::format("device '{}': '{}' is not a valid {} (a non-negative integer)", whole, s, what));
  }
  return v;
}
}  // namespace

std::vector<int> parse_cores(std::string_view list) {
  std::vector<int> cores;
  std::set<int> seen;
  std::size_t pos = 0;
  if (list.empty()) throw UsageError("empty core list");
  while (pos <= list.size()) {
    const std::size_t comma = std::min(list.find(',', pos), list.size());
    const std::string_view item = list.substr(pos, comma - pos);
    const std::size_t dash = item.find('-');
    int first, last;
    if (dash == std::string_view::npos) {
      first = last = parse_int(item, list, "core number");
    } else {
      first = parse_int(item.substr(0, dash), list, "core number");
      last = parse_int(item.substr(dash + 1), list, "core number");
      if (last < first) throw UsageError(fmt::format("core list '{}': range '{}' runs backwards", list, item));
    }
    // No machine has this many cores; refusing early keeps "cpu:0-2000000000" from allocating.
    constexpr int max_core = 1 << 16;
    if (last >= max_core) {
      throw UsageError(
          fmt::format("core list '{}': core {} is beyond any machine (at most {})", list, last, max_core - 1));
    }
    for (int c = first; c <= last; ++c) {
      if (!seen.insert(c).second) throw UsageError(fmt::format("core list '{}': core {} appears twice", list, c));
      cores.push_back(c);
    }
    pos = comma + 1;
  }
  return cores;
}

std::string format_cores(const std::vector<int>& cores) {
  std::string s;
  for (std::size_t i = 0; i < cores.size();) {
    std::size_t j = i;
    while (j + 1 < cores.size() && cores[j + 1] == cores[j] + 1) ++j;
    if (!s.empty()) s += ',';
    s += j == i ? fmt::format("{}", cores[i]) : fmt::format("{}-{}", cores[i], cores[j]);
    i = j + 1;
  }
  return s;
}

namespace {
// The one kind numbered rather than named by cores: "cuda:0".
constexpr std::string_view cuda_kind = "cuda";
}  // namespace

bool DeviceSpec::is_cuda() const { return kind == cuda_kind; }

std::string DeviceSpec::str() const {
  if (index >= 0) return fmt::format("{}:{}", kind, index);
  if (!cores.empty()) return fmt::format("{}:{}", kind, format_cores(cores));
  if (count > 0) return fmt::format("{}:x{}", kind, count);
  return kind;
}

DeviceSpec parse_device(std::string_view text) {
  const std::size_t colon = text.find(':');
  const std::string_view kind = text.substr(0, colon);
  if (kind.empty()) throw UsageError(fmt::format("device '{}': no device kind before ':'", text));
  for (char c : kind) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) {
      throw UsageError(fmt::format("device '{}': '{}' is not a device kind (e.g. cpu, cuda, offload)", text, kind));
    }
  }
  DeviceSpec s;
  s.kind = std::string(kind);
  if (colon == std::string_view::npos) {
    if (kind == cuda_kind) s.index = 0;  // "cuda" alone means the first GPU
    return s;
  }
  const std::string_view arg = text.substr(colon + 1);
  if (arg.empty()) throw UsageError(fmt::format("device '{}': nothing after ':'", text));
  if (kind == cuda_kind) {
    s.index = parse_int(arg, text, "device number");
  } else if (arg[0] == 'x') {
    s.count = parse_int(arg.substr(1), text, "core count");
    if (s.count == 0) throw UsageError(fmt::format("device '{}': a core count must be at least 1", text));
  } else {
    try {
      s.cores = parse_cores(arg);
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("device '{}': {}", text, e.what()));
    }
  }
  return s;
}

DeviceSpec cpu() { return DeviceSpec{"cpu", {}, 0, -1}; }
DeviceSpec cpu(std::initializer_list<int> cores) { return cpu(std::vector<int>(cores)); }
DeviceSpec cpu(std::vector<int> cores) {
  if (cores.empty()) throw UsageError("ctrl::cpu: an empty core list");
  return DeviceSpec{"cpu", std::move(cores), 0, -1};
}
DeviceSpec cpu_range(int first, int last) {
  if (first < 0 || last < first)
    throw UsageError(fmt::format("ctrl::cpu_range({}, {}): not a core range", first, last));
  std::vector<int> c;
  for (int i = first; i <= last; ++i) c.push_back(i);
  return cpu(std::move(c));
}
DeviceSpec cpu_count(int n) {
  if (n < 1) throw UsageError(fmt::format("ctrl::cpu_count({}): at least one core", n));
  return DeviceSpec{"cpu", {}, n, -1};
}
DeviceSpec cuda(int index) {
  if (index < 0) throw UsageError(fmt::format("ctrl::cuda({}): device numbers start at 0", index));
  return DeviceSpec{"cuda", {}, 0, index};
}
DeviceSpec offload(std::initializer_list<int> cores) { return offload(std::vector<int>(cores)); }
DeviceSpec offload(std::vector<int> cores) {
  if (cores.empty()) throw UsageError("ctrl::offload: an empty core list");
  return DeviceSpec{"offload", std::move(cores), 0, -1};
}

}  // namespace ctrl
