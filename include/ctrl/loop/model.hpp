// The model that fronts and predictions are computed from (docs/loop.md, "Between measured
// sizes"): a profile's processors at every multiple of the workload's granularity up to their
// largest measured sizes, interpolated linearly between measured sizes
// (ctrl/partition/model.hpp), with each device's held power (held.hpp), and, for a workload that
// exchanges halos, a processor given the whole workload without its exchanges.
//
//   const auto loaded = ctrl::loop::read_profile("p.csv");
//   const auto model = ctrl::loop::profile_model(loaded);
//   const auto held = ctrl::loop::held_model(*loaded.file);
//   const auto front = ctrl::loop::model_front(model, held, 600);  // any 600 up to the capacity
//   model.all_measured(front[0].distribution);                     // or rests on interpolation
#pragma once
#include <ctrl/loop/held.hpp>
#include <ctrl/loop/profile_file.hpp>
#include <ctrl/partition/model.hpp>
#include <ctrl/partition/pareto.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ctrl::loop {

struct ModelChoice {
  // Interpolate at this granularity; default: a `ctrl profile` file's own (its workload's), and
  // measured sizes only for a plain CSV (the HEPOPTA paper's discrete model).
  std::optional<partition::Size> granularity;
  bool measured_only = false;  // the measured sizes only, whatever the file
  partition::Size resolution = partition::ModelOptions{}.resolution;
};

// The model of a profile read by read_profile. UsageError for a granularity below 1, and for
// measured_only with a granularity.
partition::ProfileModel profile_model(const LoadedProfile& loaded, const ModelChoice& choice = {});

// A distribution of rows under the model, with held power: partition::Solution of F(X) (dynamic)
// or F(X) + base power T(X) (total). UsageError when a part is past its processor's reach.
partition::Solution model_solution(const partition::ProfileModel& model, const HeldPower& held,
                                   const partition::Distribution& rows, partition::Size workload,
                                   const partition::EnergyModel& energy = {});

// The exact front of workload n under the model (held_front on its grid, in rows). UsageError
// naming the capacity above it, or the granularity off it; empty when n cannot be split (only
// with measured sizes only).
partition::Front model_front(const partition::ProfileModel& model, const HeldPower& held, partition::Size workload,
                             const partition::EnergyModel& energy = {}, const partition::ParetoOptions& options = {});

// The same distributions under `energy` (a front of F turned into one of total energy), filtered.
partition::Front model_reevaluate(const partition::ProfileModel& model, const HeldPower& held,
                                  const partition::Front& front, partition::Size workload,
                                  const partition::EnergyModel& energy);

// The time-optimal distribution alone (HPOPTA on the grid), as a front of one point; empty as above.
partition::Front model_time_optimal(const partition::ProfileModel& model, partition::Size workload);

// The HEPOPTA paper's load-balanced distribution (every processor works, times as equal as the
// grid allows), or the even split (rows as equal as it allows), under the model.
enum class Balance { load_balanced, even };
std::optional<partition::Solution> model_balanced(const partition::ProfileModel& model, const HeldPower& held,
                                                  partition::Size workload, Balance balance,
                                                  const partition::EnergyModel& energy = {});

// The parts of x that rest on sizes the profile did not measure, as "cpu:0-7 interpolated at 600,
// cuda:0 below its smallest size (256)": "" when every part was measured.
std::string interpolation_note(const partition::ProfileModel& model, const partition::Distribution& x);

}  // namespace ctrl::loop
