#include <ctrl/loop/profile_file.hpp>

#include <ctrl/errors.hpp>
#include <ctrl/io/csv.hpp>
#include <ctrl/io/files.hpp>
#include <ctrl/partition/profile_csv.hpp>

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

namespace ctrl::loop {

namespace {

constexpr const char* columns[] = {"processor", "size",          "time",       "energy",        "reps",
                                   "batch",     "time_ci",       "energy_ci",  "energy_measured", "base_power",
                                   "energy_source", "converged", "gflops",     "app",           "cols"};
constexpr std::size_t ncols = std::size(columns);

std::string number(double v) { return fmt::format("{}", v); }
std::string optional_number(const std::optional<double>& v) { return v ? number(*v) : std::string(); }

}  // namespace

std::string profile_header() {
  std::string h;
  for (std::size_t i = 0; i < ncols; ++i) h += (i ? "," : "") + std::string(columns[i]);
  return h;
}

std::string format_profile_row(const ProfileRow& r) {
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", io::csv_field(r.processor), r.size, number(r.time),
                     number(r.energy), r.reps, r.batch, number(r.time_ci), optional_number(r.energy_ci),
                     optional_number(r.energy_measured), optional_number(r.base_power), io::csv_field(r.energy_source),
                     r.converged ? 1 : 0, number(r.gflops), io::csv_field(r.app), r.cols);
}

namespace {

// The file's text; empty when it does not exist (a profile not started yet).
std::string read_if_present(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 && errno == ENOENT) return {};
  return io::read_input(path);
}

// Whether the text's first line is profile_header() (a line end of "\r\n" too).
bool has_profile_header(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line == profile_header();
}

}  // namespace

bool is_profile_file(const std::string& path) { return has_profile_header(read_if_present(path)); }

ProfileFile read_profile_file(const std::string& path) { return parse_profile_file(read_if_present(path), path); }

ProfileFile parse_profile_file(const std::string& text, const std::string& path) {
  ProfileFile pf;
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
    // An interruption of the very first write: appending to it would make a file that no reader
    // takes, and rewriting it would hide that this is not the file the user thinks.
    if (lines.size() == 1 && !last_complete && profile_header().rfind(lines.front(), 0) == 0)
      throw UsageError(fmt::format("{}:1: the header is cut short (an interrupted first write): not a profile to "
                                   "resume; remove it or choose another --out",
                                   path));
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
    if (!io::split_csv_line(line, fields) || fields.size() != ncols)
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
    // Below `most` before the cast: a larger value would make it undefined (index_t) or wrap (int).
    auto integer = [&](std::size_t k, const char* what, double most = 0x1p63) {
      const double v = num(k, what);
      if (v != std::floor(v) || v < 0 || v >= most)
        throw UsageError(fmt::format("{}: {} '{}' is not a count", where, what, fields[k]));
      return static_cast<index_t>(v);
    };
    ProfileRow r;
    r.processor = fields[0];
    // The columns every profile has are checked as `ctrl pareto` checks them (one rule).
    r.size = static_cast<index_t>(partition::parse_profile_size(fields[1], where));
    r.time = partition::parse_profile_value(fields[2], "time", where);
    r.energy = partition::parse_profile_value(fields[3], "energy", where);
    r.reps = static_cast<int>(integer(4, "reps", 0x1p31));
    r.batch = static_cast<int>(integer(5, "batch", 0x1p31));
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

ProfileWriter::ProfileWriter(const std::string& path) : path_(path) {
  // One writer per profile: two would append the same sizes twice.
  std::optional<io::LockedFile> file;
  try {
    file = io::open_locked(path);
  } catch (const Error& e) {
    throw UsageError(fmt::format("--out {}", e.what()));
  }
  if (!file)
    throw UsageError(fmt::format("--out {}: another ctrl profile is writing it (it holds the file's lock); wait for "
                                 "it to end, or choose another --out",
                                 path));
  fd_ = std::move(file->fd);
  created_ = file->created;
  empty_ = file->contents.empty();
  existing_ = parse_profile_file(file->contents, path);
}

ProfileWriter::~ProfileWriter() {
  // A profile this command created and wrote nothing into is not left behind as an empty file.
  struct stat mine {}, now {};
  if (created_ && !wrote_ && ::fstat(fd_.get(), &mine) == 0 && ::stat(path_.c_str(), &now) == 0 &&
      mine.st_dev == now.st_dev && mine.st_ino == now.st_ino)
    ::unlink(path_.c_str());
}

void ProfileWriter::fail(const std::string& what) const {
  throw UsageError(fmt::format("--out {}: cannot {}: {}", path_, what, std::strerror(errno)));
}

void ProfileWriter::start() {
  if (existing_.dropped_rows > 0) {
    // Rows of an interrupted size are dropped: the file is replaced (atomically) by its complete
    // sizes, and the replacement, locked since its creation, is the file appended to from now on.
    io::AtomicFile file(path_);
    std::string text = profile_header() + "\n";
    for (const auto& r : existing_.rows) text += format_profile_row(r) + "\n";
    file.write(text);
    file.commit();
    fd_ = file.take_descriptor();
  } else if (empty_) {
    append(profile_header() + "\n");
  }
  started_ = true;
}

void ProfileWriter::append(const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd_.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("write");
    done += static_cast<std::size_t>(n);
  }
  ::fsync(fd_.get());
}

void ProfileWriter::write(const std::vector<ProfileRow>& rows) {
  if (!started_) start();
  std::string text;
  for (const auto& r : rows) text += format_profile_row(r) + "\n";
  append(text);
  wrote_ = true;
}

LoadedProfile read_profile(const std::string& path) {
  const std::string text = io::read_user_input(path);
  LoadedProfile loaded;
  if (!has_profile_header(text)) {
    loaded.profile = partition::parse_profile_csv(text, path);
    return loaded;
  }
  loaded.file = parse_profile_file(text, path);
  if (loaded.file->rows.empty())
    throw UsageError(fmt::format("{}: no size has been measured on every processor yet (an interrupted `ctrl "
                                 "profile`: run it again to resume)",
                                 path));
  loaded.profile = to_partition_profile(*loaded.file);
  return loaded;
}

std::vector<std::pair<std::string, double>> base_powers(const ProfileFile& file) {
  std::vector<std::pair<std::string, double>> found;
  for (const auto& name : file.processors) {
    const auto row = std::find_if(file.rows.begin(), file.rows.end(),
                                  [&](const ProfileRow& r) { return r.processor == name && r.base_power; });
    if (row != file.rows.end()) found.emplace_back(name, *row->base_power);
  }
  return found;
}

partition::Profile to_partition_profile(const ProfileFile& file) {
  partition::Profile profile;
  for (const auto& name : file.processors) {
    std::vector<partition::ProfilePoint> points;
    for (const auto& r : file.rows)
      if (r.processor == name) points.push_back({static_cast<partition::Size>(r.size), r.time, r.energy});
    profile.add(partition::ProcessorProfile(name, std::move(points)));
  }
  return profile;
}

}  // namespace ctrl::loop
