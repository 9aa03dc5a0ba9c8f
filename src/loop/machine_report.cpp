// describe_machine: what `ctrl devices` shows, as one library call (machine.hpp).
#include <ctrl/errors.hpp>
#include <ctrl/loop/machine.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ctrl::loop {

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

MachineReport describe_machine(const MachineRequest& r) {
  if (r.groups < 1 || r.groups > 1024)
    throw UsageError(fmt::format("{} CPU groups: the suggested processors take 1 to 1024", r.groups));
  MachineReport report;
  report.groups = r.groups;
  report.machine = probe_machine();
  Machine& m = report.machine;
  m.meters = energy::list_meters(r.env);  // with the rating given, if any
  for (const auto& p : m.packages) {
    auto spec = energy::DeviceSpec::cpu({p.id}, true, p.cores);
    spec.label = fmt::format("package-{}", p.id);
    report.package_meters.push_back(meter_state(spec, r.env));
  }
  for (const auto& g : m.gpus)
    report.gpu_meters.push_back(
        meter_state(energy::DeviceSpec::nvidia(static_cast<unsigned>(g.index), g.pci_bus_id), r.env));
  report.suggested = suggested_processors(m, r.groups);
  report.kinds = m.cuda_backend ? "cpu, offload, cuda" : "cpu, offload";
  return report;
}

namespace {

using json = nlohmann::ordered_json;

json meter_json(const MeterState& s) {
  json j{{"name", s.name}, {"present", s.present}, {"provenance", energy::to_string(s.provenance)}};
  if (s.present) {
    j["measures"] = s.measures;
    j["update_interval_s"] = s.interval;
  } else {
    j["reason"] = s.reason;
  }
  return j;
}

json cpu_json(const MachineReport& r) {
  const Machine& m = r.machine;
  json cpu{{"model", m.cpu_model},
           {"cores", format_cores(m.cores)},
           {"usable", format_cores(m.usable)},
           {"logical_cores", m.cores.size()},
           {"physical_cores", m.physical_cores}};
  json packages = json::array(), nodes = json::array();
  for (std::size_t i = 0; i < m.packages.size(); ++i)
    packages.push_back({{"package", m.packages[i].id},
                        {"cores", format_cores(m.packages[i].cores)},
                        {"meter", meter_json(r.package_meters.at(i))}});
  for (const auto& n : m.numa_nodes) nodes.push_back({{"node", n.id}, {"cores", format_cores(n.cores)}});
  cpu["packages"] = packages;
  cpu["numa_nodes"] = nodes;
  return cpu;
}

json gpus_json(const MachineReport& r) {
  json gpus = json::array();
  for (std::size_t i = 0; i < r.machine.gpus.size(); ++i) {
    const auto& g = r.machine.gpus[i];
    gpus.push_back({{"device", cuda(g.index).str()},
                    {"name", g.name},
                    {"memory_bytes", g.memory_bytes},
                    {"compute_capability", fmt::format("{}.{}", g.cc_major, g.cc_minor)},
                    {"multiprocessors", g.multiprocessors},
                    {"pci_bus_id", g.pci_bus_id},
                    {"meter", meter_json(r.gpu_meters.at(i))}});
  }
  return gpus;
}

json meters_json(const Machine& m) {
  json meters = json::array();
  for (const auto& l : m.meters) {
    json j{{"name", l.name},
           {"measures", l.measures},
           {"present", l.present},
           {"provenance", energy::to_string(l.present ? l.provenance : energy::Provenance::absent)}};
    if (l.present)
      j["update_interval_s"] = l.update_interval_s;
    else
      j["reason"] = l.reason;
    meters.push_back(j);
  }
  return meters;
}

}  // namespace

std::string machine_report_json(const MachineReport& r) {
  json doc{{"version", CTRL_VERSION_STRING}, {"kinds", r.kinds}, {"cpu", cpu_json(r)}, {"gpus", gpus_json(r)}};
  if (r.machine.gpus.empty()) doc["gpu_note"] = r.machine.gpu_note;
  doc["meters"] = meters_json(r.machine);
  json suggested = json::array();
  for (const auto& s : r.suggested) suggested.push_back(s.str());
  doc["suggested"] = suggested;
  return doc.dump(2) + "\n";
}

}  // namespace ctrl::loop
