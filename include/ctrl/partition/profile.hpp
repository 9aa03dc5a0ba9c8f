// Discrete performance and energy profiles of abstract processors: the input of HPOPTA, HEPOPTA
// and HTPOPTA (the HEPOPTA paper, section III).
//
// A processor's profile is a finite set of measured points: a workload size (a positive integer,
// in the application's units: rows, blocks, ...), its execution time in seconds and its dynamic
// energy in joules. Size 0 is implicit: a processor given no work takes no time and no energy.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ctrl::partition {

using Size = std::int64_t;  // a workload size, in the same units as the workload n

// One measured point of a processor's profile.
struct ProfilePoint {
  Size size = 0;        // > 0
  double time = 0.0;    // seconds, finite, >= 0
  double energy = 0.0;  // dynamic energy, joules, finite, >= 0
};

// The profile of one abstract processor: its name and its points, kept sorted by size.
class ProcessorProfile {
 public:
  ProcessorProfile() = default;
  // Validates the points (positive sizes, finite non-negative times and energies, no size twice)
  // and sorts them by size. Throws ctrl::UsageError naming the processor and the bad point.
  ProcessorProfile(std::string name, std::vector<ProfilePoint> points);

  const std::string& name() const noexcept { return name_; }
  std::span<const ProfilePoint> points() const noexcept { return points_; }
  std::size_t size() const noexcept { return points_.size(); }
  bool empty() const noexcept { return points_.empty(); }

  // The point measured for `size`, or nullptr when the profile has none. Size 0 has no point.
  const ProfilePoint* find(Size size) const noexcept;
  // The largest size in the profile (0 when empty).
  Size max_size() const noexcept { return points_.empty() ? 0 : points_.back().size; }

 private:
  std::string name_;
  std::vector<ProfilePoint> points_;
};

// The profiles of p abstract processors, in a fixed order: distributions list one workload per
// processor in this order.
class Profile {
 public:
  Profile() = default;
  // Throws ctrl::UsageError when two processors share a name.
  explicit Profile(std::vector<ProcessorProfile> processors);

  // Appends a processor; throws ctrl::UsageError when its name is taken.
  void add(ProcessorProfile processor);

  std::size_t size() const noexcept { return processors_.size(); }
  bool empty() const noexcept { return processors_.empty(); }
  const ProcessorProfile& operator[](std::size_t i) const noexcept { return processors_[i]; }
  auto begin() const noexcept { return processors_.begin(); }
  auto end() const noexcept { return processors_.end(); }
  std::vector<std::string> names() const;

 private:
  std::vector<ProcessorProfile> processors_;
};

}  // namespace ctrl::partition
