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
#include <ostream>

namespace ctrl::tool {

namespace {

struct DevicesArgs {
  std::string format = "table";
  int groups = 2;
  std::string write_selection;
  double rank_timeout = 600.0;
  CpuPowerArg cpu_power;
};

std::string meter_text(const loop::MeterState& s) {
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

// The suggested processors on one line, as --device takes them.
std::string specs_line(const loop::MachineReport& r) {
  std::string line;
  for (const auto& s : r.suggested) line += (line.empty() ? "" : " ") + s.str();
  return line;
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

// The table: the CPU's cores by package and NUMA node, each GPU, every meter, the processors to
// profile and what to do next.
void write_table(std::ostream& out, const loop::MachineReport& r) {
  const loop::Machine& m = r.machine;
  out << fmt::format("ctrl {} — device kinds in this build: {}\n\n", CTRL_VERSION_STRING, r.kinds);
  out << fmt::format("CPU  {}: {} logical core{} ({}), {} physical; usable by this process: {}\n", m.cpu_model,
                     m.cores.size(), m.cores.size() == 1 ? "" : "s", format_cores(m.cores), m.physical_cores,
                     format_cores(m.usable));
  for (std::size_t i = 0; i < m.packages.size(); ++i)
    out << fmt::format("  package {}: cores {}   {}\n", m.packages[i].id, format_cores(m.packages[i].cores),
                       meter_text(r.package_meters[i]));
  for (const auto& n : m.numa_nodes) out << fmt::format("  NUMA node {}: cores {}\n", n.id, format_cores(n.cores));
  out << "  controllers: cpu:<cores>, e.g. cpu:" << format_cores(m.usable) << " (one pinned worker per core)\n\n";
  if (m.gpus.empty()) out << "GPU  none: " << m.gpu_note << "\n\n";
  for (std::size_t i = 0; i < m.gpus.size(); ++i) {
    const auto& g = m.gpus[i];
    out << fmt::format("GPU  {}  {}, {}, compute capability {}.{}, {} multiprocessors{}\n", cuda(g.index).str(), g.name,
                       gib(g.memory_bytes), g.cc_major, g.cc_minor, g.multiprocessors,
                       g.pci_bus_id.empty() ? "" : ", PCI " + g.pci_bus_id);
    out << "  " << meter_text(r.gpu_meters[i]) << (i + 1 == m.gpus.size() ? "\n\n" : "\n");
  }
  out << "Energy meters\n";
  for (const auto& l : m.meters) out << listing_text(l);
  out << "\nProcessors to profile (" << r.groups << " CPU group" << (r.groups == 1 ? "" : "s")
      << (m.gpus.empty() ? "" : " and every GPU") << "): " << specs_line(r) << '\n';
  out << "next: ctrl profile matadd   (profiles these processors; `ctrl profile --help` lists the applications)\n";
}

int run_devices(const DevicesArgs& a, Job& job) {
  prefer_pci_order_for_cuda();
  loop::MachineRequest request;
  request.groups = a.groups;
  a.cpu_power.apply(request.env);
  if (!a.write_selection.empty()) return write_selection(a, loop::probe_machine(), job);
  const loop::MachineReport report = loop::describe_machine(request);
  if (a.format == "specs")
    std::cout << specs_line(report) << '\n';
  else if (a.format == "json")
    std::cout << loop::machine_report_json(report);
  else
    write_table(std::cout, report);
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
                  "devices, each rank's share of its host)")
      ->check(file_name);
  cmd->add_option("--rank-timeout", args->rank_timeout, "Under mpirun: the longest wait for another rank, s")
      ->capture_default_str();
  args->cpu_power.add_to(cmd);
  cmd->callback([&run, &job, args] { run = [args, &job] { return run_devices(*args, job); }; });
}

}  // namespace ctrl::tool
