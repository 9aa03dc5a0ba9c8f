#include <ctrl/loop/profile_file.hpp>

#include <ctrl/device_spec.hpp>
#include <ctrl/errors.hpp>
#include <ctrl/io/csv.hpp>
#include <ctrl/io/files.hpp>
#include <ctrl/partition/profile_csv.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>
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

constexpr const char* columns[] = {"processor",     "size",          "time",
                                   "energy",        "reps",          "batch",
                                   "time_ci",       "energy_ci",     "energy_measured",
                                   "base_power",    "energy_source", "energy_provenance",
                                   "converged",     "gflops",        "app",
                                   "cols",          "held_power",    "granularity",
                                   "exchange_time", "measured_in"};
constexpr std::size_t ncols = std::size(columns);
// Earlier formats, read and rewritten in the current one when resumed. v1 (before estimates):
// without energy_provenance, its energies taken as measured where they have a source. v2 (before
// held power): without held_power, its processors' held power unknown (0 W in predictions). v3
// (before sizes between measured ones): without granularity (1 row) and exchange_time (none). v4
// (before runs that teach): without measured_in, every row from the profile.
constexpr std::size_t provenance_column = 11;
constexpr std::size_t held_column = 16;
constexpr std::size_t granularity_column = 17;
constexpr std::size_t exchange_column = 18;
constexpr std::size_t measured_in_column = 19;
constexpr std::size_t ncols_v4 = ncols - 1;
constexpr std::size_t ncols_v3 = ncols - 3;
constexpr std::size_t ncols_v2 = ncols - 4;
constexpr std::size_t ncols_v1 = ncols - 5;

// The columns a format of n columns has: a prefix of `columns`, v1 without energy_provenance.
std::size_t prefix_of(std::size_t n) { return n == ncols_v1 ? n + 1 : n; }

std::string header_of(std::size_t n) {
  std::string h;
  for (std::size_t i = 0; i < prefix_of(n); ++i) {
    if (n == ncols_v1 && i == provenance_column) continue;
    h += (h.empty() ? "" : ",") + std::string(columns[i]);
  }
  return h;
}

std::string number(double v) { return fmt::format("{}", v); }
std::string optional_number(const std::optional<double>& v) { return v ? number(*v) : std::string(); }

}  // namespace

std::string profile_header() { return header_of(ncols); }

std::string format_profile_row(const ProfileRow& r) {
  // What the reader refuses is not written: a source without provenance, or the reverse.
  if ((r.energy_provenance == energy::Provenance::absent) != (r.energy_source == "none"))
    throw UsageError(fmt::format("profile row of {} at size {}: energy_provenance {} with energy_source '{}'",
                                 r.processor, r.size, energy::to_string(r.energy_provenance), r.energy_source));
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", io::csv_field(r.processor), r.size,
                     number(r.time), number(r.energy), r.reps, r.batch, number(r.time_ci), optional_number(r.energy_ci),
                     optional_number(r.energy_measured), optional_number(r.base_power), io::csv_field(r.energy_source),
                     energy::to_string(r.energy_provenance), r.converged ? 1 : 0, number(r.gflops),
                     io::csv_field(r.app), r.cols, optional_number(r.held_power), r.granularity,
                     optional_number(r.exchange_time), r.learned ? "run" : "profile");
}

namespace {

// The file's text; empty when it does not exist (a profile not started yet).
std::string read_if_present(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 && errno == ENOENT) return {};
  return io::read_input(path);
}

// The number of columns of the text's header when its first line is a profile's header, current or
// earlier (a line end of "\r\n" too); 0 otherwise.
std::size_t profile_columns(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  for (const std::size_t n : {ncols, ncols_v4, ncols_v3, ncols_v2, ncols_v1})
    if (line == header_of(n)) return n;
  return 0;
}

bool has_profile_header(const std::string& text) { return profile_columns(text) != 0; }

}  // namespace

bool is_profile_file(const std::string& path) { return has_profile_header(read_if_present(path)); }

ProfileFile read_profile_file(const std::string& path) { return parse_profile_file(read_if_present(path), path); }

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t nl = text.find('\n', at);
    std::string line = text.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return lines;
}

// The fields of one row, read by column name whatever the file's format.
class RowFields {
 public:
  RowFields(const std::vector<std::string>& fields, std::size_t n, std::string where)
      : fields_(fields), n_(n), where_(std::move(where)) {}

  const std::string& operator[](std::size_t column) const {
    static const std::string none;
    if (column >= prefix_of(n_)) return none;  // a column the file's format has not
    return fields_[n_ == ncols_v1 && column > provenance_column ? column - 1 : column];
  }
  const std::string& where() const { return where_; }

  double number(std::size_t k, const char* what) const {
    const std::string& s = (*this)[k];
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size())
      throw UsageError(fmt::format("{}: {} '{}' is not a number", where_, what, s));
    return v;
  }
  std::optional<double> optional(std::size_t k, const char* what) const {
    if ((*this)[k].empty()) return std::nullopt;
    return number(k, what);
  }
  // Below `most` before the cast: a larger value would make it undefined (index_t) or wrap (int).
  index_t count(std::size_t k, const char* what, double most = 0x1p63) const {
    const double v = number(k, what);
    if (v != std::floor(v) || v < 0 || v >= most)
      throw UsageError(fmt::format("{}: {} '{}' is not a count", where_, what, (*this)[k]));
    return static_cast<index_t>(v);
  }

 private:
  const std::vector<std::string>& fields_;
  std::size_t n_;
  std::string where_;
};

// An earlier file knew no estimates: a processor with a source measured its energy.
energy::Provenance provenance_of(const RowFields& f, std::size_t n, const std::string& source) {
  if (n == ncols_v1) return source == "none" ? energy::Provenance::absent : energy::Provenance::measured;
  const auto p = energy::parse_provenance(f[provenance_column]);
  if (!p)
    throw UsageError(fmt::format("{}: energy_provenance '{}' is none of measured, estimated, absent", f.where(),
                                 f[provenance_column]));
  if ((*p == energy::Provenance::absent) != (source == "none"))
    throw UsageError(
        fmt::format("{}: energy_provenance {} with energy_source '{}'", f.where(), f[provenance_column], source));
  return *p;
}

ProfileRow parse_row(const RowFields& f, std::size_t n) {
  ProfileRow r;
  r.processor = f[0];
  // The columns every profile has are checked as `ctrl pareto` checks them (one rule).
  r.size = static_cast<index_t>(partition::parse_profile_size(f[1], f.where()));
  r.time = partition::parse_profile_value(f[2], "time", f.where());
  r.energy = partition::parse_profile_value(f[3], "energy", f.where());
  r.reps = static_cast<int>(f.count(4, "reps", 0x1p31));
  r.batch = static_cast<int>(f.count(5, "batch", 0x1p31));
  r.time_ci = f.number(6, "time_ci");
  r.energy_ci = f.optional(7, "energy_ci");
  r.energy_measured = f.optional(8, "energy_measured");
  r.base_power = f.optional(9, "base_power");
  r.energy_source = f[10];
  r.energy_provenance = provenance_of(f, n, r.energy_source);
  r.converged = f[12] == "1";
  r.gflops = f.number(13, "gflops");
  r.app = f[14];
  r.cols = f.count(15, "cols");
  r.held_power = f.optional(held_column, "held_power");
  r.granularity = f[granularity_column].empty() ? 1 : f.count(granularity_column, "granularity");
  r.exchange_time = f.optional(exchange_column, "exchange_time");
  const std::string& in = f[measured_in_column];
  if (!in.empty() && in != "profile" && in != "run")
    throw UsageError(fmt::format("{}: measured_in '{}' is neither profile nor run", f.where(), in));
  r.learned = in == "run";
  if (r.granularity < 1) throw UsageError(fmt::format("{}: granularity 0: a part is at least 1 row", f.where()));
  if (r.exchange_time && !(*r.exchange_time >= 0 && *r.exchange_time <= r.time))
    throw UsageError(
        fmt::format("{}: exchange_time {} is not within the row's time, 0 to {}", f.where(), *r.exchange_time, r.time));
  if (r.processor.empty() || r.size <= 0)
    throw UsageError(fmt::format("{}: a row needs a processor and a size > 0", f.where()));
  return r;
}

// Keeps the rows of complete steps. `ctrl profile` writes one step at a time: one row per
// processor, in the same order, all in one write, and rewrites a file only by whole steps. A step
// is a run of rows in which no processor repeats; it is complete when it has every processor of
// the file and, for the last one, when the text did not end within it (`torn`). The others are
// counted as dropped.
void keep_complete_steps(ProfileFile& pf, std::vector<ProfileRow> all_rows, bool torn, const std::string& path) {
  // Rows measured in runs stand alone (a run measures the processors it gives rows to).
  std::vector<ProfileRow> rows;
  for (auto& r : all_rows) (r.learned ? pf.learned : rows).push_back(std::move(r));
  std::vector<std::string> all;
  for (const auto& r : rows)
    if (std::find(all.begin(), all.end(), r.processor) == all.end()) all.push_back(r.processor);
  std::set<std::pair<std::string, index_t>> seen;
  for (const auto& r : rows)
    if (!seen.insert({r.processor, r.size}).second)
      throw UsageError(fmt::format("{}: processor {} has two rows for size {}", path, r.processor, r.size));
  std::size_t steps = 0;
  for (std::size_t begin = 0; begin < rows.size();) {
    std::set<std::string> step;
    std::size_t end = begin;
    while (end < rows.size() && step.insert(rows[end].processor).second) ++end;
    const bool complete = step.size() == all.size() && !(torn && end == rows.size());
    for (std::size_t k = begin; k < end; ++k) {
      if (!complete) {
        ++pf.dropped_rows;
        continue;
      }
      pf.rows.push_back(std::move(rows[k]));
      pf.step_of_row.push_back(steps);
    }
    steps += complete ? 1 : 0;
    begin = end;
  }
  for (const auto& r : pf.rows)
    if (std::find(pf.processors.begin(), pf.processors.end(), r.processor) == pf.processors.end())
      pf.processors.push_back(r.processor);
  std::map<index_t, std::size_t> count;
  for (const auto& r : pf.rows) ++count[r.size];
  for (const auto& [size, k] : count)
    if (k == pf.processors.size()) pf.complete_sizes.push_back(size);
}

}  // namespace

ProfileFile parse_profile_file(const std::string& text, const std::string& path) {
  ProfileFile pf;
  if (text.empty()) return pf;
  const std::vector<std::string> lines = split_lines(text);
  const bool last_complete = text.back() == '\n';
  const std::size_t n = profile_columns(text);
  if (n == 0) {
    // An interruption of the very first write: appending to it would make a file that no reader
    // takes, and rewriting it would hide that this is not the file the user thinks.
    if (lines.size() == 1 && !last_complete && profile_header().rfind(lines.front(), 0) == 0)
      throw UsageError(
          fmt::format("{}:1: the header is cut short (an interrupted first write): not a profile to "
                      "resume; remove it or choose another --out",
                      path));
    throw UsageError(
        fmt::format("{}:1: not a profile written by `ctrl profile` (the header must be '{}'); move it "
                    "away or choose another --out",
                    path, profile_header()));
  }
  pf.earlier_format = n != ncols;
  // The last line without a newline was cut by an interruption: it is dropped, not parsed.
  const std::size_t usable = last_complete ? lines.size() : lines.size() - 1;
  if (!last_complete && lines.size() > 1) ++pf.dropped_rows;

  std::vector<ProfileRow> rows;
  std::vector<std::string> fields;
  for (std::size_t ln = 1; ln < usable; ++ln) {
    if (lines[ln].empty()) continue;
    const std::string where = fmt::format("{}:{}", path, ln + 1);
    if (!io::split_csv_line(lines[ln], fields) || fields.size() != n)
      throw UsageError(fmt::format("{}: a row with {} fields; a profile row has {}", where, fields.size(), n));
    rows.push_back(parse_row(RowFields(fields, n, where), n));
  }
  // A cut line that starts the next step (every step starts with the first processor) leaves the
  // step before it whole; any other cut line is the end of the last step's write.
  const bool cut_row = !last_complete && lines.size() > 1;
  const bool torn =
      cut_row && !(!rows.empty() && lines.back().rfind(io::csv_field(rows.front().processor) + ",", 0) == 0);
  pf.cut_short = !last_complete;
  keep_complete_steps(pf, std::move(rows), torn, path);
  return pf;
}

ProfileWriter::ProfileWriter(const std::string& path, std::string option, bool unlocked_ok)
    : path_(path), option_(std::move(option)) {
  // One writer per profile: two would append the same sizes twice.
  std::optional<io::LockedFile> file;
  try {
    file = io::open_locked(path, unlocked_ok ? io::Locking::where_possible : io::Locking::required);
  } catch (const io::LockUnsupported& e) {
    throw UsageError(fmt::format(
        "{} {}; where no other command writes it meanwhile, give --no-lock to write it unlocked", option_, e.what()));
  } catch (const Error& e) {
    throw UsageError(fmt::format("{} {}", option_, e.what()));
  }
  if (!file)
    throw UsageError(
        fmt::format("{} {}: another ctrl command is writing it (it holds the file's lock); wait for it to end{}",
                    option_, path, option_ == "--out" ? ", or choose another --out" : ""));
  fd_ = std::move(file->fd);
  created_ = file->created;
  empty_ = file->contents.empty();
  existing_ = parse_profile_file(file->contents, path);
}

ProfileWriter::~ProfileWriter() {
  // A profile this command created and wrote nothing into is not left behind as an empty file.
  struct stat mine {
  }, now{};
  if (created_ && !wrote_ && ::fstat(fd_.get(), &mine) == 0 && ::stat(path_.c_str(), &now) == 0 &&
      mine.st_dev == now.st_dev && mine.st_ino == now.st_ino)
    ::unlink(path_.c_str());
}

void ProfileWriter::fail(const std::string& what) const {
  throw UsageError(fmt::format("{} {}: cannot {}: {}", option_, path_, what, std::strerror(errno)));
}

std::size_t ProfileWriter::drop(const std::vector<std::pair<std::string, index_t>>& rows) {
  // Whole steps go: a step without some processor's row would read as one cut short.
  std::set<std::size_t> steps;
  for (std::size_t k = 0; k < existing_.rows.size(); ++k)
    if (std::find(rows.begin(), rows.end(),
                  std::pair<std::string, index_t>(existing_.rows[k].processor, existing_.rows[k].size)) != rows.end())
      steps.insert(existing_.step_of_row[k]);
  ProfileFile kept = existing_;
  kept.rows.clear();
  kept.step_of_row.clear();
  for (std::size_t k = 0; k < existing_.rows.size(); ++k)
    if (!steps.count(existing_.step_of_row[k])) {
      kept.rows.push_back(existing_.rows[k]);
      kept.step_of_row.push_back(existing_.step_of_row[k]);
    }
  const std::size_t dropped = existing_.rows.size() - kept.rows.size();
  rewrite_ |= dropped > 0;
  existing_ = std::move(kept);
  return dropped;
}

void ProfileWriter::start() {
  if (rewrite_ || existing_.dropped_rows > 0 || existing_.earlier_format || existing_.cut_short) {
    // Rows of an interrupted size are dropped: the file is replaced (atomically) by its complete
    // sizes, and the replacement, locked since its creation, is the file appended to from now on.
    // A file of an earlier format is rewritten in the current one the same way, so that its rows
    // and the new ones share one header.
    io::AtomicFile file(path_);
    std::string text = profile_header() + "\n";
    for (const auto& r : existing_.rows) text += format_profile_row(r) + "\n";
    for (const auto& r : existing_.learned) text += format_profile_row(r) + "\n";
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
    throw UsageError(
        fmt::format("{}: no size has been measured yet (an interrupted `ctrl profile`: run it again to "
                    "resume)",
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

std::vector<std::optional<double>> held_powers(const ProfileFile& file) {
  std::vector<std::optional<double>> out;
  for (const auto& name : file.processors) {
    double sum = 0;
    int k = 0;
    for (const auto& r : file.rows)
      if (r.processor == name && r.held_power) {
        sum += *r.held_power;
        ++k;
      }
    out.push_back(k > 0 ? std::optional<double>(sum / k) : std::nullopt);
  }
  return out;
}

std::vector<energy::Provenance> processor_provenance(const ProfileFile& file) {
  std::vector<energy::Provenance> out;
  for (const auto& name : file.processors) {
    const auto row =
        std::find_if(file.rows.begin(), file.rows.end(), [&](const ProfileRow& r) { return r.processor == name; });
    out.push_back(row == file.rows.end() ? energy::Provenance::absent : row->energy_provenance);
  }
  return out;
}

std::vector<std::string> processors_without_energy(const ProfileFile& file) {
  std::vector<std::string> out;
  for (const auto& name : file.processors)
    if (std::any_of(file.rows.begin(), file.rows.end(), [&](const ProfileRow& r) {
          return r.processor == name && r.energy_provenance == energy::Provenance::absent;
        }))
      out.push_back(name);
  return out;
}

namespace {

// Whether a processor name ("cpu:0-7", "node1/offload:2") is a CPU kind, whose energy an estimate
// can supply.
bool cpu_processor(const std::string& name) {
  const std::string spec = name.substr(name.rfind('/') == std::string::npos ? 0 : name.rfind('/') + 1);
  try {
    return parse_device(spec).on_cores();
  } catch (const UsageError&) {
    return false;  // not a device's name: no estimate can stand for it
  }
}

}  // namespace

void require_energy(const ProfileFile& file, const std::string& path, const std::string& time_only) {
  const std::vector<std::string> missing = processors_without_energy(file);
  if (missing.empty()) return;
  std::string cpus, others;
  for (const auto& name : missing) {
    std::string& list = cpu_processor(name) ? cpus : others;
    list += (list.empty() ? "" : ", ") + name;
  }
  std::string remedy;
  if (!cpus.empty())
    remedy += fmt::format(
        "; for {}, profile again with --cpu-power WATTS (the power of one busy core) to estimate "
        "{} energy",
        cpus, cpus.find(',') == std::string::npos ? "its" : "their");
  if (!others.empty()) remedy += fmt::format("; for {}, no estimate exists: only a sensor measures it", others);
  throw MissingEnergyError(
      fmt::format("{}: {} {} no energy, neither measured nor estimated (energy_source none): a "
                  "front of time and energy would count {} as free{}; or ask for time only with "
                  "{}",
                  path, fmt::join(missing, ", "), missing.size() == 1 ? "has" : "have",
                  missing.size() == 1 ? "it" : "them", remedy, time_only));
}

partition::Profile to_partition_profile(const ProfileFile& file) {
  partition::Profile profile;
  for (const auto& name : file.processors) {
    // By size: the profile's point, replaced by the last one a run measured there (a run measures
    // the processor within the distribution, as it will run again).
    std::map<index_t, partition::ProfilePoint> at;
    for (const auto* rows : {&file.rows, &file.learned})
      for (const auto& r : *rows)
        if (r.processor == name) at[r.size] = {static_cast<partition::Size>(r.size), r.time, r.energy};
    std::vector<partition::ProfilePoint> points;
    for (const auto& [size, point] : at) points.push_back(point);
    profile.add(partition::ProcessorProfile(name, std::move(points)));
  }
  return profile;
}

}  // namespace ctrl::loop
