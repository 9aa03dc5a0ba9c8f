// `ctrl pareto` output: the front as a terminal table, JSON or CSV (docs/partition.md).
#pragma once
#include <ctrl/loop/front.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ctrl::tool {

using loop::FrontReport;

// Readable in a terminal: a summary and the paper's analysis, then one row per point with its
// distribution (and its LIR and imbalance).
void write_table(std::ostream& out, const FrontReport& report);

// loop::front_report_json: the front file that `ctrl run --front` reads, with the analysis's
// fields beside it.
void write_json(std::ostream& out, const FrontReport& report);

// A header row `time,energy,<processor names>`, then one row per point (numbers round-trip).
void write_csv(std::ostream& out, const FrontReport& report);

// A report of time only (front_time_only.cpp), in `format` (table, json or csv): the time-optimal
// distribution and the load-balanced one, no energy.
void write_time_only(std::ostream& out, const FrontReport& report, const std::string& format);

// "1000 processors in 5 classes of identical profiles", when some share a profile; "" otherwise.
std::string classes_line(const FrontReport& report);
// "energies: cpu:0-7 estimated, cuda:0 measured" for a report whose provenance is known, and a
// line of the held powers in its energies; "" otherwise.
std::string provenance_line(const FrontReport& report);
// The report's lines on its sizes ("sizes: ..." and what "~" marks; "" for measured sizes only),
// and on the parts of it left out.
std::string model_lines(const FrontReport& report);
// A distribution's parts separated by spaces, "3 0 5", as every table shows one.
std::string parts_text(const partition::Distribution& x);

}  // namespace ctrl::tool
