// Runs that teach the profile: what a run measured, added to the profile its plan came from, and
// the processors whose run left their prediction (docs/loop.md, "Runs that teach").
//
//   const ctrl::loop::RunOutcome outcome = ctrl::loop::run_distribution(workload, run_request(plan), team);
//   for (const ctrl::loop::Drift& d : ctrl::loop::drifts(outcome)) warn(d.advice);
//   ctrl::loop::learn(plan.profile, workload, plan, outcome);   // the next front and plan use it
#pragma once
#include <ctrl/loop/plan.hpp>
#include <ctrl/loop/profile_file.hpp>
#include <ctrl/loop/run.hpp>
#include <ctrl/loop/workload.hpp>

#include <string>
#include <vector>

namespace ctrl::loop {

// Appends to the `ctrl profile` file at `profile` one row per processor the run gave rows to:
// its rows, its own time (less the waits at halo exchanges) and dynamic energy (less its held
// tail) within the distribution, with their intervals, rounds and runs, marked measured_in = run
// (profile_file.hpp). Rows the profile measured are never rewritten: at a size with both, fronts
// and predictions take the last run's. Returns the rows added. UsageError, and the file untouched,
// when it is not a `ctrl profile` file, is of another application or parameter values, another
// N, or other processors than the run; when the run's check failed, or it measured no round; when
// another command holds the file's lock, or its file system cannot lock it and not `unlocked_ok`
// (ProfileWriter). `option` names the file in messages ("--profile").
std::vector<ProfileRow> learn(const std::string& profile, const Workload& app, const Plan& plan,
                              const RunOutcome& outcome, const std::string& option = "the profile",
                              bool unlocked_ok = false);

// learn()'s checks of the file against the run, before the run (nothing is locked or written).
void check_learnable(const std::string& profile, const Workload& app, const Plan& plan,
                     const std::string& option = "the profile");

// A processor whose measured time left its prediction by more than its 95 % interval plus 10 % of
// the prediction: what a front built on that profile gets wrong.
struct Drift {
  std::string processor;
  index_t rows = 0;
  double measured = 0, predicted = 0, interval = 0;  // s per run; interval: the measurement's 95 % half-width
  std::string advice;                                // one line: the processor, the miss, what to do
};
std::vector<Drift> drifts(const RunOutcome& outcome);

}  // namespace ctrl::loop
