// `ctrl profile`: measure every processor at every size, all processors at the same time, and
// append the results to a profile file that an interrupted run resumes (docs/loop.md).
#pragma once
#include <ctrl/loop/measure.hpp>
#include <ctrl/loop/profile_file.hpp>
#include <ctrl/loop/team.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ctrl::loop {

struct ProfileRequest {
  index_t cols = 0;                                      // N; 0: the file's (when resuming) or the app's default
  std::vector<DeviceSpec> devices;
  std::vector<index_t> sizes;
  std::string out;                                       // the profile file
  StopRule rule;
  TeamOptions team;
  std::vector<std::pair<std::string, double>> base_power; // given base powers, W, by processor name
  double idle_seconds = 2.0;                             // idle window for the others (0: none)
  std::uint64_t seed = 1;
};

class ProfileObserver {
 public:
  virtual ~ProfileObserver() = default;
  virtual void note(const std::string& /*line*/) {}
  // The sizes to measure now (the file's complete ones left out), and how many were there.
  virtual void plan(const std::vector<index_t>& /*to_measure*/, std::size_t /*already_done*/) {}
  virtual void size_begin(index_t /*size*/, std::size_t /*k*/) {}
  virtual void round(index_t /*size*/, const RoundProgress& /*p*/) {}
  virtual void size_end(index_t /*size*/, const MeasureResult& /*m*/, const std::vector<ProfileRow>& /*rows*/) {}
};

struct ProfileOutcome {
  std::size_t measured = 0;       // sizes measured now
  std::size_t resumed = 0;        // sizes found complete in the file
  std::size_t unconverged = 0;    // sizes whose intervals stayed wider than asked
  bool interrupted = false;
  index_t cols = 0;
  std::vector<ProcessorInfo> processors;
  std::optional<double> platform_base_power;  // sum over processors with energy, W
};

// On the processors of request.devices (a Team of this process).
ProfileOutcome run_profile(const Workload& app, const ProfileRequest& request, ProfileObserver& observer,
                           const StopFlag* stop = nullptr);
// On a platform made by the caller (request.devices unused): a Team, or the ranks of an MPI job,
// where the root reads and writes the profile file and every member measures its processors.
ProfileOutcome run_profile(const Workload& app, const ProfileRequest& request, Platform& platform,
                           ProfileObserver& observer, const StopFlag* stop = nullptr);

}  // namespace ctrl::loop
