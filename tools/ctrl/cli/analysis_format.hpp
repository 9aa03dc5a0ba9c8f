// `ctrl pareto`'s report of the HEPOPTA paper's analysis (ctrl/partition/analysis.hpp): the
// load-balanced solution and the even split, each end's gains against the load-balanced solution,
// the load imbalance of the front's points (LIR, strong or weak), the least energy within each time
// budget, and the dynamic- against the total-energy optimum (docs/partition.md, "The paper's
// analysis").
#pragma once
#include "front_format.hpp"

#include <cstddef>
#include <ostream>
#include <string>

namespace ctrl::tool {

// The balanced distributions, one line each, for the table's summary.
void write_balanced_lines(std::ostream& out, const FrontReport& report);

// The table's analysis sections, after the summary (nothing when report.analysis is absent).
void write_analysis_table(std::ostream& out, const FrontReport& report);

// The points table's extra columns: their header, and point k's LIR and imbalance ("" without a
// load-balanced solution).
std::string imbalance_header(const FrontReport& report);
std::string imbalance_cells(const FrontReport& report, std::size_t k);

// "5 %", "12.5 %": a fraction as a percentage with the decimals it needs (at most 2).
std::string percent(double fraction);

}  // namespace ctrl::tool
