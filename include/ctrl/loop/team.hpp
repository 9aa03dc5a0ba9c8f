// A team of abstract processors: one controller per device spec, each with the energy meter that
// covers its device, run together so that contention between them is part of every measurement
// (the HEPOPTA paper: "the performance of these loosely-coupled abstract processors must be
// measured simultaneously").
//
// One round is one measurement in which every processor with rows runs its block, all starting
// together:
//   1. each meter is read at the start; a meter whose counter changes seldom (NVML: every 0.1 s)
//      is read until its value changes, so that the window starts at a counter update rather
//      than up to 0.1 s after one (and likewise at the end);
//   2. one driver thread per processor waits at a latch, then runs attach / launch / detach of its
//      block and stamps its own completion: per-processor times without serialising. Team::run
//      repeats the block `batch` times (a real execution of the distribution, `batch` times);
//      Team::fill repeats it until a common deadline, so that every processor is busy for the
//      whole round (the profiler's mode: the contention of processors working together, and
//      enough runs of a fast device to resolve its energy);
//   3. each driver reads its own device's meter as soon as its runs are done: its own window
//      [start, end_i]. In an execution (Team::run) every meter is read again once the last
//      processor is done: a device's energy is that of the whole execution, its held tail after
//      its own block included (RoundResult::held_j; docs/energy.md, "Held power").
// Per run: time_i = (end_i - start_i - waited_i) / runs_i, waited_i the time its block waited at
// halo exchanges for its neighbours' kernels (none without halos), and dynamic energy_i =
// (E_i(window_i) - P_base,i x window_i - h_i x margin_i) / runs_i, where P_base,i is the device's
// base power (measured idle, or given), h_i its held power (0 until known) and margin_i the part
// of the window in which it did not work (the counter's alignment, and its waits). A processor
// without rows is measured over the whole round, per execution.
//
// Energy is attributed to a processor only when its meter covers its device alone: a CPU group
// whose RAPL package also holds another processor of the team has "no sensor of its own", and is
// estimated instead where a rating exists (energy/estimate.hpp: an estimate covers its own cores).
// Each processor's energy is measured, estimated or absent (ProcessorInfo::energy_provenance).
#pragma once
#include <ctrl/loop/platform.hpp>
#include <ctrl/loop/workload.hpp>

#include <ctrl/ctrl.hpp>
#include <ctrl/energy.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ctrl::loop {

struct ProcessorInfo {
  DeviceSpec spec;
  std::string name;                    // spec.str(): the processor's name in profiles and fronts
  std::string description;             // the controller's own description
  std::string energy_source = "none";  // the meter ("nvml:0", "estimate:cpu:0-7"), or "none"
  std::string energy_absent;           // "no sensor: ..." when energy_source is "none"
  energy::Provenance energy_provenance = energy::Provenance::absent;
  std::string energy_measures;         // what the meter covers, and for an estimate its model
  double update_interval_s = 0.0;      // the meter's resolution hint
  std::optional<double> base_power_w;  // idle power of the device, W
  std::string base_power_origin;       // "measured idle for 2 s", "given", ...
  // Held power: what the device draws above its base power right after its block, while the
  // others still work (a GPU keeps its clocks up for a while: docs/energy.md, "Held power"), W.
  // Unset: not known, taken as 0.
  std::optional<double> held_power_w;
  std::string held_power_origin;
  bool has_energy() const { return energy_source != "none"; }
};

struct TeamOptions {
  bool energy = true;          // read the meters (false: time only, as if no sensor existed)
  double min_window_s = -1.0;  // shortest energy window; < 0: chosen from the meters (docs/loop.md)
  // Shortest round: runs shorter than this are repeated back to back within a round, so that the
  // common start's skew (tens of microseconds) and timer noise are spread over several runs.
  double min_round_s = 0.02;
  // Makes each processor's meter; empty: energy::make_meter (tests inject meters here).
  std::function<std::unique_ptr<energy::Meter>(const energy::DeviceSpec&)> make_meter;
  // Where meters look for their sensors and the CPU estimate for its rating and files: the
  // rating given (`--cpu-power`) goes in meters.estimate.watts_per_core. Also what a CPU group
  // whose RAPL package another processor shares is estimated with.
  energy::MeterEnvironment meters;
  // Every time the team takes: meter readings' stamps, round starts, ends and deadlines, the
  // idle wait of measure_base_power. Null: the machine's (energy::steady_clock). A test gives
  // its meters the same clock, so that readings and stamps agree on any load (energy/clock.hpp).
  std::shared_ptr<energy::Clock> clock;
};

namespace detail {
struct MeterReading {  // a meter's joules, stamped with the middle of the read
  energy::Clock::time_point t;
  double joules = 0;
};
}  // namespace detail

struct RoundResult {
  int batch = 1;          // Team::run: executions of the distribution
  std::vector<int> runs;  // per processor: runs of its block (0 without rows)
  double wall_s = 0.0;    // per run: common start to the last completion
  double window_s = 0.0;  // the whole energy window (longest meter window)
  // Per processor, per run (0 without rows): from its start to its completion, less the time its
  // block waited at halo exchanges for slower neighbours (Problem::exchange_times): its own time,
  // which a front's max over processors models. Blocks that exchange halos also pay the coupling
  // of their sweeps: an execution lasts the sum over sweeps of the slower sweep, more than the
  // slowest processor's own time when sweep times vary; that difference (wall_s less the largest
  // own time) is added to every processor's time, so that the slowest one's is the wall time.
  std::vector<double> time_s;
  // Per processor, per run: the part of time_s spent on halos: exchanges and coupling (0 without).
  std::vector<double> exchange_s;
  // Per processor, per run (nullopt: no energy). Team::run: the device's dynamic energy over the
  // whole execution, from the common start to the last processor's completion (its held tail
  // included); Team::fill: over its own runs.
  std::vector<std::optional<double>> dynamic_j;
  // Team::run: the part of dynamic_j after the processor's own block (its held tail), per run;
  // nullopt for fill rounds, processors without rows or energy, and platforms that do not split it.
  std::vector<std::optional<double>> held_j;
  // Per processor on host cores: the share of its cores' time in the round that other work took
  // (their busy time less this process's threads' on them: another job sharing the cores); 0 for
  // other processors, those without rows, and where the kernel does not say (docs/loop.md,
  // "Another job on the cores"). Empty: not measured (a platform of several processes).
  std::vector<double> cores_taken;
};

class Team final : public Platform {
 public:
  // Creates the controllers (UsageError for malformed, duplicate or overlapping devices; the
  // runtime's errors for absent ones) and their meters.
  explicit Team(const std::vector<DeviceSpec>& devices, TeamOptions options = {});
  ~Team() override;
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  std::size_t size() const override;
  const ProcessorInfo& info(std::size_t i) const override;
  Controller& controller(std::size_t i);
  double min_window_s() const;  // 0 when no processor has energy
  // Runs per round so that a round lasts at least min_round_s and, with energy, its window at
  // least min_window_s(), for runs of `run_s`.
  int batch_for(double run_s) const override;

  void set_base_power(std::size_t i, double watts, std::string origin) override;
  // Measures the idle power of every metered device that has none yet, all at once, for `seconds`.
  // Returns a line per device for the user.
  std::vector<std::string> measure_base_power(double seconds) override;
  void set_held_power(std::size_t i, double watts, std::string origin) override;
  // Measures the held power of every metered device with a base power, all at once, over an idle
  // window of `seconds` that starts now: call it right after a round. A line per device.
  std::vector<std::string> measure_held_power(double seconds) override;
  // Gives up processor i's meter: its energy becomes absent for `reason` (a meter that another
  // process's processor shares, found only when the processes compare their meters).
  void drop_meter(std::size_t i, std::string reason);

  // One round: `blocks[i]` on processor i, `batch` times back to back; see the header comment.
  RoundResult run(Problem& problem, const std::vector<Block>& blocks, int batch) override;
  // One round in which every processor runs its block until `seconds` have passed (at least once).
  RoundResult fill(Problem& problem, const std::vector<Block>& blocks, double seconds) override;
  // The length of a fill round: min_round_s, or min_window_s() when energy is measured.
  double round_seconds() const override;

  // The whole instance (rows up to the largest block end), one slot per processor.
  std::unique_ptr<Problem> make_problem(const Workload& app, const std::vector<Block>& extent, index_t cols,
                                        std::uint64_t seed) override;
  Check verify(const Problem& problem, const std::vector<Block>& blocks) override;
  void write_output(const Problem& problem, const std::vector<Block>& blocks, const std::string& path) override;

 private:
  struct Member;
  energy::Clock& clock() const { return options_.clock ? *options_.clock : energy::steady_clock(); }
  RoundResult round(Problem& problem, const std::vector<Block>& blocks, int batch, double seconds);
  // Each metered processor's energies of a round, from its readings at the start (e0) and at its
  // own end (e1; read here for a processor without rows).
  struct RoundTimes {
    const std::vector<energy::Clock::time_point>& start;  // each driver's own start and end
    const std::vector<energy::Clock::time_point>& end;
    energy::Clock::time_point released, last;  // the common release, the last completion
    const std::vector<double>& waited;         // each driver's waits at halo exchanges, s
  };
  void round_energies(const std::vector<Block>& blocks, int batch, const RoundTimes& times,
                      const std::vector<detail::MeterReading>& e0, std::vector<detail::MeterReading>& e1,
                      RoundResult& r);
  void attach_meters();  // each processor's meter, measured or estimated, or why it has none
  // Every metered device in `which`, idle for `seconds` at once: its mean power and the window, or
  // nullopt where the window came out empty.
  struct IdlePower {
    double watts = 0, seconds = 0;
  };
  std::vector<std::optional<IdlePower>> idle_power(const std::vector<std::size_t>& which, double seconds);
  std::vector<std::unique_ptr<Member>> members_;
  TeamOptions options_;
};

// Marks a processor's energy absent for `reason` (no source, no base power).
void mark_energy_absent(ProcessorInfo& info, std::string reason);

// Runs of `run_s` that last at least `round_s` (1 when one run does; bounded).
int runs_to_fill(double round_s, double run_s);

// Cores a CPU-style spec names ("cpu" alone: every usable core).
std::vector<int> spec_cores(const DeviceSpec& spec);

}  // namespace ctrl::loop
