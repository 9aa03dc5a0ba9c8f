#include <ctrl/errors.hpp>
#include <ctrl/io/csv.hpp>
#include <ctrl/io/files.hpp>
#include <ctrl/partition/classes.hpp>
#include <ctrl/partition/profile_csv.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ctrl::partition {

namespace {

// Bounds on what ranges may expand to (a cluster of 10,000 processors with 64 sizes each is
// 640,000 points), so that a malformed or hostile file fails instead of exhausting memory.
constexpr std::size_t max_range = 100'000;
constexpr std::size_t max_points = 20'000'000;

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(std::size_t line, const std::string& what) const {
    throw UsageError(source_ + ":" + std::to_string(line) + ": " + what);
  }
  [[noreturn]] void fail(const std::string& what) const { throw UsageError(source_ + ": " + what); }

  // Splits one line into fields (RFC 4180 quoting within the line), trimmed.
  std::vector<std::string> split(std::string_view text, std::size_t line) const {
    std::vector<std::string> fields;
    if (!io::split_csv_line(text, fields)) fail(line, "a quoted field is not closed");
    for (std::string& f : fields) f = trim(f);
    return fields;
  }

  static std::string trim(std::string_view s) {
    const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
    while (!s.empty() && space(s.front())) s.remove_prefix(1);
    while (!s.empty() && space(s.back())) s.remove_suffix(1);
    return std::string(s);
  }

  static std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
  }

  Profile parse(std::string_view text) const {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    static constexpr std::array<const char*, 4> required{"processor", "size", "time", "energy"};
    std::array<std::size_t, 4> col{};
    std::size_t columns = 0;
    bool header = false;
    std::vector<std::string> names;  // after expanding ranges (classes.hpp)
    std::unordered_map<std::string, std::size_t> index;
    std::vector<std::vector<ProfilePoint>> points;
    // (processor, size) -> line and whether a run measured it. A `ctrl profile` file's optional
    // column measured_in says "run" for a point a run added (`ctrl run --learn`): at a size with
    // both, the run's point is taken, the last one where runs measured it again.
    std::map<std::pair<std::size_t, Size>, std::pair<std::size_t, bool>> seen;
    std::size_t measured_in = 0;
    std::size_t rows = 0, line = 0, total = 0;
    while (!text.empty()) {
      ++line;
      const std::size_t eol = text.find('\n');
      std::string_view raw = text.substr(0, eol);
      text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
      if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
      if (trim(raw).empty()) continue;
      const std::vector<std::string> fields = split(raw, line);
      if (!header) {
        header = true;
        columns = fields.size();
        for (std::size_t r = 0; r < required.size(); ++r) {
          std::size_t found = columns;
          for (std::size_t c = 0; c < columns; ++c) {
            if (lower(fields[c]) != required[r]) continue;
            if (found != columns)
              fail(line, std::string("the column '") + required[r] + "' appears twice in the header");
            found = c;
          }
          if (found == columns)
            fail(line, std::string("missing column '") + required[r] +
                           "': the header must name the columns processor, size, time and energy");
          col[r] = found;
        }
        measured_in = columns;
        for (std::size_t c = 0; c < columns; ++c)
          if (lower(fields[c]) == "measured_in") measured_in = c;
        continue;
      }
      if (fields.size() != columns)
        fail(line, "ragged row: " + std::to_string(fields.size()) + " fields where the header has " +
                       std::to_string(columns));
      const std::string& name = fields[col[0]];
      if (name.empty()) fail(line, "empty processor name");
      const std::string at = source_ + ":" + std::to_string(line);
      const Size size = parse_profile_size(fields[col[1]], at);
      const double time = parse_profile_value(fields[col[2]], "time", at);
      const double energy = parse_profile_value(fields[col[3]], "energy", at);
      std::vector<std::string> members;
      try {
        members = expand_processor_range(name, max_range);
      } catch (const UsageError& e) {
        fail(line, e.what());
      }
      for (const std::string& member : members) {
        const auto [where, added] = index.emplace(member, names.size());
        if (added) {
          names.push_back(member);
          points.emplace_back();
        }
        const std::size_t proc = where->second;
        const bool run = measured_in < columns && fields[measured_in] == "run";
        const auto [it, fresh] = seen.emplace(std::make_pair(proc, size), std::make_pair(line, run));
        if (fresh) {
          points[proc].push_back(ProfilePoint{size, time, energy});
        } else if (run) {  // a run's point replaces what was measured there before
          it->second = {line, true};
          for (ProfilePoint& p : points[proc])
            if (p.size == size) p = ProfilePoint{size, time, energy};
        } else if (!it->second.second) {
          fail(line, "processor '" + member + "'" + (member == name ? "" : " (of '" + name + "')") + " has size " +
                         std::to_string(size) + " twice (first on line " + std::to_string(it->second.first) + ")");
        }
      }
      total += members.size();
      if (total > max_points)
        fail(line, "more than " + std::to_string(max_points) + " points after expanding the processor ranges");
      ++rows;
    }
    if (!header) fail("the file is empty: a header row naming processor, size, time and energy is needed");
    if (rows == 0) fail("no data rows after the header");
    std::vector<ProcessorProfile> procs;
    for (std::size_t i = 0; i < names.size(); ++i) procs.emplace_back(names[i], std::move(points[i]));
    return Profile(std::move(procs));
  }

 private:
  std::string source_;
};

}  // namespace

Size parse_profile_size(const std::string& f, const std::string& where) {
  const auto fail = [&](const std::string& what) -> void { throw UsageError(where + ": " + what); };
  const bool digits = !f.empty() && std::all_of(f.begin(), f.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) {
    double v = 0;
    const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
    if (f.empty() || ec != std::errc() || end != f.data() + f.size()) fail("non-numeric size '" + f + "'");
    fail("the size must be a positive integer, not '" + f + "'");
  }
  Size v = 0;
  const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  if (ec != std::errc() || end != f.data() + f.size()) fail("the size '" + f + "' is too large");
  if (v <= 0) fail("the size must be a positive integer, not '" + f + "'");
  return v;
}

double parse_profile_value(const std::string& f, const char* what, const std::string& where) {
  const auto fail = [&](const std::string& text) -> void { throw UsageError(where + ": " + text); };
  double v = 0;
  const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  if (f.empty() || end != f.data() + f.size() || (ec != std::errc() && ec != std::errc::result_out_of_range))
    fail(std::string("non-numeric ") + what + " '" + f + "'");
  if (ec == std::errc::result_out_of_range || !std::isfinite(v))
    fail(std::string("the ") + what + " must be finite, not '" + f + "'");
  if (v < 0) fail(std::string("the ") + what + " must not be negative, not '" + f + "'");
  return v;
}

Profile parse_profile_csv(std::string_view text, const std::string& source) { return Reader(source).parse(text); }

Profile read_profile_csv(const std::string& path) {
  // What is not a regular file is refused (a FIFO would block the reader).
  return parse_profile_csv(io::read_user_input(path), path);
}

}  // namespace ctrl::partition
