// What `ctrl run` runs: the distribution (from --split, a front or a profile), N, and what the
// profile predicts for every processor. Prepared once — by rank 0 in an MPI job, then sent to
// every rank as text — so that the distribution is computed once (docs/distributed.md).
#pragma once
#include "loop_common.hpp"
#include "job.hpp"

#include <ctrl/loop/workload.hpp>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ctrl::tool {

struct RunArgs {
  std::string app;
  std::vector<std::string> split;
  std::string front;
  std::string pick;
  std::string profile;
  std::string workload;
  std::string cols;
  MeasureArgs measure{10};
  std::string format = "table";
  std::string json_file;
  std::string output;
  PlatformArgs platform;
};

// The distribution to run, and what is predicted for it.
struct Plan {
  std::vector<std::string> names;
  std::vector<index_t> rows;
  std::string source;                        // where the distribution comes from, in words
  std::optional<double> front_time, front_energy;
  bool total_energy = false;                 // the front's energy is total (HTPOPTA)
  double front_base_power = 0;
};

struct Prepared {
  Plan plan;
  index_t cols = 0;
  std::string cols_from;                                        // where N comes from, in words
  std::map<std::string, std::pair<double, double>> predicted;   // processor -> profile's (time, energy) at its rows
  std::map<std::string, double> base_power;                     // processor -> W, from the profile
};

// Reads the files, checks them against each other, and computes the distribution.
Prepared prepare_run(const RunArgs& a, const loop::Workload& app);
std::string to_text(const Prepared& p);
Prepared prepared_from_text(const std::string& text);

}  // namespace ctrl::tool
