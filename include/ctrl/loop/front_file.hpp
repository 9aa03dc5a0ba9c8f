// The front file: what `ctrl pareto --format json` writes and `ctrl run --front` reads.
//
//   {"processors": ["cpu:0-14", "cuda:0"], "workload": 8192, "energy": "dynamic", "base_power": 0,
//    "energy_provenance": {"cpu:0-14": "estimated", "cuda:0": "measured"},
//    "time_optimal": {"time": 0.011, "energy": 3.2, "distribution": [1024, 7168]},
//    "front": [{"time": ..., "energy": ..., "distribution": [...]}, ...]}
//
// energy_provenance (where the profile said) tells measured energies from estimated ones. A front
// of time only (`ctrl pareto --time-only`) has "energy": "none", no base power and no energies:
// its one point is the time-optimal distribution.
//
// One module writes and reads it, so that a front written by one version of ctrl is read back
// with every point as it was computed (the numbers round-trip).
//
//   const ctrl::loop::FrontFile f = ctrl::loop::read_front_file("front.json");
//   const auto& fastest = f.front.front();   // sorted by time: fastest first, least energy last
#pragma once
#include <ctrl/energy/meter.hpp>
#include <ctrl/partition/front.hpp>

#include <string>
#include <vector>

namespace ctrl::loop {

struct FrontFile {
  std::vector<std::string> processors;
  partition::Size workload = 0;
  partition::EnergyModel model;                // the second objective: dynamic, or total with its base power
  partition::Front front;                      // sorted by time, non-empty; energies 0 when time_only
  bool time_only = false;                      // no second objective: energy was not compared
  std::vector<energy::Provenance> provenance;  // per processor; empty: unknown (a plain CSV profile)
};

// The file's text (ends with a newline). UsageError for an empty front.
std::string front_json(const FrontFile& front);

// Reads a front file (an input: a FIFO or a device is refused, not waited on). UsageError naming
// the file, and the point where one is wrong: not JSON, a field missing or of another type, an
// integer beyond index_t, a distribution of another number of parts than processors, or one that
// does not sum to the workload, an energy_provenance naming other processors or another value.
FrontFile read_front_file(const std::string& path);
// The same for a file's text, read by the caller.
FrontFile parse_front_file(const std::string& text, const std::string& path);

}  // namespace ctrl::loop
