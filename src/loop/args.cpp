#include <ctrl/loop/args.hpp>

#include <ctrl/loop/selection.hpp>

#include <ctrl/errors.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace ctrl::loop {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool to_index(std::string_view s, index_t& v) {
  s = trim(s);
  if (s.empty() || s.front() == '+' || s.front() == '-') return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

index_t parse_positive(std::string_view text, std::string_view what) {
  index_t v = 0;
  if (!to_index(text, v) || v <= 0) throw UsageError(fmt::format("{} '{}': a positive integer is needed", what, text));
  return v;
}

std::vector<index_t> parse_sizes(std::string_view text) {
  const std::string where = fmt::format("--sizes '{}'", text);
  std::vector<index_t> out;
  if (text.find(':') != std::string_view::npos) {
    std::vector<std::string_view> parts;
    std::size_t at = 0;
    for (;;) {
      const std::size_t c = text.find(':', at);
      parts.push_back(text.substr(at, c == std::string_view::npos ? std::string_view::npos : c - at));
      if (c == std::string_view::npos) break;
      at = c + 1;
    }
    if (parts.size() != 3) throw UsageError(where + ": the form is FROM:TO:STEP, e.g. 64:1024:64");
    index_t from = 0, to = 0, step = 0;
    if (!to_index(parts[0], from) || !to_index(parts[1], to) || !to_index(parts[2], step))
      throw UsageError(where + ": FROM, TO and STEP must be non-negative integers");
    if (from <= 0) throw UsageError(where + ": FROM must be positive (size 0 is implicit: no work)");
    if (step <= 0) throw UsageError(where + ": STEP must be positive");
    if (to < from) throw UsageError(where + ": TO is below FROM");
    if ((to - from) / step >= 100000) throw UsageError(where + ": more than 100000 sizes");
    // By count, not `x += step` up to TO: near the top of index_t the sum would wrap.
    for (index_t k = 0; k <= (to - from) / step; ++k) out.push_back(from + k * step);
  } else {
    std::size_t at = 0;
    for (;;) {
      const std::size_t c = text.find(',', at);
      const std::string_view item = text.substr(at, c == std::string_view::npos ? std::string_view::npos : c - at);
      index_t v = 0;
      if (!to_index(item, v) || v <= 0)
        throw UsageError(
            fmt::format("{}: '{}' is not a positive integer (the forms are FROM:TO:STEP or a,b,c)", where, item));
      out.push_back(v);
      if (c == std::string_view::npos) break;
      at = c + 1;
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<index_t> parse_sizes(const std::vector<std::string>& texts) {
  std::vector<index_t> out;
  for (const auto& t : texts) {
    auto s = parse_sizes(t);
    out.insert(out.end(), s.begin(), s.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

SizesOption parse_sizes_options(const std::vector<std::string>& texts) {
  SizesOption out;
  for (const auto& t : texts) {
    const std::size_t eq = t.rfind('=');
    if (eq == std::string::npos) {
      const auto s = parse_sizes(t);
      out.all.insert(out.all.end(), s.begin(), s.end());
      continue;
    }
    std::string name;
    try {
      name = canonical_processor(std::string_view(t).substr(0, eq));
    } catch (const UsageError& e) {
      throw UsageError(
          fmt::format("--sizes '{}': the form is DEVICE=FROM:TO:STEP (cuda:0=256:4096:256): {}", t, e.what()));
    }
    auto it = std::find_if(out.of.begin(), out.of.end(), [&](const auto& p) { return p.first == name; });
    if (it == out.of.end()) it = out.of.insert(out.of.end(), {name, {}});
    const auto s = parse_sizes(std::string_view(t).substr(eq + 1));
    it->second.insert(it->second.end(), s.begin(), s.end());
  }
  const auto tidy = [](std::vector<index_t>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  tidy(out.all);
  for (auto& [name, v] : out.of) tidy(v);
  return out;
}

std::string canonical_processor(std::string_view text) {
  const auto [host, spec] = split_processor_name(trim(text));
  return host.empty() ? spec.str() : processor_name(host, spec);
}

std::pair<std::string, index_t> parse_split(std::string_view text) {
  const std::size_t eq = text.rfind('=');
  if (eq == std::string_view::npos)
    throw UsageError(fmt::format("--split '{}': the form is DEVICE=ROWS, e.g. cpu:0-7=512", text));
  index_t rows = 0;
  if (!to_index(text.substr(eq + 1), rows))
    throw UsageError(fmt::format("--split '{}': ROWS must be a non-negative integer", text));
  return {canonical_processor(text.substr(0, eq)), rows};
}

std::pair<std::string, double> parse_device_value(std::string_view text, std::string_view what) {
  const std::size_t eq = text.rfind('=');
  if (eq == std::string_view::npos)
    throw UsageError(fmt::format("{} '{}': the form is DEVICE=WATTS, e.g. cuda:0=75.5", what, text));
  const std::string_view num = trim(text.substr(eq + 1));
  double v = 0;
  const auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
  if (num.empty() || ec != std::errc() || end != num.data() + num.size() || !std::isfinite(v) || v < 0)
    throw UsageError(fmt::format("{} '{}': WATTS must be a non-negative number", what, text));
  return {canonical_processor(text.substr(0, eq)), v};
}

}  // namespace ctrl::loop
