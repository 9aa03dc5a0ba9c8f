// The device-selection file: which controllers each process of an MPI job owns (docs/distributed.md).
//
//   # comments and blank lines are ignored
//   rank 0: cpu:0-6 cuda:0        the devices of rank 0
//   host node2: cpu:0-15          the devices of every rank on host node2
//   *: cpu                        the devices of any rank no other line names
//
// A rank takes its "rank" line, else its host's line, else the "*" line. Processors are then
// named HOST/DEVICE ("node2/cpu:0-15"): the same physical device keeps its name whichever rank
// runs it, so a front computed from a profile runs again under another placement of the ranks.
// Kept free of MPI: `ctrl devices` writes these files, and tests read them, without it.
#pragma once
#include <ctrl/device_spec.hpp>

#include <ctrl/loop/machine.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace ctrl::loop {

struct SelectionLine {
  enum class Who { rank, host, any };
  Who who = Who::any;
  int rank = -1;     // Who::rank
  std::string host;  // Who::host
  std::vector<DeviceSpec> devices;
  int line = 0;  // 1-based line in the file, for messages
};

struct Selection {
  std::string path;  // where it was read from, for messages
  std::vector<SelectionLine> lines;

  // The devices of `rank` on `host`; UsageError naming the file when no line applies.
  std::vector<DeviceSpec> devices_for(int rank, const std::string& host) const;
  // The file's text (a header comment, then one line per entry).
  std::string text() const;
};

// Parses a selection; UsageError "PATH:LINE: what is wrong" for malformed lines, duplicate
// entries and bad device specs, and for a selection without any line.
Selection parse_selection(std::string_view text, const std::string& path);
// Reads and parses a file; UsageError when it cannot be read.
Selection read_selection(const std::string& path);
// Writes the selection's text to `path` atomically (a temporary file renamed over it).
void write_selection(const std::string& path, const Selection& selection);

// This process's host name for selections and processor names: $CTRL_HOSTNAME when set (a
// container whose host name is not the node's), else gethostname().
std::string this_host();

// "HOST/DEVICE", a processor's name on a platform of several processes.
std::string processor_name(const std::string& host, const DeviceSpec& device);
// Splits "HOST/DEVICE"; a name without '/' has an empty host. UsageError for a malformed device.
std::pair<std::string, DeviceSpec> split_processor_name(std::string_view name);

// What one rank found on its machine, for suggest_selection.
struct RankMachine {
  int rank = 0;
  std::string host;
  Machine machine;
};

// A selection for these ranks: each host's usable cores are split evenly among its ranks (in
// rank order) and its GPUs dealt out to them in turn; each rank's share is then grouped as
// suggested_processors does (`cpu_groups` CPU groups, a host core left for each GPU).
// One rank per host gives "host" lines, several give "rank" lines.
Selection suggest_selection(const std::vector<RankMachine>& ranks, int cpu_groups);

}  // namespace ctrl::loop
