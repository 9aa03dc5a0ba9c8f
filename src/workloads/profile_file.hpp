// The profile file `ctrl profile` writes: the profile format of `ctrl pareto` (processor, size,
// time, energy) followed by statistics and provenance columns (docs/loop.md, "Profile files"):
//
//   processor        the device spec ("cpu:0-7", "cuda:0"): a front computed from the profile names
//                    processors that `ctrl run` can create directly
//   size             rows given to the processor (each processor ran this size at the same time
//                    as every other)
//   time             mean seconds per run (attach + launch + detach of the block)
//   energy           mean dynamic energy per run in J, clamped at 0 (the optimiser needs
//                    non-negative values); 0 when energy_source is "none": NOT a measurement
//   reps, batch      measured rounds, and this processor's runs per round (mean, rounded): in a
//                    round every processor repeats its block back to back until the round's time
//                    is up, so that all work together throughout (docs/loop.md)
//   time_ci          half-width of the 95 % confidence interval of the mean time, s
//   energy_ci        the same for the dynamic energy, J (empty without a sensor)
//   energy_measured  the mean dynamic energy before clamping, J (empty without a sensor)
//   base_power       the device's base power used, W (empty without a sensor)
//   energy_source    the meter ("nvml:0"), or "none" when the processor has no sensor of its own
//   converged        1 when the confidence intervals met the precision asked for, else 0
//   gflops           speed, as in the paper's figures
//   app, cols        the application and its fixed dimension N
//
// Rows are written one size at a time (every processor's row, then a flush), so that an
// interrupted profile holds only complete sizes, plus at most one partial line.
#pragma once
#include <ctrl/threads.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace ctrl::workloads {

struct ProfileRow {
  std::string processor;
  index_t size = 0;
  double time = 0.0;
  double energy = 0.0;
  int reps = 0;
  int batch = 1;
  double time_ci = 0.0;
  std::optional<double> energy_ci, energy_measured, base_power;
  std::string energy_source = "none";
  bool converged = false;
  double gflops = 0.0;
  std::string app;
  index_t cols = 0;
};

// The header line, without the newline.
std::string profile_header();
// One row, without the newline (fields quoted where they hold commas or quotes).
std::string format_profile_row(const ProfileRow& row);

// What an existing profile file holds.
struct ProfileFile {
  std::vector<ProfileRow> rows;           // complete sizes only, in file order
  std::vector<std::string> processors;    // in order of first appearance
  std::vector<index_t> complete_sizes;    // sizes measured on every processor, ascending
  std::size_t dropped_rows = 0;           // rows of incomplete sizes, and a partial last line
};

// Reads a file written by `ctrl profile`. A missing or empty file gives an empty result. A file
// with another header, or malformed rows, throws UsageError naming file and line.
ProfileFile read_profile_file(const std::string& path);

// Whether a file starts with profile_header() (false when missing or empty).
bool is_profile_file(const std::string& path);

// Appends whole sizes to a profile file and flushes after each.
class ProfileWriter {
 public:
  // Opens `path` for appending; writes the header when the file is new or empty. With
  // `rewrite_rows`, the file is first replaced (atomically) by the header and these rows: that
  // is how a resumed profile drops a partial last size.
  ProfileWriter(const std::string& path, const std::vector<ProfileRow>* rewrite_rows = nullptr);
  ~ProfileWriter();
  ProfileWriter(const ProfileWriter&) = delete;
  ProfileWriter& operator=(const ProfileWriter&) = delete;
  void write(const std::vector<ProfileRow>& rows);

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
};

}  // namespace ctrl::workloads
