// `ctrl run`'s report: per processor and in total, measured beside predicted, and the check; as a
// terminal table or as JSON (docs/tool.md).
#pragma once
#include <ctrl/loop/plan.hpp>
#include <ctrl/loop/run.hpp>
#include <ctrl/loop/workload.hpp>

#include <ostream>
#include <string>

namespace ctrl::tool {

struct RunReport {
  const loop::Workload& app;
  const loop::Plan& plan;
  const loop::RunOutcome& outcome;
  loop::RunTotals totals;
  double precision = 0;  // the stop rule's, for the table's summary
};

std::string run_json(const RunReport& r);
void write_run_table(std::ostream& out, const RunReport& r);

}  // namespace ctrl::tool
