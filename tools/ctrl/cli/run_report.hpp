// `ctrl run`'s report: per processor and in total, measured beside predicted, and the check; as a
// terminal table or as JSON (docs/tool.md).
#pragma once
#include <ctrl/loop/plan.hpp>
#include <ctrl/loop/run.hpp>
#include <ctrl/loop/workload.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ctrl::tool {

struct RunReport {
  const loop::Workload& app;
  const loop::Plan& plan;
  const loop::RunOutcome& outcome;
  loop::RunTotals totals;
  double precision = 0;                   // the stop rule's, for the table's summary
  std::vector<loop::ProfileRow> learned;  // the rows --learn added to the profile
};

std::string run_json(const RunReport& r);
void write_run_table(std::ostream& out, const RunReport& r);

// (measured - predicted) / predicted; nullopt where either is unknown or the prediction is 0.
std::optional<double> relative_error(std::optional<double> measured, std::optional<double> predicted);

}  // namespace ctrl::tool

namespace ctrl::tool {

// `ctrl run --pick all`: every point of a front run and measured. The table shows each point's
// own report, then the points side by side (distribution, the processor whose predicted time
// decides the point's, time and dynamic energy measured beside predicted) with the worst errors
// named, overall and per deciding processor. The JSON holds each point's run_json.
void write_front_runs_table(std::ostream& out, const std::vector<RunReport>& reports);
std::string front_runs_json(const std::vector<RunReport>& reports);

}  // namespace ctrl::tool
