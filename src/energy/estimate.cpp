// The estimated CPU meter: rated power x busy core time from /proc/stat (estimate.hpp).
#include <ctrl/energy/estimate.hpp>

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <utility>

#include <fmt/format.h>

#include <ctrl/errors.hpp>

namespace ctrl::energy {

namespace {

// The numbers after a line's first word; stops at the first field that is not one.
std::vector<std::uint64_t> numbers_after_name(std::string_view line) {
  std::vector<std::uint64_t> out;
  std::size_t at = line.find(' ');
  while (at != std::string_view::npos && at < line.size()) {
    const std::size_t begin = line.find_first_not_of(' ', at);
    if (begin == std::string_view::npos) break;
    const std::size_t end = std::min(line.find(' ', begin), line.size());
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(line.data() + begin, line.data() + end, v);
    if (ec != std::errc{} || p != line.data() + end) break;
    out.push_back(v);
    at = end;
  }
  return out;
}

long clock_ticks_per_second(long given) {
  if (given > 0) return given;
  const long hz = ::sysconf(_SC_CLK_TCK);
  return hz > 0 ? hz : 100;  // USER_HZ is 100 on every Linux architecture ctrl builds for
}

}  // namespace

std::vector<CoreTicks> parse_proc_stat(std::string_view text, const std::string& where) {
  std::vector<CoreTicks> out;
  std::size_t at = 0;
  for (int line_no = 1; at < text.size(); ++line_no) {
    const std::size_t nl = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, nl - at);
    at = nl + 1;
    // "cpuN ..." lines only: "cpu " is the machine's sum, "intr", "ctxt", ... are not per core.
    if (line.size() < 4 || line.rfind("cpu", 0) != 0 || line[3] < '0' || line[3] > '9') continue;
    CoreTicks t;
    const std::size_t name_end = std::min(line.find(' '), line.size());
    const auto [p, ec] = std::from_chars(line.data() + 3, line.data() + name_end, t.core);
    const std::vector<std::uint64_t> v = numbers_after_name(line);
    if (ec != std::errc{} || p != line.data() + name_end || v.size() < 4)
      throw DeviceError(
          fmt::format("{}:{}: expected 'cpuN user nice system idle ...', read '{}'", where, line_no, line));
    // user, nice, system; then (idle, iowait: not busy) irq and softirq where the kernel has them.
    t.busy = v[0] + v[1] + v[2] + (v.size() > 5 ? v[5] : 0) + (v.size() > 6 ? v[6] : 0);
    out.push_back(t);
  }
  return out;
}

std::string format_core_list(const std::vector<int>& cores) {
  std::vector<int> sorted = cores;
  std::sort(sorted.begin(), sorted.end());
  std::string out;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(sorted[i]);
    if (j > i) out += "-" + std::to_string(sorted[j]);
    i = j + 1;
  }
  return out;
}

EstimatedCpuMeter::EstimatedCpuMeter(std::vector<int> cores, CpuRating rating, std::string name,
                                     const EstimateEnvironment& env, FileReader reader)
    : cores_(std::move(cores)),
      rating_(std::move(rating)),
      proc_stat_(env.proc_stat),
      reader_(std::move(reader)),
      seconds_per_tick_(1.0 / static_cast<double>(clock_ticks_per_second(env.ticks_per_second))) {
  if (cores_.empty()) throw UsageError("estimated CPU meter '" + name + "': no cores given");
  std::vector<int> sorted = cores_;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw UsageError("estimated CPU meter '" + name + "': a core is listed twice");
  check_watts_per_core(rating_.watts_per_core, env.option);
  info_.name = std::move(name);
  info_.measures =
      fmt::format("{} {}: {:.4g} W per busy core ({}) x busy time from {}", cores_.size() == 1 ? "core" : "cores",
                  format_core_list(cores_), rating_.watts_per_core, rating_.origin, proc_stat_.string());
  info_.update_interval_s = seconds_per_tick_;  // busy time moves in whole clock ticks
  info_.has_power = false;
  info_.provenance = Provenance::estimated;
  info_.full_power_w = rating_.watts_per_core * static_cast<double>(cores_.size());
  origin_ = read_busy();
}

std::vector<std::uint64_t> EstimatedCpuMeter::read_busy() const {
  const FileRead r = reader_ ? reader_(proc_stat_) : read_small_file(proc_stat_);
  if (r.error != 0) throw DeviceError(info_.name + ": " + describe_read_error(proc_stat_, r.error));
  const std::vector<CoreTicks> all = parse_proc_stat(r.text, proc_stat_.string());
  std::vector<std::uint64_t> busy;
  busy.reserve(cores_.size());
  for (const int core : cores_) {
    const auto it = std::find_if(all.begin(), all.end(), [&](const CoreTicks& t) { return t.core == core; });
    if (it == all.end())
      throw DeviceError(
          fmt::format("{}: {} has no line for core {} (is it offline?)", info_.name, proc_stat_.string(), core));
    busy.push_back(it->busy);
  }
  return busy;
}

std::optional<double> EstimatedCpuMeter::energy_j() {
  const std::vector<std::uint64_t> now = read_busy();
  std::uint64_t ticks = 0;
  for (std::size_t i = 0; i < now.size(); ++i) {
    if (now[i] < origin_[i])
      throw DeviceError(
          fmt::format("{}: the busy time of core {} went backwards ({} -> {} ticks in {}); was the core "
                      "taken offline?",
                      info_.name, cores_[i], origin_[i], now[i], proc_stat_.string()));
    ticks += now[i] - origin_[i];
  }
  return rating_.watts_per_core * static_cast<double>(ticks) * seconds_per_tick_;
}

}  // namespace ctrl::energy
