// Helpers shared by the energy tests: meters with known behaviour and a private temp directory.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include <ctrl/energy/clock.hpp>
#include <ctrl/energy/meter.hpp>
#include <ctrl/errors.hpp>

#include "scratch_dir.hpp"

namespace ctrl::energy::testing {

// A device drawing a constant `watts`: energy is watts × time since construction on `clock`.
// Measured on the same clock (a test's TickingClock), any window measures exactly that power.
class ConstantPowerMeter final : public Meter {
 public:
  ConstantPowerMeter(double watts, Clock& clock, std::string name = "test:constant", bool has_power = true)
      : watts_(watts), clock_(clock), t0_(clock.now()) {
    info_.name = std::move(name);
    info_.measures = "a test device at constant power";
    info_.update_interval_s = 0.0;
    info_.has_power = has_power;
  }
  const MeterInfo& info() const override { return info_; }
  bool available() const override { return true; }
  std::optional<double> energy_j() override {
    ++reads;
    if (fail_after >= 0 && reads > fail_after) throw DeviceError(info_.name + ": sensor lost");
    const std::chrono::duration<double> t = clock_.now() - t0_;
    return watts_ * t.count();
  }
  std::optional<double> power_w() override {
    if (!info_.has_power) return std::nullopt;
    return watts_;
  }

  std::atomic<int> reads{0};
  int fail_after = -1;  // throw DeviceError from this many reads on (-1: never)

 private:
  double watts_;
  Clock& clock_;
  Clock::time_point t0_;
  MeterInfo info_;
};

// Waits until `pred` holds: for another thread's progress (a sampler's polls), never for a
// time. The bound only turns a hang into a failure.
template <class Pred>
::testing::AssertionResult eventually(Pred pred) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!pred()) {
    if (std::chrono::steady_clock::now() > give_up) return ::testing::AssertionFailure() << "never happened";
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return ::testing::AssertionSuccess();
}

// A fresh directory per test (tests/common/scratch_dir.hpp), removed afterwards with its contents.
class TempDir : public ::ctrl::test::ScratchDir {
 public:
  TempDir() : ScratchDir("ctrl-energy") {}
};

inline void write_file(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << "cannot write " << file;
}

// One powercap zone as the kernel lays it out (flat, as in /sys/class/powercap itself).
inline void write_zone(const std::filesystem::path& root, const std::string& zone, const std::string& name,
                       unsigned long long energy_uj, unsigned long long max_range_uj = 262143328850ULL) {
  write_file(root / zone / "name", name + "\n");
  write_file(root / zone / "energy_uj", std::to_string(energy_uj) + "\n");
  write_file(root / zone / "max_energy_range_uj", std::to_string(max_range_uj) + "\n");
}

// A two-socket machine: packages 0 and 1, each with dram; package 0 also has core.
inline void write_two_socket_tree(const std::filesystem::path& root) {
  write_zone(root, "intel-rapl:0", "package-0", 1'000'000);
  write_zone(root, "intel-rapl:0:0", "core", 400'000);
  write_zone(root, "intel-rapl:0:1", "dram", 200'000, 65532610987ULL);
  write_zone(root, "intel-rapl:1", "package-1", 3'000'000);
  write_zone(root, "intel-rapl:1:0", "dram", 500'000, 65532610987ULL);
  // The control type directory and the MMIO duplicate exist on real machines and are skipped.
  std::filesystem::create_directories(root / "intel-rapl");
  write_zone(root, "intel-rapl-mmio:0", "package-0", 9'999);
}

}  // namespace ctrl::energy::testing
