#include "workloads/profile_file.hpp"

#include <ctrl/errors.hpp>

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace ctrl::workloads {

namespace {

constexpr const char* columns[] = {"processor", "size",          "time",       "energy",        "reps",
                                   "batch",     "time_ci",       "energy_ci",  "energy_measured", "base_power",
                                   "energy_source", "converged", "gflops",     "app",           "cols"};
constexpr std::size_t ncols = std::size(columns);

std::string field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string number(double v) { return fmt::format("{}", v); }
std::string optional_number(const std::optional<double>& v) { return v ? number(*v) : std::string(); }

// Splits one CSV line (RFC 4180 quotes); false when a quote is left open.
bool split_line(const std::string& line, std::vector<std::string>& out) {
  out.clear();
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          cur += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(std::move(cur));
  return !quoted;
}

}  // namespace

std::string profile_header() {
  std::string h;
  for (std::size_t i = 0; i < ncols; ++i) h += (i ? "," : "") + std::string(columns[i]);
  return h;
}

std::string format_profile_row(const ProfileRow& r) {
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", field(r.processor), r.size, number(r.time),
                     number(r.energy), r.reps, r.batch, number(r.time_ci), optional_number(r.energy_ci),
                     optional_number(r.energy_measured), optional_number(r.base_power), field(r.energy_source),
                     r.converged ? 1 : 0, number(r.gflops), field(r.app), r.cols);
}

bool is_profile_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  if (!in || !std::getline(in, line)) return false;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line == profile_header();
}

ProfileFile read_profile_file(const std::string& path) {
  ProfileFile pf;
  std::ifstream in(path, std::ios::binary);
  if (!in) return pf;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  if (text.empty()) return pf;

  std::vector<std::string> lines;
  bool last_complete = !text.empty() && text.back() == '\n';
  {
    std::size_t at = 0;
    while (at < text.size()) {
      std::size_t nl = text.find('\n', at);
      std::string line = text.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines.push_back(std::move(line));
      if (nl == std::string::npos) break;
      at = nl + 1;
    }
  }
  if (lines.front() != profile_header()) {
    if (lines.size() == 1 && !last_complete && profile_header().rfind(lines.front(), 0) == 0) return pf;  // cut header
    throw UsageError(fmt::format("{}:1: not a profile written by `ctrl profile` (the header must be '{}'); move it "
                                 "away or choose another --out",
                                 path, profile_header()));
  }
  // The last line without a newline was cut by an interruption: it is dropped, not parsed.
  const std::size_t usable = last_complete ? lines.size() : lines.size() - 1;
  if (!last_complete && lines.size() > 1) ++pf.dropped_rows;

  std::vector<ProfileRow> rows;
  std::vector<std::string> fields;
  for (std::size_t ln = 1; ln < usable; ++ln) {
    const std::string& line = lines[ln];
    if (line.empty()) continue;
    const std::string where = fmt::format("{}:{}", path, ln + 1);
    if (!split_line(line, fields) || fields.size() != ncols)
      throw UsageError(fmt::format("{}: a row with {} fields; a profile row has {}", where, fields.size(), ncols));
    auto num = [&](std::size_t k, const char* what) {
      const std::string& s = fields[k];
      double v = 0;
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (s.empty() || ec != std::errc() || end != s.data() + s.size())
        throw UsageError(fmt::format("{}: {} '{}' is not a number", where, what, s));
      return v;
    };
    auto opt = [&](std::size_t k, const char* what) -> std::optional<double> {
      if (fields[k].empty()) return std::nullopt;
      return num(k, what);
    };
    auto integer = [&](std::size_t k, const char* what) {
      const double v = num(k, what);
      if (v != std::floor(v) || v < 0) throw UsageError(fmt::format("{}: {} '{}' is not a count", where, what, fields[k]));
      return static_cast<index_t>(v);
    };
    ProfileRow r;
    r.processor = fields[0];
    r.size = integer(1, "size");
    r.time = num(2, "time");
    r.energy = num(3, "energy");
    r.reps = static_cast<int>(integer(4, "reps"));
    r.batch = static_cast<int>(integer(5, "batch"));
    r.time_ci = num(6, "time_ci");
    r.energy_ci = opt(7, "energy_ci");
    r.energy_measured = opt(8, "energy_measured");
    r.base_power = opt(9, "base_power");
    r.energy_source = fields[10];
    r.converged = fields[11] == "1";
    r.gflops = num(12, "gflops");
    r.app = fields[13];
    r.cols = integer(14, "cols");
    if (r.processor.empty() || r.size <= 0) throw UsageError(fmt::format("{}: a row needs a processor and a size > 0", where));
    rows.push_back(std::move(r));
  }

  // Complete sizes: every processor of the file has a row.
  for (const auto& r : rows)
    if (std::find(pf.processors.begin(), pf.processors.end(), r.processor) == pf.processors.end())
      pf.processors.push_back(r.processor);
  std::map<index_t, std::set<std::string>> seen;
  for (const auto& r : rows)
    if (!seen[r.size].insert(r.processor).second)
      throw UsageError(fmt::format("{}: processor {} has two rows for size {}", path, r.processor, r.size));
  for (const auto& [size, procs] : seen)
    if (procs.size() == pf.processors.size()) pf.complete_sizes.push_back(size);
  for (auto& r : rows) {
    if (std::binary_search(pf.complete_sizes.begin(), pf.complete_sizes.end(), r.size))
      pf.rows.push_back(std::move(r));
    else
      ++pf.dropped_rows;
  }
  return pf;
}

ProfileWriter::ProfileWriter(const std::string& path, const std::vector<ProfileRow>* rewrite_rows) : path_(path) {
  auto fail = [&](const std::string& what) {
    throw UsageError(fmt::format("--out {}: cannot {}: {}", path, what, std::strerror(errno)));
  };
  if (rewrite_rows != nullptr) {
    const std::string tmp = path + ".tmp";
    {
      std::FILE* f = std::fopen(tmp.c_str(), "wb");
      if (!f) fail("write " + tmp);
      std::string text = profile_header() + "\n";
      for (const auto& r : *rewrite_rows) text += format_profile_row(r) + "\n";
      const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0 &&
                      ::fsync(::fileno(f)) == 0;
      std::fclose(f);
      if (!ok) fail("write " + tmp);
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("replace it");
  }
  file_ = std::fopen(path.c_str(), "ab");
  if (!file_) fail("open it for appending");
  std::fseek(file_, 0, SEEK_END);
  if (std::ftell(file_) == 0) {
    const std::string h = profile_header() + "\n";
    if (std::fwrite(h.data(), 1, h.size(), file_) != h.size() || std::fflush(file_) != 0) fail("write");
  }
}

ProfileWriter::~ProfileWriter() {
  if (file_) std::fclose(file_);
}

void ProfileWriter::write(const std::vector<ProfileRow>& rows) {
  std::string text;
  for (const auto& r : rows) text += format_profile_row(r) + "\n";
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fflush(file_) != 0)
    throw UsageError(fmt::format("--out {}: cannot write: {}", path_, std::strerror(errno)));
  ::fsync(::fileno(file_));
}

}  // namespace ctrl::workloads
