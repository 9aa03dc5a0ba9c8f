#include <ctrl/loop/selection.hpp>

#include <ctrl/errors.hpp>
#include <ctrl/io/files.hpp>

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>

namespace ctrl::loop {

namespace {

// A name a selection line can hold: printable, without blanks, '/', ':' or '#'.
bool valid_host_name(std::string_view h) {
  return !h.empty() &&
         std::all_of(h.begin(), h.end(), [](char c) { return c > ' ' && c < 127 && c != '/' && c != ':' && c != '#'; });
}

// Without the blanks and carriage returns at its ends (a line of a file written on Windows).
std::string_view trim_line(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::string who_text(const SelectionLine& l) {
  switch (l.who) {
    case SelectionLine::Who::rank:
      return fmt::format("rank {}", l.rank);
    case SelectionLine::Who::host:
      return "host " + l.host;
    case SelectionLine::Who::any:
      break;
  }
  return "*";
}

}  // namespace

Selection parse_selection(std::string_view text, const std::string& path) {
  Selection sel;
  sel.path = path;
  int number = 0;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t nl = text.find('\n', at);
    std::string_view line = text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
    at = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++number;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim_line(line);
    if (line.empty()) continue;
    const auto where = [&] { return fmt::format("{}:{}", path, number); };
    const auto colon = line.find(':');
    if (colon == std::string_view::npos)
      throw UsageError(
          fmt::format("{}: expected 'rank N: DEVICES', 'host NAME: DEVICES' or '*: DEVICES', got '{}'", where(), line));
    const std::string_view who = trim_line(line.substr(0, colon));
    SelectionLine entry;
    entry.line = number;
    if (who == "*") {
      entry.who = SelectionLine::Who::any;
    } else if (who.starts_with("rank ") || who.starts_with("rank\t")) {
      const std::string_view n = trim_line(who.substr(5));
      entry.who = SelectionLine::Who::rank;
      const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), entry.rank);
      if (ec != std::errc() || end != n.data() + n.size() || entry.rank < 0)
        throw UsageError(fmt::format("{}: '{}' is not a rank number (0, 1, ...)", where(), n));
    } else if (who.starts_with("host ") || who.starts_with("host\t")) {
      entry.who = SelectionLine::Who::host;
      entry.host = std::string(trim_line(who.substr(5)));
      if (!valid_host_name(entry.host))
        throw UsageError(fmt::format("{}: '{}' is not a host name", where(), entry.host));
    } else {
      throw UsageError(fmt::format("{}: '{}' names no rank or host: write 'rank N', 'host NAME' or '*'", where(), who));
    }
    std::istringstream devices{std::string(line.substr(colon + 1))};
    for (std::string word; devices >> word;) {
      try {
        entry.devices.push_back(parse_device(word));
      } catch (const UsageError& e) {
        throw UsageError(fmt::format("{}: {}", where(), e.what()));
      }
    }
    if (entry.devices.empty()) throw UsageError(fmt::format("{}: {} has no devices", where(), who_text(entry)));
    for (const auto& other : sel.lines)
      if (who_text(other) == who_text(entry))
        throw UsageError(fmt::format("{}: {} is already given on line {}", where(), who_text(entry), other.line));
    sel.lines.push_back(std::move(entry));
  }
  if (sel.lines.empty())
    throw UsageError(
        fmt::format("{}: no selection lines (write 'rank N: DEVICES', 'host NAME: DEVICES' or '*: "
                    "DEVICES'; `ctrl devices --write-selection FILE` writes one)",
                    path));
  return sel;
}

namespace {

// io's messages are "<path>: <why>"; the why, for a message of this file's own.
std::string reason(const Error& e, const std::string& path) {
  std::string why = e.what();
  if (why.rfind(path + ": ", 0) == 0) why.erase(0, path.size() + 2);
  return why;
}

}  // namespace

Selection read_selection(const std::string& path) {
  std::string text;
  try {
    text = io::read_input(path);  // a FIFO is refused, not waited on
  } catch (const Error& e) {
    throw UsageError(fmt::format("{}: cannot read the selection file ({})", path, reason(e, path)));
  }
  return parse_selection(text, path);
}

std::vector<DeviceSpec> Selection::devices_for(int rank, const std::string& host) const {
  const SelectionLine* by_host = nullptr;
  const SelectionLine* any = nullptr;
  for (const auto& l : lines) {
    if (l.who == SelectionLine::Who::rank && l.rank == rank) return l.devices;
    if (l.who == SelectionLine::Who::host && l.host == host) by_host = &l;
    if (l.who == SelectionLine::Who::any) any = &l;
  }
  if (by_host != nullptr) return by_host->devices;
  if (any != nullptr) return any->devices;
  throw UsageError(
      fmt::format("{}: no line for rank {} (host {}): add 'rank {}: DEVICES', 'host {}: DEVICES' or '*: "
                  "DEVICES'",
                  path, rank, host, rank, host));
}

std::string Selection::text() const {
  std::string out =
      "# ctrl device selection: the controllers each MPI rank owns (docs/distributed.md)\n"
      "# 'rank N: DEVICES', 'host NAME: DEVICES' or '*: DEVICES'; a rank takes its rank line,\n"
      "# else its host's line, else '*'.\n";
  for (const auto& l : lines) {
    out += who_text(l) + ":";
    for (const auto& d : l.devices) out += " " + d.str();
    out += '\n';
  }
  return out;
}

void write_selection(const std::string& path, const Selection& selection) {
  try {
    io::check_output(path);
    io::write_file_atomically(path, selection.text());
  } catch (const Error& e) {
    throw UsageError(fmt::format("{}: cannot write the selection file ({})", path, reason(e, path)));
  }
}

std::string this_host() {
  if (const char* h = std::getenv("CTRL_HOSTNAME"); h != nullptr && *h != '\0') return h;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

std::string processor_name(const std::string& host, const DeviceSpec& device) { return host + "/" + device.str(); }

std::pair<std::string, DeviceSpec> split_processor_name(std::string_view name) {
  const auto slash = name.find('/');
  if (slash == std::string_view::npos) return {std::string(), parse_device(name)};
  return {std::string(name.substr(0, slash)), parse_device(name.substr(slash + 1))};
}

Selection suggest_selection(const std::vector<RankMachine>& ranks, int cpu_groups) {
  Selection sel;
  std::map<std::string, std::vector<const RankMachine*>> by_host;
  for (const auto& r : ranks) by_host[r.host].push_back(&r);
  // Host lines where every host has one rank and a name a line can hold (a name with a newline or
  // a colon would write another line, or another field): else rank lines.
  const bool one_per_host = std::all_of(by_host.begin(), by_host.end(),
                                        [](const auto& h) { return h.second.size() == 1 && valid_host_name(h.first); });
  for (const auto& r : ranks) {
    const auto& mates = by_host[r.host];
    const std::size_t k = static_cast<std::size_t>(std::find(mates.begin(), mates.end(), &r) - mates.begin());
    const std::size_t n = mates.size();
    // This rank's share of its host: a contiguous slice of the cores, every n-th GPU.
    Machine share = r.machine;
    const auto& usable = r.machine.usable;
    share.usable.assign(usable.begin() + static_cast<std::ptrdiff_t>(usable.size() * k / n),
                        usable.begin() + static_cast<std::ptrdiff_t>(usable.size() * (k + 1) / n));
    share.gpus.clear();
    for (std::size_t g = k; g < r.machine.gpus.size(); g += n) share.gpus.push_back(r.machine.gpus[g]);
    SelectionLine line;
    line.line = static_cast<int>(sel.lines.size()) + 1;
    if (one_per_host) {
      line.who = SelectionLine::Who::host;
      line.host = r.host;
    } else {
      line.who = SelectionLine::Who::rank;
      line.rank = r.rank;
    }
    if (!share.usable.empty() || !share.gpus.empty()) {
      line.devices = share.usable.empty() ? std::vector<DeviceSpec>{} : suggested_processors(share, cpu_groups);
      if (share.usable.empty())
        for (const auto& g : share.gpus) line.devices.push_back(cuda(g.index));
    }
    if (line.devices.empty())
      throw UsageError(
          fmt::format("rank {} on {}: no cores or GPUs left for it ({} ranks share the host's {} usable "
                      "cores)",
                      r.rank, r.host, n, usable.size()));
    sel.lines.push_back(std::move(line));
  }
  return sel;
}

}  // namespace ctrl::loop
