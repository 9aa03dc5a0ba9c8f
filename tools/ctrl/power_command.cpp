// ctrl power --idle [--device D]... [--seconds S] [--format table|json]
// The base (idle) power of each device's meter, all devices at once: dynamic energy is total
// energy minus base power x time (docs/energy.md). The machine must be idle meanwhile.
#include "command.hpp"
#include "loop_common.hpp"

#include <ctrl/loop/machine.hpp>

#include <ctrl/device_spec.hpp>
#include <ctrl/energy.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <exception>
#include <iostream>
#include <memory>
#include <thread>

namespace ctrl::tool {

namespace {

struct PowerArgs {
  bool idle = false;
  std::vector<std::string> devices;
  double seconds = 2.0;
  std::string format = "table";
};

struct Row {
  std::string device;
  std::string meter = "none";
  energy::BasePower result;
  std::string absent;
};

int run_power(const PowerArgs& a) {
  if (!a.idle) throw exit_error(exit_bad_input, "power: say what to measure: --idle (the base power of each device)");
  if (!(a.seconds > 0) || !std::isfinite(a.seconds))
    throw exit_error(exit_bad_input, fmt::format("--seconds {}: a positive number of seconds is needed", a.seconds));
  prefer_pci_order_for_cuda();
  std::vector<DeviceSpec> devices;
  for (const auto& d : a.devices) devices.push_back(parse_device(d));
  if (devices.empty()) {  // every CPU package (as one "cpu" device) and every GPU
    devices.push_back(cpu());
    const loop::Machine m = loop::probe_machine();
    for (const auto& g : m.gpus) devices.push_back(cuda(g.index));
  }
  std::vector<Row> rows(devices.size());
  std::vector<std::unique_ptr<energy::Meter>> meters(devices.size());
  for (std::size_t i = 0; i < devices.size(); ++i) {
    rows[i].device = devices[i].str();
    try {
      meters[i] = energy::make_meter(loop::energy_device(devices[i]));
      if (meters[i]->available()) rows[i].meter = meters[i]->info().name;
      else rows[i].absent = meters[i]->absent_reason();
    } catch (const DeviceError& e) {
      rows[i].absent = energy::no_sensor(e.what());
    }
  }
  std::vector<std::exception_ptr> errors(devices.size());
  {
    std::vector<std::jthread> threads;
    for (std::size_t i = 0; i < devices.size(); ++i) {
      if (!meters[i] || !meters[i]->available()) continue;
      threads.emplace_back([&, i] {
        try {
          rows[i].result = energy::measure_base_power(*meters[i], energy::Seconds(a.seconds));
        } catch (...) {
          errors[i] = std::current_exception();
        }
      });
    }
  }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);

  if (a.format == "json") {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    double sum = 0;
    bool any = false;
    for (const auto& r : rows) {
      nlohmann::ordered_json j{{"device", r.device}, {"meter", r.meter}};
      if (r.result.watts) {
        j["base_power_w"] = *r.result.watts;
        j["seconds"] = r.result.seconds;
        j["readings"] = r.result.samples;
        if (r.result.min_power_w) j["min_power_w"] = *r.result.min_power_w;
        if (r.result.max_power_w) j["max_power_w"] = *r.result.max_power_w;
        sum += *r.result.watts;
        any = true;
      } else {
        j["base_power_w"] = nullptr;
        j["reason"] = r.absent.empty() ? r.result.absent_reason : r.absent;
      }
      arr.push_back(j);
    }
    nlohmann::ordered_json doc{{"devices", arr}};
    doc["total_w"] = any ? nlohmann::ordered_json(sum) : nlohmann::ordered_json(nullptr);
    std::cout << doc.dump(2) << '\n';
    return exit_ok;
  }
  std::cout << fmt::format("Base (idle) power over {:g} s; keep the machine idle meanwhile\n", a.seconds);
  double sum = 0;
  bool any = false;
  for (const auto& r : rows) {
    if (r.result.watts) {
      std::string range;
      if (r.result.min_power_w && r.result.max_power_w)
        range = fmt::format(", instantaneous {:.1f}-{:.1f} W", *r.result.min_power_w, *r.result.max_power_w);
      std::cout << fmt::format("  {:<12} {:>9.2f} W   {} ({} readings over {:.2f} s{})\n", r.device, *r.result.watts,
                               r.meter, r.result.samples, r.result.seconds, range);
      sum += *r.result.watts;
      any = true;
    } else {
      std::cout << fmt::format("  {:<12} {:>9}     {}\n", r.device, "absent",
                               r.absent.empty() ? r.result.absent_reason : r.absent);
    }
  }
  if (any)
    std::cout << fmt::format("  {:<12} {:>9.2f} W   (the platform's base power for `ctrl pareto --energy total "
                             "--base-power`, over the devices with a meter)\n",
                             "total", sum);
  return exit_ok;
}

}  // namespace

void add_power(CLI::App& app, action& run) {
  auto args = std::make_shared<PowerArgs>();
  CLI::App* cmd = app.add_subcommand("power", "Base (idle) power of each device's energy meter");
  cmd->add_flag("--idle", args->idle, "Measure the base power of idle devices (the machine must be idle)");
  cmd->add_option("--device", args->devices, "A device (cpu:0-7, cuda:0); default: all CPU cores and every GPU");
  cmd->add_option("--seconds", args->seconds, "How long to sample each meter")->capture_default_str();
  cmd->add_option("--format", args->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cmd->callback([&run, args] { run = [args] { return run_power(*args); }; });
}

}  // namespace ctrl::tool
