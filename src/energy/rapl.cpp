// RAPL through Linux powercap: scanning zones, reading wrapping micro-joule counters.
#include <ctrl/energy/rapl.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <system_error>
#include <utility>

#include <ctrl/errors.hpp>

namespace ctrl::energy {

namespace fs = std::filesystem;

FileRead read_small_file(const fs::path& file) {
  FileRead out;
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    out.error = errno;
    return out;
  }
  char buf[256];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      out.error = errno;  // EISDIR for a directory: open(2) succeeds on one, read(2) fails
      out.text.clear();
      break;
    }
    if (n == 0) break;
    out.text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

std::string describe_read_error(const fs::path& file, int error) {
  std::string msg = "cannot read " + file.string() + ": " + std::generic_category().message(error);
  if (error == EACCES || error == EPERM) {
    // Linux 5.10 made energy_uj root-only (CVE-2020-8694, a power side channel).
    const fs::path pattern = file.parent_path().parent_path() / "intel-rapl:*" / file.filename();
    msg +=
        ". RAPL energy counters are readable only by root since Linux 5.10; run as root, or "
        "grant read access until the next boot with `sudo chmod o+r " +
        pattern.string() + "`, or permanently with a udev rule (see docs/energy.md)";
  }
  return msg;
}

namespace {

// Parses the unsigned decimal a sysfs file holds ("123456\n").
std::optional<std::uint64_t> parse_u64(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

FileRead read_with(const FileReader& reader, const fs::path& file) {
  return reader ? reader(file) : read_small_file(file);
}

// Reads a counter file; DeviceError naming the file on failure or malformed content.
std::uint64_t read_u64_or_throw(const FileReader& reader, const fs::path& file) {
  const FileRead r = read_with(reader, file);
  if (r.error != 0) throw DeviceError(describe_read_error(file, r.error));
  const auto v = parse_u64(r.text);
  if (!v) throw DeviceError(file.string() + ": expected an unsigned integer, read '" + trimmed(r.text) + "'");
  return *v;
}

// "intel-rapl:N" or "intel-rapl:N:M" → (N, M or -1). Other control types (intel-rapl-mmio,
// which repeats package 0 through MMIO) are not ours.
std::optional<std::pair<int, int>> parse_zone_id(const std::string& zone) {
  constexpr std::string_view prefix = "intel-rapl:";
  if (zone.rfind(prefix, 0) != 0) return std::nullopt;
  std::string_view rest = std::string_view(zone).substr(prefix.size());
  int n = 0;
  int m = -1;
  auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), n);
  if (ec != std::errc{}) return std::nullopt;
  if (p != rest.data() + rest.size()) {
    if (*p != ':') return std::nullopt;
    auto [q, ec2] = std::from_chars(p + 1, rest.data() + rest.size(), m);
    if (ec2 != std::errc{} || q != rest.data() + rest.size()) return std::nullopt;
  }
  return std::pair{n, m};
}

}  // namespace

std::string RaplZone::label() const {
  if (is_package() || package < 0) return name;
  return "package-" + std::to_string(package) + "/" + name;
}

RaplScan scan_rapl(const fs::path& root, const FileReader& reader) {
  RaplScan scan;
  scan.root = root;
  std::error_code ec;
  if (!fs::exists(root, ec)) {
    scan.absent_reason = no_sensor(root.string() + " absent");
    return scan;
  }
  if (!fs::is_directory(root, ec)) {
    scan.absent_reason = no_sensor(root.string() + " is not a directory");
    return scan;
  }

  struct Found {
    int n, m;
    RaplZone zone;
  };
  std::vector<Found> found;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    const std::string zone = entry.path().filename().string();
    const auto id = parse_zone_id(zone);
    if (!id) continue;
    RaplZone z;
    z.dir = entry.path();
    z.zone = zone;
    const FileRead name = read_with(reader, z.dir / "name");
    if (name.error != 0) {
      z.name = zone;
      z.problem = describe_read_error(z.dir / "name", name.error);
    } else {
      z.name = trimmed(name.text);
      if (z.name.empty()) throw DeviceError((z.dir / "name").string() + ": empty zone name");
    }
    if (z.problem.empty()) {
      const FileRead range = read_with(reader, z.dir / "max_energy_range_uj");
      if (range.error != 0) {
        z.problem = describe_read_error(z.dir / "max_energy_range_uj", range.error);
      } else if (const auto v = parse_u64(range.text); v && *v > 0) {
        z.max_range_uj = *v;
      } else {
        throw DeviceError((z.dir / "max_energy_range_uj").string() + ": expected a positive integer, read '" +
                          trimmed(range.text) + "'");
      }
    }
    if (z.problem.empty()) {
      // Probe the counter now so that `ctrl devices` can say "permission denied" up front.
      const FileRead e = read_with(reader, z.dir / "energy_uj");
      if (e.error != 0) {
        z.problem = describe_read_error(z.dir / "energy_uj", e.error);
      } else if (!parse_u64(e.text)) {
        throw DeviceError((z.dir / "energy_uj").string() + ": expected an unsigned integer, read '" + trimmed(e.text) +
                          "'");
      }
    }
    found.push_back({id->first, id->second, std::move(z)});
  }
  if (ec) {
    scan.absent_reason = no_sensor("cannot list " + root.string() + ": " + ec.message());
    return scan;
  }

  // Subzones belong to the package of their parent zone intel-rapl:N.
  for (Found& f : found) {
    const Found* parent = &f;
    if (f.m >= 0) {
      const auto it = std::find_if(found.begin(), found.end(), [&](const Found& p) { return p.n == f.n && p.m < 0; });
      parent = it == found.end() ? nullptr : &*it;
    }
    if (parent && parent->zone.is_package()) {
      const std::string_view digits = std::string_view(parent->zone.name).substr(8);
      int pkg = -1;
      const auto [end, perr] = std::from_chars(digits.data(), digits.data() + digits.size(), pkg);
      if (perr == std::errc{} && end == digits.data() + digits.size()) f.zone.package = pkg;
    }
  }
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    return std::pair{a.n, a.m} < std::pair{b.n, b.m};
  });
  for (Found& f : found) scan.zones.push_back(std::move(f.zone));
  if (scan.zones.empty()) {
    scan.absent_reason =
        no_sensor("no intel-rapl zones under " + root.string() + " (is the intel_rapl_msr module loaded?)");
  }
  return scan;
}

std::uint64_t WrapCounter::update(std::uint64_t raw_uj) {
  if (raw_uj > max_range_) {
    throw DeviceError("energy counter read " + std::to_string(raw_uj) + " uJ, above its max_energy_range_uj " +
                      std::to_string(max_range_));
  }
  if (raw_uj >= last_) {
    total_ += raw_uj - last_;
  } else {
    total_ += (max_range_ - last_) + 1 + raw_uj;
    ++wraps_;
  }
  last_ = raw_uj;
  return total_;
}

RaplMeter::RaplMeter(std::vector<RaplZone> zones, std::string name, FileReader reader)
    : zones_(std::move(zones)), reader_(std::move(reader)) {
  if (zones_.empty()) throw UsageError("RAPL meter '" + name + "': no zones given");
  info_.name = std::move(name);
  info_.measures = "CPU energy (RAPL) of ";
  for (std::size_t i = 0; i < zones_.size(); ++i) {
    const RaplZone& z = zones_[i];
    if (!z.readable()) throw DeviceError("RAPL meter '" + info_.name + "': " + z.problem);
    if (z.max_range_uj == 0) {
      throw UsageError("RAPL meter '" + info_.name + "': zone " + z.dir.string() +
                       " has no max_energy_range_uj (use a zone from scan_rapl)");
    }
    info_.measures += (i ? " + " : "") + z.label();
  }
  info_.update_interval_s = rapl_update_interval_s;
  info_.has_power = false;  // powercap has no instantaneous power for RAPL domains
  counters_.reserve(zones_.size());
  for (const RaplZone& z : zones_) {
    const std::uint64_t first = read_uj(z);
    if (first > z.max_range_uj) {
      throw DeviceError((z.dir / "energy_uj").string() + ": reads " + std::to_string(first) +
                        ", above max_energy_range_uj " + std::to_string(z.max_range_uj));
    }
    counters_.emplace_back(first, z.max_range_uj);
  }
}

std::uint64_t RaplMeter::read_uj(const RaplZone& zone) const {
  return read_u64_or_throw(reader_, zone.dir / "energy_uj");
}

std::optional<double> RaplMeter::energy_j() {
  std::lock_guard lock(mutex_);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < zones_.size(); ++i) {
    const std::uint64_t raw = read_uj(zones_[i]);
    try {
      total += counters_[i].update(raw);
    } catch (const DeviceError& e) {
      throw DeviceError((zones_[i].dir / "energy_uj").string() + ": " + e.what());
    }
  }
  return static_cast<double>(total) * 1e-6;
}

std::uint64_t RaplMeter::wraps() const {
  std::lock_guard lock(mutex_);
  std::uint64_t n = 0;
  for (const WrapCounter& c : counters_) n += c.wraps();
  return n;
}

}  // namespace ctrl::energy
