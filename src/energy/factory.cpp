// Which meter a device has, and which meters this machine has.
#include <ctrl/energy/factory.hpp>

#include <algorithm>
#include <string>
#include <utility>

#include <fmt/format.h>

#include <ctrl/errors.hpp>

namespace ctrl::energy {

DeviceSpec DeviceSpec::none(std::string label) {
  DeviceSpec d;
  d.kind = DeviceKind::none;
  d.label = std::move(label);
  return d;
}

DeviceSpec DeviceSpec::cpu(std::vector<int> packages, bool with_dram, std::vector<int> cores) {
  DeviceSpec d;
  d.kind = DeviceKind::cpu_packages;
  d.packages = std::move(packages);
  d.with_dram = with_dram;
  d.cores = std::move(cores);
  return d;
}

DeviceSpec DeviceSpec::nvidia(unsigned gpu_index, std::string pci_bus_id) {
  DeviceSpec d;
  d.kind = DeviceKind::nvidia_gpu;
  d.gpu_index = gpu_index;
  d.pci_bus_id = std::move(pci_bus_id);
  return d;
}

namespace {

std::string join_packages(const std::vector<int>& packages) {
  std::string s;
  for (const int p : packages) s += (s.empty() ? "" : ",") + std::to_string(p);
  return s;
}

// What a zone covers, in the words `ctrl devices` prints.
std::string zone_measures(const RaplZone& z) {
  const std::string pkg = "package " + std::to_string(z.package);
  if (z.is_package()) return "CPU " + pkg + ": cores, caches, uncore (not DRAM)";
  if (z.name == "dram") return "DRAM attached to " + pkg;
  if (z.name == "core") return "cores of " + pkg + " (included in the package)";
  if (z.name == "uncore") return "uncore / integrated GPU of " + pkg + " (included in the package)";
  if (z.name == "psys") return "platform (psys): the whole SoC as the firmware sees it";
  return z.name + " zone " + z.zone;
}

std::string cpu_label(const DeviceSpec& d) {
  return d.label.empty() ? "cpu packages {" + join_packages(d.packages) + "}" : d.label;
}

// The ids must name packages, each once.
void check_packages(const DeviceSpec& d) {
  if (d.packages.empty()) throw UsageError("energy meter for a cpu device: no packages given");
  std::vector<int> sorted = d.packages;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.front() < 0) {
    throw UsageError("energy meter for cpu packages {" + join_packages(d.packages) +
                     "}: package ids must not be negative");
  }
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    throw UsageError("energy meter for cpu packages {" + join_packages(d.packages) + "}: a package is listed twice");
  }
}

// The package zones of `d` (and their dram), or the first unreadable zone's problem in `problem`.
std::vector<RaplZone> device_zones(const DeviceSpec& d, const RaplScan& scan, std::string& problem) {
  std::vector<int> sorted = d.packages;
  std::sort(sorted.begin(), sorted.end());
  std::vector<RaplZone> zones;
  for (const int p : sorted) {
    const auto pkg = std::find_if(scan.zones.begin(), scan.zones.end(),
                                  [&](const RaplZone& z) { return z.is_package() && z.package == p; });
    if (pkg == scan.zones.end()) {
      std::string seen;
      for (const RaplZone& z : scan.zones) {
        if (z.is_package()) seen += (seen.empty() ? "" : ", ") + z.name;
      }
      throw DeviceError(cpu_label(d) + ": no RAPL zone package-" + std::to_string(p) + " under " + scan.root.string() +
                        " (found: " + (seen.empty() ? "none" : seen) + ")");
    }
    zones.push_back(*pkg);
    if (d.with_dram) {
      for (const RaplZone& z : scan.zones) {
        if (z.name == "dram" && z.package == p) zones.push_back(z);
      }
    }
  }
  for (const RaplZone& z : zones) {
    if (!z.readable()) problem = z.problem;
  }
  return zones;
}

std::unique_ptr<Meter> cpu_meter(const DeviceSpec& d, const MeterEnvironment& env) {
  check_packages(d);
  const RaplScan scan = scan_rapl(env.powercap_root, env.reader);
  // No counter to read (no powercap, or one that is not readable): estimated if possible.
  if (!scan.present()) return make_cpu_estimate(d, env, scan.absent_reason);
  std::string problem;
  std::vector<RaplZone> zones = device_zones(d, scan, problem);
  if (!problem.empty()) return make_cpu_estimate(d, env, problem);
  std::string name = "rapl:";
  for (const RaplZone& z : zones) name += (name.size() > 5 ? "+" : "") + z.label();
  return std::make_unique<RaplMeter>(std::move(zones), std::move(name), env.reader);
}

std::unique_ptr<Meter> gpu_meter(DeviceSpec d, const MeterEnvironment& env) {
  const NvmlProbe probe = probe_nvml(env.nvml_library);
  if (!probe.present()) return std::make_unique<NoMeter>("nvml:" + std::to_string(d.gpu_index), probe.absent_reason);
  // Matched by bus id, NVML's index may differ from CUDA's (CUDA numbers the fastest GPU first).
  if (!d.pci_bus_id.empty()) d.gpu_index = nvml_index_at_pci_bus_id(d.pci_bus_id, env.nvml_library);
  const std::string name = "nvml:" + std::to_string(d.gpu_index);
  if (d.gpu_index >= probe.gpus.size()) {
    throw DeviceError((d.label.empty() ? "nvidia gpu " + std::to_string(d.gpu_index) : d.label) +
                      ": no such device; NVML sees " + std::to_string(probe.gpus.size()) + " GPU(s)");
  }
  const NvmlGpu& gpu = probe.gpus[d.gpu_index];
  if (!gpu.has_energy) return std::make_unique<NoMeter>(name, gpu.problem);
  return std::make_unique<NvmlMeter>(d.gpu_index, env.nvml_library);
}

}  // namespace

std::unique_ptr<Meter> make_cpu_estimate(const DeviceSpec& d, const MeterEnvironment& env,
                                         const std::string& no_sensor_reason) {
  if (d.kind != DeviceKind::cpu_packages) {
    throw UsageError("an estimated energy meter is for CPU devices, not for " +
                     (d.label.empty() ? std::string("this device") : d.label));
  }
  const std::string label = cpu_label(d);
  const auto absent = [&](const std::string& why) {
    return std::make_unique<NoMeter>("rapl:" + label, no_sensor(no_sensor_reason) + "; no estimate: " + why);
  };
  if (d.cores.empty()) return absent("the device's cores are not known");
  std::string why;
  const std::optional<CpuRating> rating = cpu_rating(env.estimate, env.reader, why);
  if (!rating) return absent(why);
  // /proc/stat unreadable is the estimate's absence; a core missing from it is a device that
  // does not exist, as a missing RAPL package is (EstimatedCpuMeter throws DeviceError).
  const FileRead stat = env.reader ? env.reader(env.estimate.proc_stat) : read_small_file(env.estimate.proc_stat);
  if (stat.error != 0) return absent(describe_read_error(env.estimate.proc_stat, stat.error));
  // The rating is part of the name: a profile resumed with another rating would mix two models.
  return std::make_unique<EstimatedCpuMeter>(d.cores, *rating,
                                             fmt::format("estimate:{} ({:.4g} W/core)", label, rating->watts_per_core),
                                             env.estimate, env.reader);
}

std::unique_ptr<Meter> make_meter(const DeviceSpec& device, const MeterEnvironment& env) {
  switch (device.kind) {
    case DeviceKind::none:
      return std::make_unique<NoMeter>("none:" + (device.label.empty() ? "device" : device.label),
                                       "device has no energy meter");
    case DeviceKind::cpu_packages:
      return cpu_meter(device, env);
    case DeviceKind::nvidia_gpu:
      return gpu_meter(device, env);
  }
  throw UsageError("energy meter: unknown device kind " + std::to_string(static_cast<int>(device.kind)));
}

std::vector<MeterListing> list_meters(const MeterEnvironment& env) {
  std::vector<MeterListing> out;
  const std::string rapl_family = "CPU packages (RAPL via " + env.powercap_root.string() + ")";
  try {
    const RaplScan scan = scan_rapl(env.powercap_root, env.reader);
    if (!scan.present()) {
      out.push_back({"rapl", rapl_family, false, scan.absent_reason, 0.0});
    } else {
      for (const RaplZone& z : scan.zones) {
        out.push_back({"rapl:" + z.label(), zone_measures(z), z.readable(), z.readable() ? "" : no_sensor(z.problem),
                       rapl_update_interval_s});
      }
    }
  } catch (const Error& e) {
    // A malformed sysfs file: the listing reports it rather than hiding the other meters.
    out.push_back({"rapl", rapl_family, false, no_sensor(e.what()), 0.0});
  }

  std::string why;
  try {
    if (const auto rating = cpu_rating(env.estimate, env.reader, why)) {
      out.push_back({"estimate",
                     fmt::format("CPU cores without a readable counter: {:.4g} W per busy core ({}) x busy time "
                                 "from {}",
                                 rating->watts_per_core, rating->origin, env.estimate.proc_stat.string()),
                     true, "", 0.0, Provenance::estimated});
    } else {
      out.push_back({"estimate", "CPU cores without a readable counter", false, "no estimate: " + why, 0.0,
                     Provenance::estimated});
    }
  } catch (const UsageError& e) {  // a rating given out of range
    out.push_back({"estimate", "CPU cores without a readable counter", false, e.what(), 0.0, Provenance::estimated});
  }

  const std::string nvml_family = "NVIDIA GPUs (NVML, " + env.nvml_library + ")";
  const NvmlProbe probe = probe_nvml(env.nvml_library);
  if (!probe.present()) {
    out.push_back({"nvml", nvml_family, false, probe.absent_reason, 0.0});
  } else if (probe.gpus.empty()) {
    out.push_back({"nvml", nvml_family, false, no_sensor("NVML sees no GPU"), 0.0});
  } else {
    for (const NvmlGpu& g : probe.gpus) {
      out.push_back({"nvml:" + std::to_string(g.index),
                     "whole-board energy of nvidia gpu " + std::to_string(g.index) + " (" + g.name + ")", g.has_energy,
                     g.problem, nvml_update_interval_s});
    }
  }
  return out;
}

}  // namespace ctrl::energy
