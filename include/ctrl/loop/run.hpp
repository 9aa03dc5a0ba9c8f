// `ctrl run`'s measurement as a library call: one distribution of a workload executed on every
// processor at once, repeated until the 95 % confidence rule holds, checked, and reported per
// processor beside what a profile predicted (docs/loop.md, "Run").
//
//   ctrl::loop::Team team({ctrl::cpu(), ctrl::cuda(0)});
//   ctrl::loop::RunRequest run;
//   run.rows = {1200, 6800};                          // a point of the front
//   run.predicted = ctrl::loop::predict(profile, run.rows);
//   const auto outcome = ctrl::loop::run_distribution(workload, run, team);
//   // outcome.check.ok, outcome.processors[i].time.mean beside .time_predicted
#pragma once
#include <ctrl/loop/held.hpp>
#include <ctrl/loop/measure.hpp>
#include <ctrl/loop/platform.hpp>
#include <ctrl/loop/profile_file.hpp>
#include <ctrl/loop/team.hpp>
#include <ctrl/loop/workload.hpp>
#include <ctrl/partition/model.hpp>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ctrl::loop {

// What a profile says of one processor at its rows (nullopt where it has no such size).
struct Prediction {
  std::optional<double> time, energy;  // s and J (dynamic, its held tail included) per run
  // The part of `energy` after its block: held power x (the distribution's time - its own), J
  // (0 for a processor that holds nothing); nullopt without rows, energy, or a time for every
  // processor with rows.
  std::optional<double> held;
};

struct RunRequest {
  std::vector<index_t> rows;          // per processor of the platform, in order
  index_t cols = 0;                   // N; 0: the workload's default
  std::vector<Prediction> predicted;  // per processor, or empty
  StopRule rule{3, 10, 0.025, 0.0};
  std::vector<std::pair<std::string, double>> base_power;  // given base powers, W, by processor name
  // The base powers the profile (at `profile_path`) was measured with: the predictions' dynamic
  // energies are relative to them. Given ones win.
  std::vector<std::pair<std::string, double>> profile_base_power;
  // The same for held powers (W above base after a block): a round's counter-alignment margins
  // are taken at them (Team::round).
  std::vector<std::pair<std::string, double>> profile_held_power;
  std::string profile_path;
  double idle_seconds = 2.0;  // idle window for the others (0: none)
  std::uint64_t seed = 1;
  std::string output;  // a .npy of the result, written when checked right
};

struct ProcessorRun {
  std::string name;
  index_t rows = 0;
  Estimate time;                   // s per execution (unset without rows)
  std::optional<Estimate> energy;  // dynamic J per execution (held tail included); nullopt: no sensor
  std::optional<Estimate> held;    // the part of `energy` after its block
  double cores_taken = 0.0;        // ProcessorResult::cores_taken: its cores' time other work took
  Prediction predicted;
  std::string energy_source, energy_absent;
  energy::Provenance energy_provenance = energy::Provenance::absent;  // measured or estimated when energy is set
};

struct RunOutcome {
  index_t cols = 0;
  MeasureResult measured;
  Check check;  // the outputs of the last execution
  std::vector<ProcessorRun> processors;
  bool output_written = false;
  std::vector<std::string> notes;  // base powers measured, for the user
  // The parallel time predicted (the slowest processor with rows; nullopt when one has no
  // prediction), and the dynamic energy of the processors that have a sensor, measured and
  // predicted (nullopt when none has).
  std::optional<double> time_predicted() const;
  std::optional<double> energy_measured() const;
  std::optional<double> energy_predicted() const;
};

// Every member of a platform of several processes calls it together (Platform). `progress` is
// called after each round.
RunOutcome run_distribution(const Workload& app, const RunRequest& request, Platform& platform,
                            const std::function<void(const RoundProgress&)>& progress = {},
                            const StopFlag* stop = nullptr);

// The model's time and energy of each processor at its rows (model.hpp: interpolated between
// measured sizes; a processor with every row taken alone; nullopt past its largest size), its held
// tail included (held.hpp: e_i + h_i (T - t_i), T the slowest predicted time). `names` are the
// processors, in order; the held powers are the model's processors' (in its order; empty: none).
// `without_energy`: processors whose profiled energy is no measurement (no energy predicted).
std::vector<Prediction> predict(const partition::ProfileModel& model, const std::vector<std::string>& names,
                                const std::vector<index_t>& rows, const HeldPower& held = {},
                                const std::vector<std::string>& without_energy = {});
// The same from a profile file's model (a processor without a sensor has no energy predicted).
std::vector<Prediction> predict(const ProfileFile& profile, const std::vector<std::string>& names,
                                const std::vector<index_t>& rows);
// The same from a profile's measured points only (nullopt at a size it did not measure).
std::vector<Prediction> predict(const partition::Profile& profile, const std::vector<std::string>& names,
                                const std::vector<index_t>& rows, const HeldPower& held = {});

}  // namespace ctrl::loop
