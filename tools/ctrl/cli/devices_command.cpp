// ctrl devices [--format table|json|specs] [--groups N]
// What this machine offers as controllers: CPU cores by package and NUMA node (hwloc), GPUs with
// name, memory and compute capability, and the energy meter of each (docs/tool.md).
#include "command.hpp"
#include "loop_common.hpp"
#include "job.hpp"

#include <ctrl/loop/selection.hpp>

#include <ctrl/loop/machine.hpp>

#include <ctrl/config.hpp>
#include <ctrl/energy.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <iostream>
#include <memory>

namespace ctrl::tool {

namespace {

struct DevicesArgs {
  std::string format = "table";
  int groups = 2;
  std::string write_selection;
  double rank_timeout = 600.0;
  CpuPowerArg cpu_power;
};

struct MeterState {
  std::string name;  // "nvml:0", or "none"
  bool present = false;
  std::string reason;  // why absent
  std::string measures;
  double interval = 0;
  energy::Provenance provenance = energy::Provenance::absent;
};

MeterState meter_state(const energy::DeviceSpec& d, const energy::MeterEnvironment& env) {
  MeterState s;
  try {
    auto m = energy::make_meter(d, env);
    s.present = m->available();
    s.name = s.present ? m->info().name : "none";
    s.reason = m->absent_reason();
    s.measures = m->info().measures;
    s.interval = m->info().update_interval_s;
    s.provenance = m->info().provenance;
  } catch (const std::exception& e) {
    s.name = "none";
    s.reason = energy::no_sensor(e.what());
  }
  return s;
}

nlohmann::ordered_json meter_json(const MeterState& s) {
  nlohmann::ordered_json j{{"name", s.name}, {"present", s.present}, {"provenance", energy::to_string(s.provenance)}};
  if (s.present) {
    j["measures"] = s.measures;
    j["update_interval_s"] = s.interval;
  } else {
    j["reason"] = s.reason;
  }
  return j;
}

std::string meter_text(const MeterState& s) {
  if (s.present && s.provenance == energy::Provenance::estimated)
    return fmt::format("energy estimated: {} [{}]", s.measures, s.name);
  if (s.present) return fmt::format("meter {} ({}, updates every {:g} s)", s.name, s.measures, s.interval);
  return "meter: " + s.reason;
}

// A line of the "Energy meters" section.
std::string listing_text(const energy::MeterListing& l) {
  if (!l.present) return fmt::format("  {:<24} {}\n", l.name, l.reason);
  if (l.provenance == energy::Provenance::estimated)
    return fmt::format("  {:<24} {} (estimated)\n", l.name, l.measures);
  return fmt::format("  {:<24} {} (updates every {:g} s)\n", l.name, l.measures, l.update_interval_s);
}

std::string gib(std::uint64_t bytes) { return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1ULL << 30)); }

// `--write-selection FILE`: a selection for this machine, or under mpirun for every rank's (each
// rank probes its own machine; rank 0 writes the file).
int write_selection(const DevicesArgs& a, const loop::Machine& m, Job& job) {
  nlohmann::json me{{"host", loop::this_host()}, {"usable", m.usable}};
  std::vector<int> gpus;
  for (const auto& g : m.gpus) gpus.push_back(g.index);
  me["gpus"] = gpus;
  loop::ProcessGroup& group = job.launcher_group(a.rank_timeout);
  const auto all = group.allgather(me.dump(), "gathering every rank's machine");
  if (!group.is_root()) return exit_ok;
  std::vector<loop::RankMachine> ranks;
  for (std::size_t r = 0; r < all.size(); ++r) {
    const auto j = nlohmann::json::parse(all[r]);
    loop::RankMachine rm;
    rm.rank = static_cast<int>(r);
    rm.host = j.at("host").get<std::string>();
    rm.machine.usable = j.at("usable").get<std::vector<int>>();
    for (const int g : j.at("gpus").get<std::vector<int>>()) {
      loop::GpuInfo gpu;
      gpu.index = g;
      rm.machine.gpus.push_back(gpu);
    }
    ranks.push_back(std::move(rm));
  }
  const loop::Selection sel = loop::suggest_selection(ranks, a.groups);
  loop::write_selection(a.write_selection, sel);
  std::cout << "wrote " << a.write_selection << " (" << all.size() << (all.size() == 1 ? " rank" : " ranks") << "):\n"
            << sel.text();
  return exit_ok;
}

int run_devices(const DevicesArgs& a, Job& job) {
  prefer_pci_order_for_cuda();
  energy::MeterEnvironment env;
  a.cpu_power.apply(env);
  loop::Machine m = loop::probe_machine();
  if (!a.write_selection.empty()) return write_selection(a, m, job);
  m.meters = energy::list_meters(env);  // with the rating given, if any
  std::vector<MeterState> pkg_meters, gpu_meters;
  for (const auto& p : m.packages) {
    auto spec = energy::DeviceSpec::cpu({p.id}, true, p.cores);
    spec.label = fmt::format("package-{}", p.id);
    pkg_meters.push_back(meter_state(spec, env));
  }
  for (const auto& g : m.gpus)
    gpu_meters.push_back(meter_state(energy::DeviceSpec::nvidia(static_cast<unsigned>(g.index), g.pci_bus_id), env));
  const auto suggested = loop::suggested_processors(m, a.groups);
  std::string kinds = "cpu, offload";
  if (m.cuda_backend) kinds += ", cuda";

  if (a.format == "specs") {
    std::string line;
    for (const auto& s : suggested) line += (line.empty() ? "" : " ") + s.str();
    std::cout << line << '\n';
    return exit_ok;
  }
  if (a.format == "json") {
    nlohmann::ordered_json cpu{{"model", m.cpu_model},
                               {"cores", format_cores(m.cores)},
                               {"usable", format_cores(m.usable)},
                               {"logical_cores", m.cores.size()},
                               {"physical_cores", m.physical_cores}};
    nlohmann::ordered_json pk = nlohmann::ordered_json::array(), nn = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < m.packages.size(); ++i)
      pk.push_back({{"package", m.packages[i].id},
                    {"cores", format_cores(m.packages[i].cores)},
                    {"meter", meter_json(pkg_meters[i])}});
    for (const auto& n : m.numa_nodes) nn.push_back({{"node", n.id}, {"cores", format_cores(n.cores)}});
    cpu["packages"] = pk;
    cpu["numa_nodes"] = nn;
    nlohmann::ordered_json gpus = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < m.gpus.size(); ++i) {
      const auto& g = m.gpus[i];
      gpus.push_back({{"device", cuda(g.index).str()},
                      {"name", g.name},
                      {"memory_bytes", g.memory_bytes},
                      {"compute_capability", fmt::format("{}.{}", g.cc_major, g.cc_minor)},
                      {"multiprocessors", g.multiprocessors},
                      {"pci_bus_id", g.pci_bus_id},
                      {"meter", meter_json(gpu_meters[i])}});
    }
    nlohmann::ordered_json meters = nlohmann::ordered_json::array();
    for (const auto& l : m.meters) {
      nlohmann::ordered_json j{
          {"name", l.name},
          {"measures", l.measures},
          {"present", l.present},
          {"provenance", energy::to_string(l.present ? l.provenance : energy::Provenance::absent)}};
      if (l.present)
        j["update_interval_s"] = l.update_interval_s;
      else
        j["reason"] = l.reason;
      meters.push_back(j);
    }
    nlohmann::ordered_json sug = nlohmann::ordered_json::array();
    for (const auto& s : suggested) sug.push_back(s.str());
    nlohmann::ordered_json doc{{"version", CTRL_VERSION_STRING}, {"kinds", kinds}, {"cpu", cpu}, {"gpus", gpus}};
    if (m.gpus.empty()) doc["gpu_note"] = m.gpu_note;
    doc["meters"] = meters;
    doc["suggested"] = sug;
    std::cout << doc.dump(2) << '\n';
    return exit_ok;
  }

  std::cout << fmt::format("ctrl {} — device kinds in this build: {}\n\n", CTRL_VERSION_STRING, kinds);
  std::cout << fmt::format("CPU  {}: {} logical core{} ({}), {} physical; usable by this process: {}\n", m.cpu_model,
                           m.cores.size(), m.cores.size() == 1 ? "" : "s", format_cores(m.cores), m.physical_cores,
                           format_cores(m.usable));
  for (std::size_t i = 0; i < m.packages.size(); ++i)
    std::cout << fmt::format("  package {}: cores {}   {}\n", m.packages[i].id, format_cores(m.packages[i].cores),
                             meter_text(pkg_meters[i]));
  for (const auto& n : m.numa_nodes)
    std::cout << fmt::format("  NUMA node {}: cores {}\n", n.id, format_cores(n.cores));
  std::cout << "  controllers: cpu:<cores>, e.g. cpu:" << format_cores(m.usable) << " (one pinned worker per core)\n\n";
  if (m.gpus.empty()) {
    std::cout << "GPU  none: " << m.gpu_note << "\n\n";
  } else {
    for (std::size_t i = 0; i < m.gpus.size(); ++i) {
      const auto& g = m.gpus[i];
      std::cout << fmt::format("GPU  {}  {}, {}, compute capability {}.{}, {} multiprocessors{}\n", cuda(g.index).str(),
                               g.name, gib(g.memory_bytes), g.cc_major, g.cc_minor, g.multiprocessors,
                               g.pci_bus_id.empty() ? "" : ", PCI " + g.pci_bus_id);
      std::cout << "  " << meter_text(gpu_meters[i]) << '\n';
    }
    std::cout << '\n';
  }
  std::cout << "Energy meters\n";
  for (const auto& l : m.meters) std::cout << listing_text(l);
  std::string line;
  for (const auto& s : suggested) line += (line.empty() ? "" : " ") + s.str();
  std::cout << "\nProcessors to profile (" << a.groups << " CPU group" << (a.groups == 1 ? "" : "s")
            << (m.gpus.empty() ? "" : " and every GPU") << "): " << line << '\n';
  return exit_ok;
}

}  // namespace

void add_devices(CLI::App& app, action& run, Job& job) {
  auto args = std::make_shared<DevicesArgs>();
  CLI::App* cmd =
      app.add_subcommand("devices", "What this machine offers as controllers, and the energy meter of each");
  cmd->add_option("--format", args->format,
                  "table (for a terminal), json, or specs (the suggested processors on one line)")
      ->check(CLI::IsMember({"table", "json", "specs"}))
      ->capture_default_str();
  cmd->add_option("--groups", args->groups, "How many CPU groups the suggested processors split the cores into")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--write-selection", args->write_selection,
                  "Write a device-selection file for `ctrl profile|run --selection` (under mpirun: every rank's "
                  "devices, each rank's share of its host)");
  cmd->add_option("--rank-timeout", args->rank_timeout, "Under mpirun: the longest wait for another rank, s")
      ->capture_default_str();
  args->cpu_power.add_to(cmd);
  cmd->callback([&run, &job, args] { run = [args, &job] { return run_devices(*args, job); }; });
}

}  // namespace ctrl::tool
