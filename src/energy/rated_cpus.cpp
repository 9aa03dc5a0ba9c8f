// The table of rated CPUs behind estimated CPU energy, and the rating a machine gets.
//
// Each entry is the vendor's rated package power (Intel: "TDP"; AMD: "Default TDP") and hardware
// threads per package, from the vendor's own specification page (Intel ARK, ark.intel.com; AMD's
// EPYC product pages, amd.com/en/products/processors/server/epyc). A core's rating is the package's
// power over its threads: a package with every thread busy draws its rated power, the workload the
// rating is defined for. Cloud CPUs (AWS "8375C", GCP "7B13") have no public rating and are absent:
// give --cpu-power for them.
#include <ctrl/energy/estimate.hpp>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <ctrl/errors.hpp>

namespace ctrl::energy {

namespace {

constexpr std::string_view intel_ark = "Intel ARK";
constexpr std::string_view amd_epyc = "AMD EPYC specifications";

constexpr std::array<RatedCpu, 20> table{{
    // Intel Xeon Scalable, 5th and 4th generation (Emerald Rapids, Sapphire Rapids)
    {"Platinum 8592+", 350, 128, intel_ark},
    {"Platinum 8480+", 350, 112, intel_ark},
    {"Platinum 8468", 350, 96, intel_ark},
    // 3rd generation (Ice Lake)
    {"Platinum 8380", 270, 80, intel_ark},
    {"Platinum 8358", 250, 64, intel_ark},
    {"Gold 6338", 205, 64, intel_ark},
    // 2nd and 1st generation (Cascade Lake, Skylake)
    {"Platinum 8280", 205, 56, intel_ark},
    {"Gold 6248", 150, 40, intel_ark},
    {"Gold 6148", 150, 40, intel_ark},
    {"Gold 6130", 125, 32, intel_ark},
    // Xeon E5 v4 (Broadwell)
    {"E5-2690 v4", 135, 28, intel_ark},
    {"E5-2680 v4", 120, 28, intel_ark},
    // AMD EPYC 9004 (Genoa), 7003 (Milan), 7002 (Rome)
    {"EPYC 9654", 360, 192, amd_epyc},
    {"EPYC 9554", 360, 128, amd_epyc},
    {"EPYC 9454", 290, 96, amd_epyc},
    {"EPYC 7763", 280, 128, amd_epyc},
    {"EPYC 7713", 225, 128, amd_epyc},
    {"EPYC 7543", 225, 64, amd_epyc},
    {"EPYC 7742", 225, 128, amd_epyc},
    {"EPYC 7302", 155, 32, amd_epyc},
}};

std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t begin = text.find_first_not_of(" \t", at);
    if (begin == std::string_view::npos) break;
    const std::size_t end = std::min(text.find_first_of(" \t", begin), text.size());
    out.push_back(text.substr(begin, end - begin));
    at = end;
  }
  return out;
}

bool contains_words(const std::vector<std::string_view>& haystack, const std::vector<std::string_view>& needle) {
  if (needle.empty() || needle.size() > haystack.size()) return false;
  for (std::size_t i = 0; i + needle.size() <= haystack.size(); ++i)
    if (std::equal(needle.begin(), needle.end(), haystack.begin() + static_cast<std::ptrdiff_t>(i))) return true;
  return false;
}

}  // namespace

std::span<const RatedCpu> rated_cpus() { return table; }

const RatedCpu* find_rated_cpu(std::string_view model_name) {
  const auto name = words(model_name);
  for (const RatedCpu& cpu : table)
    if (contains_words(name, words(cpu.model))) return &cpu;
  return nullptr;
}

std::string cpuinfo_model_name(std::string_view cpuinfo) {
  std::size_t at = 0;
  while (at < cpuinfo.size()) {
    const std::size_t nl = std::min(cpuinfo.find('\n', at), cpuinfo.size());
    const std::string_view line = cpuinfo.substr(at, nl - at);
    at = nl + 1;
    if (line.rfind("model name", 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\r')) value.remove_suffix(1);
    return std::string(value);
  }
  return {};
}

void check_watts_per_core(double watts, std::string_view option) {
  if (!std::isfinite(watts) || watts <= 0 || watts > max_watts_per_core)
    throw UsageError(
        fmt::format("{} {:g}: the power of one busy CPU core, in watts, must be above 0 and at most {:g} "
                    "(a package's rated power divided by its hardware threads: 350 W for 112 threads "
                    "is {:.2f} W)",
                    option, watts, max_watts_per_core, 350.0 / 112));
}

std::optional<CpuRating> cpu_rating(const EstimateEnvironment& env, const FileReader& reader, std::string& why) {
  if (env.watts_per_core) {
    check_watts_per_core(*env.watts_per_core, env.option);
    return CpuRating{*env.watts_per_core, fmt::format("given by {}", env.option)};
  }
  const FileRead info = reader ? reader(env.cpuinfo) : read_small_file(env.cpuinfo);
  const std::string model = info.error == 0 ? cpuinfo_model_name(info.text) : std::string();
  if (const RatedCpu* cpu = model.empty() ? nullptr : find_rated_cpu(model))
    return CpuRating{cpu->watts_per_thread(), fmt::format("{}: {:g} W per package / {} threads ({})", cpu->model,
                                                          cpu->package_w, cpu->threads, cpu->source)};
  const std::string what = info.error != 0 ? describe_read_error(env.cpuinfo, info.error)
                           : model.empty() ? env.cpuinfo.string() + " names no CPU model"
                                           : "CPU '" + model + "' is not in ctrl's table of rated CPUs";
  why = fmt::format(
      "{}: give {} WATTS (the power of one busy core: the package's rated power / its hardware "
      "threads) to estimate it",
      what, env.option);
  return std::nullopt;
}

}  // namespace ctrl::energy
