// Which distribution to run, and what is predicted for it: the first half of `ctrl run` as one
// call. The distribution comes from a split given by hand, from a point of a front file, or from
// a profile (a point of its front, its load-balanced distribution or its even split); N from the
// request, else the profile, else the workload's default; the predictions per processor from the
// profile.
//
//   ctrl::loop::PlanRequest r;
//   r.profile = "profile.csv";
//   r.workload = 8192;
//   r.pick = ctrl::loop::Pick::parse("energy@time+5%");   // least energy within 5 % of the fastest
//   const ctrl::loop::Plan plan = ctrl::loop::plan_run(workload, r);
//   ctrl::loop::Team team(devices_of(plan.processors));
//   const auto outcome = ctrl::loop::run_distribution(workload, ctrl::loop::run_request(plan), team);
//   const auto totals = ctrl::loop::totals(plan, outcome);   // measured beside predicted
#pragma once
#include <ctrl/errors.hpp>
#include <ctrl/loop/front.hpp>
#include <ctrl/loop/pick.hpp>
#include <ctrl/loop/run.hpp>
#include <ctrl/loop/workload.hpp>
#include <ctrl/partition/front.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ctrl::loop {

struct PlanRequest {
  std::vector<std::pair<std::string, index_t>> split;  // by hand: processors and their rows, in order
  std::string front;                                   // or a front file (`ctrl pareto --format json`) and a pick
  std::optional<Pick> pick;
  std::string profile;              // predictions, N and base powers; with a pick and a workload and
  std::optional<index_t> workload;  // no front, the front is computed from it
  std::optional<index_t> cols;      // N (default: the profile's, else the workload's)
  // With Pick::all: at most this many points, spread evenly along the front by their place in it
  // (the fastest and the least-energy always among them); 0: every point.
  std::size_t points = 0;
  // How messages and Plan::source name the split and N where they come from the request (a tool
  // names its options: "--split", "--cols").
  std::string split_name = "the split given", cols_name = "the N given";
};

struct Plan {
  std::vector<std::string> processors;
  std::vector<index_t> rows;           // per processor
  std::string source;                  // where the distribution comes from, in words
  std::string reason;                  // why this point, for a pick by budget (pick.hpp); else ""
  std::optional<double> time, energy;  // the front's prediction of the whole, when from one
  partition::EnergyModel model;        // what that energy is: dynamic, or total
  index_t cols = 0;
  std::string cols_from;                                   // where N comes from, in words
  std::vector<Prediction> predicted;                       // per processor from the profile (empty: none)
  std::vector<std::pair<std::string, double>> base_power;  // W per processor, as the profile measured them
  std::vector<std::pair<std::string, double>> held_power;  // W above base after a block (held.hpp), the same
  std::size_t front_points = 0;                            // the size of the front the point is from (0: not from one)
  std::size_t front_point = 0;                             // its place in that front, from 1 (0: not from one)
  std::string profile;                                     // the profile's path, for the base powers' origin
  // The parts whose predictions rest on sizes the profile did not measure (model.hpp,
  // interpolation_note): "" when every part was measured, or without a profile.
  std::string interpolated;
  // The parts whose predictions rest on profile sizes that did not converge (the profile's
  // measured sizes around the part's rows, stopped by the repetition bound before their intervals
  // met the precision asked): "" when none, or without a `ctrl profile` file.
  std::string unconverged;

  index_t total_rows() const;
};

// Reads the files once, checks them against each other and against the workload's limits
// (Workload::check_size), and computes the distribution. UsageError naming the file and what is
// wrong; InfeasibleError when no distribution of the workload exists with the profile's sizes;
// MissingEnergyError for a pick by energy (least-energy, K) of the front of a profile where some
// processor has no energy (profile_file.hpp, require_energy), and UsageError for a least-energy
// pick of a front of time only; InfeasibleError for a budget no point of the front meets, naming
// the bound and the nearest point.
Plan plan_run(const Workload& app, const PlanRequest& request);

// Every point of the front a request's pick names (its pick must be Pick::all), in time order:
// the plans of picks 1, 2, ... K (at most request.points of them, spread along the front). The
// errors of plan_run; UsageError for a pick of a balanced distribution (not a front's point).
std::vector<Plan> plan_front(const Workload& app, const PlanRequest& request);

// The processor whose predicted time is the plan's time (the slowest with rows), or "" when a
// prediction is missing.
std::string deciding_processor(const Plan& plan);

// The run of a plan: its rows, N, predictions and the profile's base powers; the caller sets the
// stop rule, seed and output.
RunRequest run_request(const Plan& plan);

// The whole run, measured beside predicted: the parallel time; the energy of the processors with
// a sensor, dynamic, or total (dynamic + the front's base power x time) when the front was of
// total energy. The prediction is the front's where the plan comes from one, else the profile's
// per processor.
struct RunTotals {
  std::optional<double> time_predicted;
  std::optional<double> energy_measured, energy_predicted;  // nullopt: no processor has a sensor
  bool total_energy = false;
};
RunTotals totals(const Plan& plan, const RunOutcome& outcome);

// A plan as text and back, for the ranks of an MPI job: rank 0 plans, the others receive it.
std::string to_text(const Plan& plan);
Plan plan_from_text(const std::string& text);

}  // namespace ctrl::loop
