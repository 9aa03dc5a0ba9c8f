// A front and everything reported with it, from a profile, in one call: what `ctrl pareto` prints,
// the front `ctrl run --profile --pick` takes its point from, and what a program of its own gets
// (docs/loop.md, "A front as a library call"). The front is exact for the profile's model
// (model.hpp: measured sizes, interpolated between them, held power); beside it, the HEPOPTA
// paper's analysis (ctrl/partition/analysis.hpp): the load-balanced solution and the even split,
// each end's gains, the imbalance of every point, the least energy within time budgets, and the
// dynamic- against the total-energy optimum.
//
//   ctrl::loop::FrontRequest request;
//   request.profile = "dgemm-profile.csv";
//   request.workload = 6000;
//   const ctrl::loop::FrontReport report = ctrl::loop::compute_front(request);
//   report.time_optimal().distribution;      // rows per processor, in report.processors' order
//   ctrl::loop::front_report_json(report);   // the JSON of `ctrl pareto --format json`, byte for byte
#pragma once
#include <ctrl/energy/meter.hpp>
#include <ctrl/errors.hpp>
#include <ctrl/loop/model.hpp>
#include <ctrl/loop/profile_file.hpp>
#include <ctrl/partition/analysis.hpp>
#include <ctrl/partition/front.hpp>
#include <ctrl/partition/load_balanced.hpp>
#include <ctrl/partition/pareto.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ctrl::loop {

struct FrontRequest {
  std::string profile;           // the profile's path: read by compute_front(request), named in messages
  partition::Size workload = 0;  // the rows to split, at most the profile's capacity
  partition::EnergyKind energy = partition::EnergyKind::dynamic;
  std::optional<double> base_power;   // W, for total energy and the optima; default: the profile's
  bool time_only = false;             // the time-optimal distribution alone, energy not compared
  partition::ParetoOptions options;   // method, epsilon (> 0: the approximate front), threads, memory
  std::vector<double> budgets{0.05};  // slowdowns over the fastest time (0.05: 5 %) for the analysis
  ModelChoice sizes;                  // granularity between measured sizes, or measured sizes only
  bool analysis = true;               // the balanced distributions and the paper's analysis
  // How messages and the report name the request's options (a tool names its own: "--base-power").
  struct Names {
    std::string base_power = "FrontRequest::base_power", total_energy = "total energy", time_only = "time_only";
  } names;
};

// Everything a report of one front shows.
struct FrontReport {
  std::string profile_path;
  std::vector<std::string> processors;
  partition::Size workload = 0;
  partition::EnergyModel model;
  std::string base_power_origin;  // for total energy: "from " the name of the request's, or the profile's sum
  partition::Front front;         // sorted by time, non-empty
  std::optional<partition::Solution> load_balanced;  // equal times; absent when no such distribution exists
  std::optional<partition::Solution> even_split;     // equal rows; absent likewise
  std::optional<partition::TimeSpread> balance;      // the load-balanced solution's processor times
  std::optional<partition::FrontAnalysis> analysis;  // absent when not asked for, or with time only
  std::optional<partition::EnergyOptima> optima;     // dynamic- against total-energy optimum, with a base power
  std::string optima_origin;                         // where its base power came from; or why there is none
  std::vector<std::string> unmetered;                // processors whose energy was not measured
  bool time_only = false;                            // the front is the time-optimal point
  double epsilon = 0.0;                              // > 0 for the approximate front
  std::size_t classes = 0;                           // processor classes (identical profiles); 0: not counted
  std::vector<energy::Provenance> provenance;        // per processor (a `ctrl profile` file); empty: unknown
  // Held power per processor (held.hpp), W, in every energy shown; empty: none modelled.
  // held_unknown: processors with energy whose held power the profile lacks.
  std::vector<double> held_power;
  std::vector<std::string> held_unknown;
  // The model between measured sizes (model.hpp): how the front's sizes are taken ("" for measured
  // sizes only), and per point of the front the parts that rest on sizes the profile did not
  // measure (interpolation_note; "" where every part was measured).
  std::string model_line;
  bool interpolates = false;
  std::vector<std::string> interpolated;
  // Parts of the report left out, each with why: at a cluster's scale the balanced distributions
  // need the exact tables that an approximate front avoids.
  std::vector<std::string> omitted;
  // Processors of a `ctrl profile` file with sizes whose confidence intervals did not meet the
  // precision asked for within the repetition bound: how many of how many sizes.
  struct Unconverged {
    std::string processor;
    std::size_t sizes = 0, of = 0;
  };
  std::vector<Unconverged> unconverged;

  const partition::Solution& time_optimal() const { return front.front(); }
  const partition::Solution& energy_optimal() const { return front.back(); }
  std::string energy_name() const;  // "dynamic" or "total"
  bool rests_on_interpolation(std::size_t k) const { return k < interpolated.size() && !interpolated[k].empty(); }
};

// The workload cannot be split exactly with the profile's sizes (the tool's exit status 3).
class InfeasibleError : public UsageError {
 public:
  using UsageError::UsageError;
};

// Total energy asked for without a base power that the request or the profile gives; the message
// says what the profile lacks.
class MissingBasePowerError : public UsageError {
 public:
  using UsageError::UsageError;
};

// The report of request.workload on the profile read once (read_profile), named request.profile in
// messages. UsageError for a request out of bounds (a workload not positive or above the
// capacity, a negative base power or epsilon, time only with an energy option); MissingEnergyError
// for a front of energy on a profile where a processor has none (time_only instead);
// MissingBasePowerError for total energy without a base power; InfeasibleError when the workload
// cannot be split with measured sizes only.
FrontReport compute_front(const LoadedProfile& profile, const FrontRequest& request);
// The same, reading request.profile (UsageError naming it when missing or malformed).
FrontReport compute_front(const FrontRequest& request);

// The report as the front file that `ctrl run --front` reads (front_file.hpp), with the
// analysis's fields beside it: what `ctrl pareto --format json` prints.
std::string front_report_json(const FrontReport& report);

// Per processor of a profile: its energy was measured or estimated (a `ctrl profile` file's
// energy_source), or, for a plain CSV, some energy of it is above zero.
std::vector<bool> energy_metered(const LoadedProfile& profile);

}  // namespace ctrl::loop
