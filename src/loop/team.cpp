#include <ctrl/loop/team.hpp>

#include <ctrl/detail/start_threads.hpp>
#include <ctrl/loop/machine.hpp>

#include "core_share.hpp"

#include <fmt/format.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <latch>
#include <set>
#include <thread>

namespace ctrl::loop {

namespace {

using Clock = energy::Clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Counters that change this seldom are read until they change (see team.hpp).
constexpr double align_threshold_s = 0.01;

using Reading = detail::MeterReading;

Reading read_meter(energy::Meter& meter, Clock& clock) {
  const auto a = clock.now();
  const auto e = meter.energy_j();
  const auto b = clock.now();
  if (!e) throw DeviceError(fmt::format("meter {} stopped answering", meter.info().name));
  return {a + (b - a) / 2, *e};
}

// Whether a meter is a hardware counter refreshed every update interval, whose readings are worth
// aligning to its updates. An estimate's busy time steps on each core's own clock tick, so waiting
// for the sum to move aligns nothing (and would spin while its cores idle).
bool aligns(const energy::MeterInfo& info) {
  return info.update_interval_s >= align_threshold_s && info.provenance == energy::Provenance::measured;
}

// Reads until the counter moves: the reading is then fresh to within one read's duration.
Reading read_aligned(energy::Meter& meter, Clock& clock) {
  const double interval = meter.info().update_interval_s;
  Reading first = read_meter(meter, clock);
  if (!aligns(meter.info())) return first;
  const auto deadline =
      first.t + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(3 * interval + 0.05));
  for (;;) {
    Reading r = read_meter(meter, clock);
    if (r.joules != first.joules || r.t > deadline) return r;
  }
}

// The dynamic energy of a device between two readings during which it was active (working, or
// held after its work) for `active_s`: the energy above its base power, less its held power over
// the rest of the window. That rest exists only because the counter is read when it updates (a
// coarse counter's read waits up to one update before the start and after the end, and the
// device idles there, held): at a few executions a round it would otherwise add held x wait per
// execution that no prediction has (docs/energy.md, "Held power").
double dynamic_over(const Reading& a, const Reading& b, double base, double held, double active_s) {
  const double window = seconds_between(a.t, b.t);
  return b.joules - a.joules - base * window - held * std::max(0.0, window - active_s);
}

}  // namespace

// Restricts the calling thread to these cores (no-op for an empty list).
void pin_to(const std::vector<int>& cores) {
  if (cores.empty()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (const int c : cores)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

struct Team::Member {
  ProcessorInfo info;
  std::vector<int> driver_cores;  // where this processor's driver thread runs
  std::unique_ptr<Controller> controller;
  std::shared_ptr<energy::Meter> meter;  // null when the processor has no energy of its own
};

namespace {

// The processor of a CPU package set that another processor's RAPL meter also covers, or "".
std::string package_shared_with(const std::vector<energy::DeviceSpec>& edev, std::size_t i,
                                const std::vector<std::string>& names) {
  if (edev[i].kind != energy::DeviceKind::cpu_packages) return {};
  for (std::size_t j = 0; j < edev.size(); ++j) {
    if (j == i || edev[j].kind != energy::DeviceKind::cpu_packages) continue;
    for (const int p : edev[i].packages)
      if (std::find(edev[j].packages.begin(), edev[j].packages.end(), p) != edev[j].packages.end()) return names[j];
  }
  return {};
}

void attach(ProcessorInfo& info, std::shared_ptr<energy::Meter>& slot, std::unique_ptr<energy::Meter> meter) {
  info.energy_source = meter->info().name;
  info.energy_provenance = meter->info().provenance;
  info.energy_measures = meter->info().measures;
  info.update_interval_s = meter->info().update_interval_s;
  slot = std::shared_ptr<energy::Meter>(std::move(meter));
}

}  // namespace

std::vector<int> spec_cores(const DeviceSpec& spec) {
  // An accelerator's spec names no cores: every usable core.
  return spec.cores.empty() && spec.count == 0 ? cores_of(cpu()) : cores_of(spec);
}

Team::Team(const std::vector<DeviceSpec>& devices, TeamOptions options) : options_(options) {
  if (devices.empty()) throw UsageError("no processors: name at least one device (--device cpu:0-3, --device cuda:0)");
  // Distinct devices, and no core in two CPU groups: two controllers pinned to one core would
  // measure each other, not the machine.
  std::set<std::string> names;
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (const auto& d : devices) {
    if (!names.insert(d.str()).second) throw UsageError(fmt::format("device {} is named twice", d.str()));
    if (d.on_cores()) {
      auto cores = spec_cores(d);
      for (const auto& [other, theirs] : groups)
        for (const int c : cores)
          if (std::find(theirs.begin(), theirs.end(), c) != theirs.end())
            throw UsageError(fmt::format("devices {} and {} share core {}: every processor needs cores of its own",
                                         other, d.str(), c));
      groups.emplace_back(d.str(), std::move(cores));
    }
  }
  for (const auto& d : devices) {
    auto m = std::make_unique<Member>();
    m->info.spec = d;
    m->info.name = d.str();
    m->controller = std::make_unique<Controller>(d);
    m->info.description = m->controller->description();
    members_.push_back(std::move(m));
  }
  // Driver threads: a CPU group's on its own cores (it mostly waits, and must not disturb another
  // group); an accelerator's on the cores no CPU group uses (its host core, in the paper's
  // terms), when there are any.
  {
    std::vector<int> spare = spec_cores(cpu());
    for (const auto& [name, cores] : groups)
      for (const int c : cores) spare.erase(std::remove(spare.begin(), spare.end(), c), spare.end());
    std::size_t k = 0;
    for (auto& m : members_) {
      const auto& d = m->info.spec;
      if (d.on_cores())
        m->driver_cores = spec_cores(d);
      else if (!spare.empty())
        m->driver_cores = {spare[k++ % spare.size()]};
    }
  }
  if (!options_.energy) {
    for (auto& m : members_) m->info.energy_absent = "energy not measured (--no-energy)";
    return;
  }
  attach_meters();
}

void Team::attach_meters() {
  // Meters, and which processors share one (RAPL packages shared by two CPU groups).
  std::vector<energy::DeviceSpec> edev;
  std::vector<std::string> processor_names;
  for (auto& m : members_) {
    edev.push_back(energy_device(m->info.spec));
    processor_names.push_back(m->info.name);
  }
  for (std::size_t i = 0; i < members_.size(); ++i) {
    auto& m = *members_[i];
    std::unique_ptr<energy::Meter> meter;
    try {
      meter = options_.make_meter ? options_.make_meter(edev[i]) : energy::make_meter(edev[i], options_.meters);
      // A package counter that another processor's also covers cannot tell the two apart: an
      // estimate of the processor's own cores, where one exists, is what is left.
      const std::string shared = meter->available() && meter->info().provenance == energy::Provenance::measured
                                     ? package_shared_with(edev, i, processor_names)
                                     : std::string();
      if (!shared.empty())
        meter = energy::make_cpu_estimate(
            edev[i], options_.meters,
            fmt::format("{} also measures {}: the package energy of the two cannot be told apart", meter->info().name,
                        shared));
    } catch (const DeviceError& e) {
      m.info.energy_absent = energy::no_sensor(e.what());
      continue;
    }
    if (!meter->available()) {
      m.info.energy_absent = meter->absent_reason();
      continue;
    }
    attach(m.info, m.meter, std::move(meter));
  }
}

Team::~Team() = default;

std::size_t Team::size() const { return members_.size(); }
const ProcessorInfo& Team::info(std::size_t i) const { return members_.at(i)->info; }
Controller& Team::controller(std::size_t i) { return *members_.at(i)->controller; }

void mark_energy_absent(ProcessorInfo& info, std::string reason) {
  info.energy_source = "none";
  info.energy_absent = std::move(reason);
  info.energy_provenance = energy::Provenance::absent;
  info.energy_measures.clear();
  info.update_interval_s = 0;
  info.base_power_w.reset();
}

void Team::drop_meter(std::size_t i, std::string reason) {
  auto& m = *members_.at(i);
  m.meter.reset();
  mark_energy_absent(m.info, std::move(reason));
}

double Team::min_window_s() const {
  if (options_.min_window_s >= 0) return any_energy() ? options_.min_window_s : 0.0;  // Platform::any_energy
  double w = 0;
  for (const auto& m : members_) {
    if (!m->meter) continue;
    const double dt = m->info.update_interval_s;
    // An aligned window (coarse counters) has end errors of one read, not one update: five
    // updates are plenty. Fine counters and estimates: the 5 % rule of docs/energy.md.
    w = std::max(w, aligns(m->meter->info()) ? 5 * dt : energy::min_window_s(dt, 0.05));
  }
  return w;
}

int runs_to_fill(double round_s, double run_s) {
  if (round_s <= 0 || run_s >= round_s) return 1;
  if (!(run_s > 0)) return 1000;
  return static_cast<int>(std::clamp(std::ceil(round_s / run_s), 1.0, 100000.0));
}

int Team::batch_for(double run_s) const { return runs_to_fill(round_seconds(), run_s); }

void Team::set_base_power(std::size_t i, double watts, std::string origin) {
  auto& info = members_.at(i)->info;
  info.base_power_w = watts;
  info.base_power_origin = std::move(origin);
}

std::vector<std::optional<Team::IdlePower>> Team::idle_power(const std::vector<std::size_t>& which, double seconds) {
  // Like energy::measure_base_power, but from counter readings aligned to the counter's updates
  // (see read_aligned): with NVML's 0.1 s counter, plain readings over 2 s could be 5 % off.
  std::vector<Reading> r0(which.size()), r1(which.size());
  std::vector<std::exception_ptr> errors(which.size());
  {
    std::vector<std::jthread> threads;
    ctrl::detail::start_threads(
        threads, which.size(),
        [&](std::size_t k) {
          return [&, k] {
            try {
              auto& meter = *members_[which[k]]->meter;
              r0[k] = read_aligned(meter, clock());
              clock().sleep_for(std::chrono::duration<double>(seconds));
              r1[k] = read_aligned(meter, clock());
            } catch (...) {
              errors[k] = std::current_exception();
            }
          };
        },
        "a reader of the idle meters");
  }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  std::vector<std::optional<IdlePower>> out(which.size());
  for (std::size_t k = 0; k < which.size(); ++k) {
    const double dt = seconds_between(r0[k].t, r1[k].t);
    if (dt > 0) out[k] = IdlePower{(r1[k].joules - r0[k].joules) / dt, dt};
  }
  return out;
}

namespace {

// A CPU estimate charges busy time only (whoever's: /proc/stat cannot tell), so its base power is
// 0 W: what its cores drew while this process was idle was other work, and measured against it
// every dynamic energy of a busy machine came out near zero or negative. The window still says
// whether another job shares the cores, which the processor's times are then measured beside.
// nullopt for other meters; else the note on the window, "" when the cores were quiet.
std::optional<std::string> estimate_idle(const ProcessorInfo& info, const energy::MeterInfo& meter, double watts,
                                         double seconds) {
  constexpr double most_busy = 0.10;  // of the cores' full power: background noise stays well below
  if (meter.provenance != energy::Provenance::estimated || meter.full_power_w <= 0) return std::nullopt;
  const double busy = watts / meter.full_power_w;
  if (busy <= most_busy) return std::string();
  return fmt::format(
      "{}: its cores were {:.0f} % busy with other work while this process was idle ({:.2f} s, {:.2f} W of the "
      "estimate's {:.2f} W): another job shares them, and its times and energies are measured beside it",
      info.name, 100 * busy, seconds, watts, meter.full_power_w);
}

}  // namespace

std::vector<std::string> Team::measure_base_power(double seconds) {
  std::vector<std::string> lines;
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < members_.size(); ++i)
    if (members_[i]->meter && !members_[i]->info.base_power_w) todo.push_back(i);
  if (todo.empty() || seconds <= 0) return lines;
  const auto idle = idle_power(todo, seconds);
  for (std::size_t k = 0; k < todo.size(); ++k) {
    if (!idle[k]) continue;
    auto& info = members_[todo[k]]->info;
    if (auto note = estimate_idle(info, members_[todo[k]]->meter->info(), idle[k]->watts, idle[k]->seconds)) {
      info.base_power_w = 0.0;
      info.base_power_origin = "the estimate charges busy time only";
      lines.push_back(note->empty() ? fmt::format("{}: base power 0 W (the estimate charges busy time only)", info.name)
                                    : *note);
      continue;
    }
    info.base_power_w = idle[k]->watts;
    info.base_power_origin = fmt::format("measured idle for {:.2f} s", idle[k]->seconds);
    lines.push_back(fmt::format("{}: base power {:.2f} W ({}, idle for {:.2f} s after a warm-up run)", info.name,
                                idle[k]->watts, info.energy_source, idle[k]->seconds));
  }
  return lines;
}

void Team::set_held_power(std::size_t i, double watts, std::string origin) {
  auto& info = members_.at(i)->info;
  info.held_power_w = watts;
  info.held_power_origin = std::move(origin);
}

std::vector<std::string> Team::measure_held_power(double seconds) {
  std::vector<std::string> lines;
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < members_.size(); ++i)
    if (members_[i]->meter && members_[i]->info.base_power_w) todo.push_back(i);
  if (todo.empty() || seconds <= 0) return lines;
  const auto idle = idle_power(todo, seconds);
  for (std::size_t k = 0; k < todo.size(); ++k) {
    if (!idle[k]) continue;
    auto& info = members_[todo[k]]->info;
    const double held = idle[k]->watts - *info.base_power_w;
    info.held_power_w = held;
    info.held_power_origin = fmt::format("measured idle for {:.2f} s right after a round", idle[k]->seconds);
    lines.push_back(fmt::format("{}: held power {:+.2f} W above base ({:.2f} W for {:.2f} s right after a round)",
                                info.name, held, idle[k]->watts, idle[k]->seconds));
  }
  return lines;
}

double Team::round_seconds() const { return std::max(min_window_s(), options_.min_round_s); }

RoundResult Team::run(Problem& problem, const std::vector<Block>& blocks, int batch) {
  return round(problem, blocks, std::max(batch, 1), 0.0);
}

RoundResult Team::fill(Problem& problem, const std::vector<Block>& blocks, double seconds) {
  return round(problem, blocks, 0, seconds);
}

namespace {

// Runs body(k), k = 0 .. count - 1, each on a thread of its own that calls prepare(k) first; the
// bodies start together, once every thread is ready. Returns the time they were let go at, once
// all have ended. Where a thread cannot be started, those ready return without running their body
// and the error is thrown (ctrl::detail::cannot_start_thread).
template <class Prepare, class Body>
Clock::time_point run_together(std::size_t count, const Prepare& prepare, Clock& clock, const Body& body) {
  std::latch go(static_cast<std::ptrdiff_t>(count + 1));
  bool cancelled = false;  // written before the latch opens, read after
  std::vector<std::jthread> threads;
  ctrl::detail::start_threads(
      threads, count,
      [&](std::size_t k) {
        return [&, k] {
          prepare(k);
          go.arrive_and_wait();
          if (!cancelled) body(k);
        };
      },
      [&] {
        cancelled = true;
        go.count_down(static_cast<std::ptrdiff_t>(count - threads.size() + 1));  // the missing threads' and this one's
      },
      "a driver of the team's processors");
  const Clock::time_point released = clock.now();
  go.arrive_and_wait();
  return released;  // and the threads are joined
}

void add_coupling(const std::vector<Block>& blocks, RoundResult& r, std::vector<double>& waited) {
  // Blocks that exchange advance at the slower one's pace sweep by sweep: the execution lasts the
  // sum over sweeps of the slower sweep, more than the slowest processor's own time when their
  // sweeps' times vary. Every processor of the execution pays that difference (team.hpp).
  double slowest = 0;
  bool exchanges = false;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i].empty()) continue;
    slowest = std::max(slowest, r.time_s[i]);
    exchanges = exchanges || r.exchange_s[i] > 0 || waited[i] > 0;
  }
  const double coupling = std::max(0.0, r.wall_s - slowest);
  if (!exchanges || coupling <= 0) return;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i].empty()) continue;
    r.time_s[i] += coupling;
    r.exchange_s[i] += coupling;
    waited[i] = std::max(0.0, waited[i] - coupling * r.runs[i]);
  }
}

}  // namespace

RoundResult Team::round(Problem& problem, const std::vector<Block>& blocks, int batch, double seconds) {
  const std::size_t n = members_.size();
  if (blocks.size() != n)
    throw UsageError(
        fmt::format("a round needs one block per processor: {} blocks for {} processors", blocks.size(), n));
  RoundResult r;
  r.batch = std::max(batch, 1);
  r.time_s.assign(n, 0.0);
  r.exchange_s.assign(n, 0.0);
  r.runs.assign(n, 0);
  r.dynamic_j.assign(n, std::nullopt);

  std::vector<Reading> e0(n), e1(n);
  for (std::size_t i = 0; i < n; ++i)
    if (members_[i]->meter) e0[i] = read_aligned(*members_[i]->meter, clock());

  std::vector<Clock::time_point> start(n), end(n);
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::size_t> busy;  // the processors with rows: one driver thread each
  for (std::size_t i = 0; i < n; ++i)
    if (!blocks[i].empty()) busy.push_back(i);
  problem.prepare_round(blocks, batch > 0);
  const auto pin = [&](std::size_t k) { pin_to(members_[busy[k]]->driver_cores); };
  // CPU groups with rows: how much of their cores' time other work takes in the round.
  std::vector<const std::vector<int>*> host_cores(n, nullptr);
  for (std::size_t i = 0; i < n; ++i)
    if (!blocks[i].empty() && members_[i]->info.spec.on_cores()) host_cores[i] = &members_[i]->driver_cores;
  const bool on_cores = std::any_of(host_cores.begin(), host_cores.end(), [](const auto* c) { return c != nullptr; });
  std::vector<std::uint64_t> driver_ran(n, 0);  // the drivers' own time on a core, read by each
  const detail::CoreSnapshot cores0 = on_cores ? detail::core_snapshot() : detail::CoreSnapshot{};
  const Clock::time_point released = run_together(busy.size(), pin, clock(), [&](std::size_t k) {
    const std::size_t i = busy[k];
    driver_ran[i] = detail::own_ran_ns();
    start[i] = clock().now();
    const auto deadline =
        start[i] + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    try {
      if (batch > 0) {
        for (int b = 0; b < batch; ++b) problem.run_block(*members_[i]->controller, blocks[i], i);
        r.runs[i] = batch;
      } else {
        do {
          problem.run_block(*members_[i]->controller, blocks[i], i);
          ++r.runs[i];
        } while (clock().now() < deadline);
      }
      end[i] = clock().now();
      driver_ran[i] = detail::own_ran_ns() - driver_ran[i];
      if (members_[i]->meter) e1[i] = read_aligned(*members_[i]->meter, clock());
    } catch (...) {
      end[i] = clock().now();
      errors[i] = std::current_exception();
    }
  });
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  Clock::time_point last = released;
  std::vector<double> waited(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    if (blocks[i].empty()) continue;
    const Problem::ExchangeTimes x = problem.exchange_times(i);
    waited[i] = std::clamp(x.waiting, 0.0, seconds_between(start[i], end[i]));
    r.time_s[i] = (seconds_between(start[i], end[i]) - waited[i]) / r.runs[i];
    r.exchange_s[i] = x.exchanging / r.runs[i];
    last = std::max(last, end[i]);
  }
  r.wall_s = seconds_between(released, last) / r.batch;
  add_coupling(blocks, r, waited);
  std::vector<double> span(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    if (host_cores[i]) span[i] = seconds_between(start[i], end[i]);
  r.cores_taken = detail::taken_by_others(cores0, host_cores, driver_ran, span);

  round_energies(blocks, batch, {start, end, released, last, waited}, e0, e1, r);
  return r;
}

void Team::round_energies(const std::vector<Block>& blocks, int batch, const RoundTimes& times,
                          const std::vector<detail::MeterReading>& e0, std::vector<detail::MeterReading>& e1,
                          RoundResult& r) {
  const auto& [start, end, released, last, waited] = times;
  const std::size_t n = members_.size();
  r.held_j.assign(n, std::nullopt);
  for (std::size_t i = 0; i < n; ++i) {
    if (!members_[i]->meter) continue;
    const auto& info = members_[i]->info;
    const double base = info.base_power_w.value_or(0.0);
    const double held = std::max(0.0, info.held_power_w.value_or(0.0));
    if (blocks[i].empty()) {  // idle: the whole round, per execution
      e1[i] = read_aligned(*members_[i]->meter, clock());
      const double window = seconds_between(e0[i].t, e1[i].t);
      r.window_s = std::max(r.window_s, window);
      r.dynamic_j[i] = (e1[i].joules - e0[i].joules - base * window) / r.batch;
      continue;
    }
    r.window_s = std::max(r.window_s, seconds_between(e0[i].t, e1[i].t));
    const double own = dynamic_over(e0[i], e1[i], base, held, seconds_between(start[i], end[i]) - waited[i]);
    if (batch == 0) {
      r.dynamic_j[i] = own / r.runs[i];
      continue;
    }
    // An execution: the device's energy until the last processor is done, its held tail with it.
    const Reading e = e1[i].t >= last ? e1[i] : read_aligned(*members_[i]->meter, clock());
    r.window_s = std::max(r.window_s, seconds_between(e0[i].t, e.t));
    // From the common release: a device whose driver started late idled, held, in between.
    const double whole = dynamic_over(e0[i], e, base, held, seconds_between(released, last));
    r.dynamic_j[i] = whole / r.batch;
    r.held_j[i] = (whole - own) / r.batch;
  }
}

std::unique_ptr<Problem> Team::make_problem(const Workload& app, const std::vector<Block>& extent, index_t cols,
                                            std::uint64_t seed) {
  return app.make_problem(rows_spanned(extent), cols, size(), seed);
}

Check Team::verify(const Problem& problem, const std::vector<Block>& blocks) { return problem.verify(blocks); }

void Team::write_output(const Problem& problem, const std::vector<Block>& blocks, const std::string& path) {
  // The blocks in order, gathered into one buffer: they need not be contiguous in the problem.
  std::vector<std::byte> data;
  index_t rows = 0;
  for (const Block& b : blocks) {
    if (b.empty()) continue;
    const auto bytes = problem.output_bytes(b);
    data.insert(data.end(), bytes.begin(), bytes.end());
    rows += b.rows();
  }
  save_rows(path, problem, blocks, rows, data);
}

}  // namespace ctrl::loop
