// `ctrl pareto` output: the front as a terminal table, JSON or CSV (docs/partition.md).
#pragma once
#include <ctrl/partition/analysis.hpp>
#include <ctrl/energy/meter.hpp>
#include <ctrl/partition/front.hpp>
#include <ctrl/partition/load_balanced.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ctrl::tool {

// Everything a report of one front shows.
struct FrontReport {
  std::string profile_path;
  std::vector<std::string> processors;
  partition::Size workload = 0;
  partition::EnergyModel model;
  std::string base_power_origin;                     // for total energy: "from --base-power", or the profile's sum
  partition::Front front;                            // sorted by time, non-empty
  std::optional<partition::Solution> load_balanced;  // equal times; absent when no such distribution exists
  std::optional<partition::Solution> even_split;     // equal rows; absent likewise
  std::optional<partition::TimeSpread> balance;      // the load-balanced solution's processor times
  // The paper's analysis (analysis_format.hpp); absent when not computed.
  std::optional<partition::FrontAnalysis> analysis;
  std::optional<partition::EnergyOptima> optima;  // dynamic- against total-energy optimum, with a base power
  std::string optima_origin;                      // where its base power came from; or why there is none
  std::vector<std::string> unmetered;             // processors whose energy was not measured (count 0 J)
  bool time_only = false;                         // --time-only: the front is the time-optimal point
  double epsilon = 0.0;                           // --epsilon: > 0 for the approximate front
  std::size_t classes = 0;                        // processor classes (identical profiles); 0: not counted
  std::vector<energy::Provenance> provenance;     // per processor (a `ctrl profile` file); empty: unknown
  // Held power per processor (ctrl/loop/held.hpp), W, in every energy shown; empty: none
  // modelled. held_unknown: processors with energy whose held power the profile lacks.
  std::vector<double> held_power;
  std::vector<std::string> held_unknown;
  // The model between measured sizes (ctrl/loop/model.hpp): how the front's sizes are taken ("" for
  // measured sizes only), and per point of the front the parts that rest on sizes the profile did
  // not measure (loop::interpolation_note; "" where every part was measured).
  std::string model_line;
  bool interpolates = false;
  std::vector<std::string> interpolated;

  const partition::Solution& time_optimal() const { return front.front(); }
  const partition::Solution& energy_optimal() const { return front.back(); }
  std::string energy_name() const;  // "dynamic" or "total"
};

// Readable in a terminal: a summary and the paper's analysis, then one row per point with its
// distribution (and its LIR and imbalance).
void write_table(std::ostream& out, const FrontReport& report);

// The front file that `ctrl run --front` reads (ctrl/loop/front_file.hpp), with the analysis's
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
// Whether point k of the front rests on sizes between measured ones, and the report's lines on
// its sizes ("sizes: ..." and what "~" marks; "" for measured sizes only).
bool interpolated(const FrontReport& report, std::size_t k);
std::string model_lines(const FrontReport& report);
// A distribution's parts separated by spaces, "3 0 5", as every table shows one.
std::string parts_text(const partition::Distribution& x);

}  // namespace ctrl::tool
