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
//                    (measured or estimated, as energy_provenance says)
//   reps, batch      measured rounds, and this processor's runs per round (mean, rounded): in a
//                    round every processor repeats its block back to back until the round's time
//                    is up, so that all work together throughout (docs/loop.md)
//   time_ci          half-width of the 95 % confidence interval of the mean time, s
//   energy_ci        the same for the dynamic energy, J (empty without a sensor)
//   energy_measured  the mean dynamic energy before clamping, J (empty without a sensor)
//   base_power       the device's base power used, W (empty without a sensor)
//   energy_source    the meter ("nvml:0", "estimate:cpu:0-7"), or "none" when the processor has no
//                    sensor of its own
//   energy_provenance  measured (a counter), estimated (energy/estimate.hpp), or absent (with
//                    energy_source "none"). Files written before this column existed are read
//                    (their energies measured where they have a source) and rewritten with it
//                    when resumed.
//   converged        1 when the confidence intervals met the precision asked for, else 0
//   gflops           speed, as in the paper's figures
//   app, cols        the application, with the parameters that differ from its defaults
//                    ("jacobi iterations=50": Workload::identity), and its fixed dimension N
//   held_power       the device's power above base_power right after this size's rounds, W,
//                    measured over an idle window as long as a round (empty without a sensor or
//                    without idle windows): what it draws while the others finish (docs/energy.md,
//                    "Held power"). Files written before this column existed are read with it
//                    empty (held power unknown: 0 W in predictions, with a note) and rewritten with
//                    it when resumed.
//   granularity      the workload's granularity: the rows of a part are a multiple of it (the
//                    model interpolates between measured sizes at this step). Files written before
//                    this column existed are read with 1.
//   exchange_time    for a workload that exchanges halos, the part of `time` spent exchanging with
//                    the neighbours (copies and the wait for theirs), s per run; empty otherwise. A
//                    processor given the whole workload has no neighbour and does not pay it.
//   measured_in      profile, or run: a row a run added (`ctrl run --learn`, learn.hpp), the
//                    processor's own time and energy within the distribution that was run. At a
//                    size with both, fronts and predictions take the last run's. Files written
//                    before this column existed are read as measured in the profile.
//
// Rows are written one step at a time: every processor's row at its size of that step, in the
// processors' order, then a flush, so that an interrupted profile holds only complete steps, plus
// at most one partial step (dropped when read).
#pragma once
#include <ctrl/energy/meter.hpp>
#include <ctrl/io/files.hpp>
#include <ctrl/partition/profile.hpp>
#include <ctrl/threads.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ctrl::loop {

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
  energy::Provenance energy_provenance = energy::Provenance::absent;
  bool converged = false;
  double gflops = 0.0;
  std::string app;
  index_t cols = 0;
  std::optional<double> held_power;
  index_t granularity = 1;              // the workload's: parts are multiples of it
  std::optional<double> exchange_time;  // s per run spent exchanging halos (in `time`); none: no halo
  bool learned = false;                 // measured in a run (measured_in = run), not in the profile
};

// The header line, without the newline.
std::string profile_header();
// One row, without the newline (fields quoted where they hold commas or quotes). UsageError for a
// row whose energy_provenance is absent with a source, or present without one.
std::string format_profile_row(const ProfileRow& row);

// What an existing profile file holds.
struct ProfileFile {
  std::vector<ProfileRow> rows;          // the profile's complete steps only, in file order
  std::vector<ProfileRow> learned;       // the rows runs added (measured_in = run), in file order
  std::vector<std::size_t> step_of_row;  // each row's step (0, 1, ...), as rows
  std::vector<std::string> processors;   // in order of first appearance
  std::vector<index_t> complete_sizes;   // sizes measured on every processor, ascending
  std::size_t dropped_rows = 0;          // rows of incomplete steps, and a partial last line
  bool earlier_format = false;           // written before the current format's columns existed
  bool cut_short = false;                // the text ends without a newline (an interrupted write)
};

// Reads a file written by `ctrl profile`, now or before energy_provenance existed (an input: a
// FIFO or a device is refused, not waited on). A missing or empty file gives an empty result. A
// file with another header, a header cut short, or malformed rows (an energy_provenance other than
// measured, estimated, absent, or absent with a source), throws UsageError naming file and line.
ProfileFile read_profile_file(const std::string& path);
// The same for a file's text, read by the caller.
ProfileFile parse_profile_file(const std::string& text, const std::string& path);

// Each processor's base power as the profile measured (or was given) it, W: its first row's
// base_power, in the file's order of processors. A processor without a sensor has none and is
// left out. What `ctrl run` compares measured energy with, and what `ctrl pareto --energy total`
// sums when no --base-power is given.
std::vector<std::pair<std::string, double>> base_powers(const ProfileFile& file);

// Each processor's held power: the mean of its rows' held_power, in the file's order of processors;
// nullopt for a processor without any (no sensor, no idle windows, or a file written before the
// column existed).
std::vector<std::optional<double>> held_powers(const ProfileFile& file);

// Each processor's energy provenance (its first row's; `ctrl profile` keeps them alike, refusing to
// resume a file with another energy source), in the file's order of processors.
std::vector<energy::Provenance> processor_provenance(const ProfileFile& file);

// The processors of the file whose energy is neither measured nor estimated (energy_provenance
// absent), in the file's order.
std::vector<std::string> processors_without_energy(const ProfileFile& file);

// A front of time and energy asked for on a profile where some processor has no energy at all: its
// energy column is 0, and the front would count it as free (the tool's exit status 2).
class MissingEnergyError : public UsageError {
 public:
  using UsageError::UsageError;
};

// Throws MissingEnergyError when processors_without_energy(file) is not empty. The message names
// `path`, each such processor and what supplies its energy: for a CPU processor (cpu, offload) a
// new profile with `--cpu-power WATTS`; for the others nothing but a sensor. `time_only` says how
// the caller asks for time only instead ("--time-only", "--pick fastest").
void require_energy(const ProfileFile& file, const std::string& path, const std::string& time_only);

// The profile the partition library computes fronts from (ctrl/partition.hpp): every processor's
// (size, time, energy) points, in the file's order of processors; at a size a run measured too,
// the last run's.
partition::Profile to_partition_profile(const ProfileFile& file);

// A profile for fronts and predictions, from the file read once: one written by `ctrl profile`
// (its complete sizes; `file` holds its provenance), or any CSV naming processor, size, time and
// energy (partition::parse_profile_csv; `file` empty). UsageError naming file and line, also for a
// `ctrl profile` file without a complete size.
struct LoadedProfile {
  partition::Profile profile;
  std::optional<ProfileFile> file;
};
LoadedProfile read_profile(const std::string& path);

// Whether a file starts with profile_header(), or an earlier format's (false when missing or empty).
bool is_profile_file(const std::string& path);

// The profile file of one `ctrl profile`, held from before it is read until the command ends:
// opened (created when missing) and locked with flock(), so that a second `ctrl profile` on the
// same file fails at once instead of appending the same sizes again. Whole sizes are appended
// and synced one at a time.
class ProfileWriter {
 public:
  // Opens, locks and reads `path`. UsageError when it is not a regular file (or a symbolic link),
  // when another process holds its lock, or when it is not a profile to resume; messages name the
  // file as `option` does (`ctrl profile --out`, `ctrl run --learn`'s `--profile`). Where the
  // file system cannot lock the file (Lustre mounted without -o flock, some NFS mounts), also a
  // UsageError, unless `unlocked_ok` (`--no-lock`): it is then written unlocked, and keeping a
  // second writer away is the caller's care.
  explicit ProfileWriter(const std::string& path, std::string option = "--out", bool unlocked_ok = false);
  // Removes the file when this writer created it and wrote no row into it.
  ~ProfileWriter();
  ProfileWriter(const ProfileWriter&) = delete;
  ProfileWriter& operator=(const ProfileWriter&) = delete;

  // What the file held when it was opened (less the rows dropped).
  const ProfileFile& existing() const { return existing_; }
  // Drops the steps holding these rows (processor, size) from what the file keeps: rows that a
  // step about to be measured writes again (a step goes whole: the file holds whole steps only).
  // The file is rewritten without them before the first write. Returns the rows dropped.
  std::size_t drop(const std::vector<std::pair<std::string, index_t>>& rows);
  // Appends one size's rows. The first call prepares the file: the header into an empty one, or,
  // when an interruption left rows of an incomplete size, an atomic rewrite with the complete
  // sizes only (existing().rows), still locked.
  void write(const std::vector<ProfileRow>& rows);

 private:
  void start();
  void append(const std::string& text);
  [[noreturn]] void fail(const std::string& what) const;

  std::string path_, option_;
  io::FileDescriptor fd_;
  ProfileFile existing_;
  bool created_ = false, empty_ = false, started_ = false, wrote_ = false, rewrite_ = false;
};

}  // namespace ctrl::loop
