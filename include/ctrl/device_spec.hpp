// Which device a controller owns: "cpu" (all usable cores), "cpu:0-3", "cpu:0,2,4-7",
// "cuda:0", "offload:0-3". The same text names a processor in profiles and fronts, so a
// distribution computed from a profile can be run directly.
#pragma once
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace ctrl {

struct DeviceSpec {
  std::string kind;        // "cpu", "cuda", "offload", ...
  std::vector<int> cores;  // CPU-style kinds: the cores; empty with count == 0 means all usable cores
  int count = 0;           // CPU-style kinds: the first `count` usable cores, when cores is empty
  int index = -1;          // accelerator kinds: the device number

  std::string str() const;  // canonical text: "cpu:0-3", "cuda:0", "cpu"
  // What is asked of a spec instead of comparing its kind's name: whether the device is host cores
  // (cpu, offload: named by its cores, run by pinned workers) rather than a numbered accelerator,
  // and whether it is an NVIDIA GPU (the cuda kind).
  bool on_cores() const { return index < 0; }
  bool is_cuda() const;
  friend bool operator==(const DeviceSpec&, const DeviceSpec&) = default;
};

// Parses the text forms above; throws UsageError naming the text and what is wrong.
DeviceSpec parse_device(std::string_view text);

// Formats a core list compactly: {0,1,2,3,6} -> "0-3,6".
std::string format_cores(const std::vector<int>& cores);
// Parses "0-3,6" -> {0,1,2,3,6}; throws UsageError on malformed lists, duplicates and negatives.
std::vector<int> parse_cores(std::string_view list);

// The cores of this machine that a CPU-style spec names: "cpu" every core this process may use (its
// affinity mask when ctrl was loaded), "the first n usable cores" for cpu_count(n), the listed
// ones otherwise; UsageError naming cores that do not exist or that this process may not use.
// What a CPU or offload controller of the spec runs on.
std::vector<int> cores_of(const DeviceSpec& spec);

// CPU cores: cpu() all usable cores, cpu({4,5,6,7}) those cores.
DeviceSpec cpu();
DeviceSpec cpu(std::initializer_list<int> cores);
DeviceSpec cpu(std::vector<int> cores);
DeviceSpec cpu_range(int first, int last);  // inclusive, as in "cpu:first-last"
DeviceSpec cpu_count(int n);                // the first n usable cores
// An NVIDIA GPU.
DeviceSpec cuda(int index);
// CPU cores with a memory space of their own (the coprocessor model, the Xeon Phi paper).
DeviceSpec offload(std::initializer_list<int> cores);
DeviceSpec offload(std::vector<int> cores);

}  // namespace ctrl
