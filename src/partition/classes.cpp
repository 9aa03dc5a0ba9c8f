#include <ctrl/errors.hpp>
#include <ctrl/partition/classes.hpp>

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>

namespace ctrl::partition {

namespace {

// The values of one bracket's contents ("001-125,200"), as zero-padded text.
std::vector<std::string> bracket_values(std::string_view body, std::string_view name, std::size_t limit) {
  const auto bad = [&](const std::string& what) -> void {
    throw UsageError("malformed processor range '" + std::string(name) + "': " + what);
  };
  if (body.empty()) bad("an empty [] names no processor");
  std::vector<std::string> out;
  while (true) {
    const std::size_t comma = body.find(',');
    const std::string_view item = body.substr(0, comma);
    const std::size_t dash = item.find('-');
    const std::string_view a = item.substr(0, dash), b = dash == std::string_view::npos ? a : item.substr(dash + 1);
    long long lo = 0, hi = 0;
    for (const auto& [text, value] : {std::tie(a, lo), std::tie(b, hi)}) {
      const bool digits =
          !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (!digits || ec != std::errc() || text.size() > 12)
        bad("'" + std::string(item) + "' is not a number or a range of numbers a-b");
    }
    if (hi < lo) bad("the range " + std::string(item) + " falls");
    if (static_cast<std::size_t>(hi - lo) >= limit || out.size() + static_cast<std::size_t>(hi - lo) >= limit)
      bad("more than " + std::to_string(limit) + " processors");
    for (long long v = lo; v <= hi; ++v) {
      std::string digits = std::to_string(v);
      if (digits.size() < a.size()) digits.insert(0, a.size() - digits.size(), '0');
      out.push_back(std::move(digits));
    }
    if (comma == std::string_view::npos) break;
    body.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace

std::vector<std::string> expand_processor_range(std::string_view name, std::size_t limit) {
  std::vector<std::string> out{""};
  std::size_t at = 0;
  while (at < name.size()) {
    const std::size_t open = name.find_first_of("[]", at);
    const std::string_view text = name.substr(at, open == std::string_view::npos ? std::string_view::npos : open - at);
    for (std::string& o : out) o += text;
    if (open == std::string_view::npos) break;
    if (name[open] == ']')
      throw UsageError("malformed processor range '" + std::string(name) + "': a ']' without its '['");
    const std::size_t close = name.find(']', open);
    if (close == std::string_view::npos || name.substr(open + 1, close - open - 1).find('[') != std::string_view::npos)
      throw UsageError("malformed processor range '" + std::string(name) + "': a '[' is not closed");
    const std::vector<std::string> values = bracket_values(name.substr(open + 1, close - open - 1), name, limit);
    if (out.size() * values.size() > limit)
      throw UsageError("malformed processor range '" + std::string(name) + "': more than " + std::to_string(limit) +
                       " processors");
    std::vector<std::string> next;
    next.reserve(out.size() * values.size());
    for (const std::string& o : out)
      for (const std::string& v : values) next.push_back(o + v);
    out = std::move(next);
    at = close + 1;
  }
  return out;
}

ProcessorClasses processor_classes(const Profile& profile) {
  // Points compared exactly: a class is a set of processors the algorithms may treat as copies.
  using Key = std::vector<std::tuple<Size, double, double>>;
  std::map<Key, std::size_t> index;
  ProcessorClasses c;
  c.class_of.resize(profile.size());
  for (std::size_t i = 0; i < profile.size(); ++i) {
    Key key;
    key.reserve(profile[i].size());
    for (const ProfilePoint& pt : profile[i].points()) key.emplace_back(pt.size, pt.time, pt.energy);
    const auto [it, fresh] = index.emplace(std::move(key), c.members.size());
    if (fresh) c.members.emplace_back();
    c.class_of[i] = it->second;
    c.members[it->second].push_back(i);
  }
  return c;
}

}  // namespace ctrl::partition
