// The sizes of a profile that names none: a short calibration of every processor at once, then a
// grid per processor that covers the same range of times (profile.hpp, SizeCalibration).
#pragma once
#include <ctrl/loop/profile.hpp>

#include <vector>

namespace ctrl::loop::detail {

// Each processor's calibrated sizes (profile order), or empty when `stop` was set during the
// calibration. Every member of the platform calls it together; each decision depends only on the
// rounds' results, which every member shares. AgreedUsageError when a processor cannot hold the
// sizes asked for within the memory allowed.
std::vector<std::vector<index_t>> calibrate_sizes(const Workload& app, Platform& team, index_t cols, std::uint64_t seed,
                                                  const SizeCalibration& cal, const StopFlag* stop);

}  // namespace ctrl::loop::detail
