#include <ctrl/errors.hpp>
#include <ctrl/partition/profile.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace ctrl::partition {

namespace {

std::string describe(const std::string& name, const ProfilePoint& pt) {
  return "processor '" + name + "', size " + std::to_string(pt.size);
}

}  // namespace

ProcessorProfile::ProcessorProfile(std::string name, std::vector<ProfilePoint> points)
    : name_(std::move(name)), points_(std::move(points)) {
  if (name_.empty()) throw UsageError("a processor profile needs a non-empty name");
  for (const ProfilePoint& pt : points_) {
    if (pt.size <= 0) throw UsageError(describe(name_, pt) + ": a size must be a positive integer");
    if (!std::isfinite(pt.time) || pt.time < 0.0)
      throw UsageError(describe(name_, pt) + ": the time must be finite and non-negative");
    if (!std::isfinite(pt.energy) || pt.energy < 0.0)
      throw UsageError(describe(name_, pt) + ": the energy must be finite and non-negative");
  }
  std::stable_sort(points_.begin(), points_.end(),
                   [](const ProfilePoint& a, const ProfilePoint& b) { return a.size < b.size; });
  const auto dup = std::adjacent_find(points_.begin(), points_.end(),
                                      [](const ProfilePoint& a, const ProfilePoint& b) { return a.size == b.size; });
  if (dup != points_.end()) throw UsageError(describe(name_, *dup) + ": the size appears twice");
}

const ProfilePoint* ProcessorProfile::find(Size size) const noexcept {
  const auto it = std::lower_bound(points_.begin(), points_.end(), size,
                                   [](const ProfilePoint& pt, Size s) { return pt.size < s; });
  return it != points_.end() && it->size == size ? &*it : nullptr;
}

Profile::Profile(std::vector<ProcessorProfile> processors) {
  for (ProcessorProfile& proc : processors) add(std::move(proc));
}

void Profile::add(ProcessorProfile processor) {
  for (const ProcessorProfile& other : processors_)
    if (other.name() == processor.name())
      throw UsageError("processor '" + processor.name() + "' appears twice in the profile");
  processors_.push_back(std::move(processor));
}

std::vector<std::string> Profile::names() const {
  std::vector<std::string> out;
  out.reserve(processors_.size());
  for (const ProcessorProfile& proc : processors_) out.push_back(proc.name());
  return out;
}

}  // namespace ctrl::partition
