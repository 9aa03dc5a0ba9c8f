// ctrl power (--idle | --check) [--device D]... [--seconds S] [--interval-ms MS] [--cpu-power W]
//            [--format table|json]
// --idle: the base (idle) power of each device's meter, all devices at once: dynamic energy is
// total energy minus base power x time (docs/energy.md). The machine must be idle meanwhile.
// --check: each meter's energy counter against its own power readings integrated over the same
// window (energy/counter_check.hpp), idle or under a load the user runs meanwhile.
#include "command.hpp"
#include "loop_common.hpp"
#include "power_check.hpp"

#include <ctrl/loop/machine.hpp>

#include <ctrl/detail/start_threads.hpp>
#include <ctrl/device_spec.hpp>
#include <ctrl/energy.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <exception>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

namespace ctrl::tool {

namespace {

struct PowerArgs {
  bool idle = false;
  bool check = false;
  std::vector<std::string> devices;
  std::optional<double> seconds;  // default: 2 s idle, 10 s for a check (NVML's 0.1 s counter: 2 %)
  double interval_ms = 10;
  std::string format = "table";
  CpuPowerArg cpu_power;
};

// One device and its meter (null with `absent` set when it has none).
struct DeviceMeter {
  std::string device;
  std::unique_ptr<energy::Meter> meter;
  std::string absent;
};

std::vector<DeviceMeter> open_meters(const PowerArgs& a) {
  energy::MeterEnvironment env;
  a.cpu_power.apply(env);
  std::vector<DeviceSpec> devices;
  for (const auto& d : a.devices) {
    devices.push_back(parse_device(d));
    // Cores this machine lacks, or that this process may not use, are bad input, as for a
    // controller (exit 2), not a device without a sensor.
    if (!devices.back().cores.empty() || devices.back().count > 0) (void)cores_of(devices.back());
  }
  if (devices.empty()) {  // every CPU core (as one "cpu" device) and every GPU
    devices.push_back(cpu());
    const loop::Machine m = loop::probe_machine();
    for (const auto& g : m.gpus) devices.push_back(cuda(g.index));
  }
  std::vector<DeviceMeter> out(devices.size());
  for (std::size_t i = 0; i < devices.size(); ++i) {
    out[i].device = devices[i].str();
    try {
      out[i].meter = energy::make_meter(loop::energy_device(devices[i]), env);
      if (!out[i].meter->available()) out[i].absent = out[i].meter->absent_reason();
    } catch (const DeviceError& e) {
      out[i].absent = energy::no_sensor(e.what());
    }
    if (!out[i].absent.empty()) out[i].meter.reset();
  }
  return out;
}

// Runs `work(i, meter)` for every device with a meter, all at once (one window for all).
void on_every_meter(std::vector<DeviceMeter>& meters, const std::function<void(std::size_t, energy::Meter&)>& work) {
  std::vector<std::exception_ptr> errors(meters.size());
  {
    std::vector<std::size_t> metered;
    for (std::size_t i = 0; i < meters.size(); ++i)
      if (meters[i].meter) metered.push_back(i);
    std::vector<std::jthread> threads;
    ctrl::detail::start_threads(
        threads, metered.size(),
        [&](std::size_t k) {
          return [&, i = metered[k]] {
            try {
              work(i, *meters[i].meter);
            } catch (...) {
              errors[i] = std::current_exception();
            }
          };
        },
        "a reader of the devices' meters");
  }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

struct IdleRow {
  std::string device;
  std::string meter = "none";
  energy::Provenance provenance = energy::Provenance::absent;
  energy::BasePower result;
  std::string absent;
  std::string reason() const { return absent.empty() ? result.absent_reason : absent; }
};

void write_idle_json(const std::vector<IdleRow>& rows) {
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  double sum = 0;
  bool any = false;
  for (const auto& r : rows) {
    nlohmann::ordered_json j{{"device", r.device}, {"meter", r.meter}, {"provenance", energy::to_string(r.provenance)}};
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
      j["reason"] = r.reason();
    }
    arr.push_back(j);
  }
  nlohmann::ordered_json doc{{"devices", arr}};
  doc["total_w"] = any ? nlohmann::ordered_json(sum) : nlohmann::ordered_json(nullptr);
  std::cout << doc.dump(2) << '\n';
}

void write_idle_table(const std::vector<IdleRow>& rows, double seconds) {
  std::cout << fmt::format("Base (idle) power over {:g} s; keep the machine idle meanwhile\n", seconds);
  double sum = 0;
  bool any = false;
  for (const auto& r : rows) {
    if (!r.result.watts) {
      std::cout << fmt::format("  {:<12} {:>9}     {}\n", r.device, "absent", r.reason());
      continue;
    }
    std::string range;
    if (r.result.min_power_w && r.result.max_power_w)
      range = fmt::format(", instantaneous {:.1f}-{:.1f} W", *r.result.min_power_w, *r.result.max_power_w);
    const bool estimated = r.provenance == energy::Provenance::estimated;
    std::cout << fmt::format("  {:<12} {:>9.2f} W   {}{} ({} readings over {:.2f} s{})\n", r.device, *r.result.watts,
                             r.meter, estimated ? ", estimated" : "", r.result.samples, r.result.seconds, range);
    sum += *r.result.watts;
    any = true;
  }
  if (any)
    std::cout << fmt::format(
        "  {:<12} {:>9.2f} W   (the platform's base power for `ctrl pareto --energy total "
        "--base-power`, over the devices with a meter)\n",
        "total", sum);
}

int run_idle(std::vector<DeviceMeter>& meters, double seconds, const std::string& format) {
  std::vector<IdleRow> rows(meters.size());
  for (std::size_t i = 0; i < meters.size(); ++i) {
    rows[i].device = meters[i].device;
    rows[i].absent = meters[i].absent;
    if (meters[i].meter) {
      rows[i].meter = meters[i].meter->info().name;
      rows[i].provenance = meters[i].meter->info().provenance;
    }
  }
  on_every_meter(meters, [&](std::size_t i, energy::Meter& m) {
    rows[i].result = energy::measure_base_power(m, energy::Seconds(seconds));
  });
  if (format == "json")
    write_idle_json(rows);
  else
    write_idle_table(rows, seconds);
  return exit_ok;
}

int run_check(std::vector<DeviceMeter>& meters, double seconds, double interval_s, const std::string& format) {
  std::vector<CheckedDevice> rows(meters.size());
  for (std::size_t i = 0; i < meters.size(); ++i) {
    rows[i].device = meters[i].device;
    rows[i].absent = meters[i].absent;
  }
  on_every_meter(meters, [&](std::size_t i, energy::Meter& m) {
    rows[i].check = energy::check_counter(m, energy::Seconds(seconds), energy::Seconds(interval_s));
  });
  if (format == "json")
    std::cout << check_json(rows, seconds, interval_s);
  else
    write_check_table(std::cout, rows, seconds, interval_s);
  return exit_ok;
}

int run_power(const PowerArgs& a) {
  if (a.idle == a.check)
    throw exit_error(exit_bad_input,
                     "power: say what to measure: --idle (the base power of each device) or --check "
                     "(each energy counter against its integrated power readings)");
  const double seconds = a.seconds.value_or(a.idle ? 2.0 : 10.0);
  if (!(seconds > 0) || !std::isfinite(seconds))
    throw exit_error(exit_bad_input, fmt::format("--seconds {}: a positive number of seconds is needed", seconds));
  if (!(a.interval_ms > 0) || !std::isfinite(a.interval_ms))
    throw exit_error(exit_bad_input,
                     fmt::format("--interval-ms {}: a positive number of milliseconds is needed", a.interval_ms));
  prefer_pci_order_for_cuda();
  std::vector<DeviceMeter> meters = open_meters(a);
  return a.idle ? run_idle(meters, seconds, a.format) : run_check(meters, seconds, a.interval_ms * 1e-3, a.format);
}

}  // namespace

void add_power(CLI::App& app, action& run) {
  auto args = std::make_shared<PowerArgs>();
  CLI::App* cmd = app.add_subcommand(
      "power", "Base (idle) power of each device's energy meter, or a check of its counter against its power readings");
  cmd->add_flag("--idle", args->idle, "Measure the base power of idle devices (the machine must be idle)");
  cmd->add_flag("--check", args->check,
                "Compare each meter's energy counter with its power readings integrated over the same window (run a "
                "load meanwhile for the informative case)");
  cmd->add_option("--device", args->devices, "A device (cpu:0-7, cuda:0); default: all CPU cores and every GPU");
  cmd->add_option_function<double>(
      "--seconds", [args](const double& s) { args->seconds = s; },
      "How long to sample each meter (default: 2 for --idle, 10 for --check)");
  cmd->add_option("--interval-ms", args->interval_ms,
                  "--check: read power this often, ms (a read takes what the sensor takes: NVML about 4 ms)")
      ->capture_default_str();
  args->cpu_power.add_to(cmd);
  cmd->add_option("--format", args->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cmd->callback([&run, args] { run = [args] { return run_power(*args); }; });
}

}  // namespace ctrl::tool
