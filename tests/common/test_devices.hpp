// The devices the per-kind tests run on, and the fixture base that instantiates a test once per
// device (Kokkos-style: the sources in tests/kinds/ are written once and run on every kind).
//
//   class RolesTest : public ctrl::test::DeviceTest {};
//   TEST_P(RolesTest, InOnlyTileIsNeverCopiedBack) { ... ctl() ... }
//   CTRL_INSTANTIATE_DEVICE_TESTS(RolesTest);
//
// Which devices: "cpu:0" and "cpu" (all usable cores) always; "offload:0" and "offload" when this
// build of ctrl has the offload kind; "cuda:0" when the test file is compiled by nvcc (the CUDA
// copy of tests/kinds/) — where no GPU answers, its instances skip with "no CUDA device: ...".
// CTRL_TEST_DEVICES="cpu:0,cuda:0" replaces the list.
#pragma once
#include <ctrl/ctrl.hpp>

#if defined(__CUDACC__) && CTRL_HAVE_CUDA_BACKEND && __has_include(<ctrl/cuda.hpp>)
#include <ctrl/cuda.hpp>  // the CUDA copy of the per-kind tests: CUDA controllers and their context
#endif

#include <gtest/gtest.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace ctrl {
// gtest prints TransferStats in failure messages through this.
void PrintTo(const TransferStats& s, std::ostream* os);
}  // namespace ctrl

namespace ctrl::test {

// The device specs to test, for a test program compiled (or not) by nvcc.
std::vector<std::string> device_specs_for(bool compiled_by_nvcc);
// The device specs to test in this translation unit's program.
inline std::vector<std::string> device_specs() { return device_specs_for(CTRL_DEVICE_CODE != 0); }

// Every ordered pair of device_specs(), for tests of two controllers (TestWithParam<SpecPair>,
// instantiated with ValuesIn(spec_pairs()) and named by SpecPairName: "cpu_0__offload").
using SpecPair = std::tuple<std::string, std::string>;
inline std::vector<SpecPair> spec_pairs() {
  std::vector<SpecPair> pairs;
  const auto specs = device_specs();
  for (const auto& a : specs)
    for (const auto& b : specs) pairs.emplace_back(a, b);
  return pairs;
}

// Splits a CTRL_TEST_DEVICES list: entries are separated by ',', ';' or blanks, and a comma
// followed by a digit continues a core list ("cpu:0,2,cuda:0" -> "cpu:0,2", "cuda:0").
std::vector<std::string> split_device_list(std::string_view list);

// Whether this build of ctrl has a device kind (probed by creating a controller on its device 0).
bool kind_registered(const std::string& kind);

// A controller for a spec, or, for a CUDA spec whose device is absent, null with the reason.
// Errors for other kinds propagate: a kind under test that cannot open its device is a failure.
struct Opened {
  std::unique_ptr<Controller> controller;
  std::string skip_reason;
};
Opened open_controller(const std::string& spec);

// Kernels of the CPU family run as host code on host threads: they may throw, and CPU-specific
// variants (cpu, cpu_library) apply to them. False for GPU kinds.
bool runs_host_code(const Controller& c);

// "cpu:0-3" -> "cpu_0_3", for test names.
std::string param_name(const std::string& spec);

// Transfers expected of a controller: none on a shared-memory kind, `separate` on a kind with a
// memory space of its own.
::testing::AssertionResult moved(const Controller& c, const TransferStats& separate);

// Whether f() throws E with a message that contains every one of parts.
template <class E, class F>
::testing::AssertionResult throws_naming(F&& f, const std::vector<std::string>& parts) {
  try {
    f();
  } catch (const E& e) {
    const std::string_view m = e.what();
    for (const std::string& p : parts) {
      if (m.find(p) == std::string_view::npos) {
        return ::testing::AssertionFailure() << "the message \"" << m << "\" does not name \"" << p << "\"";
      }
    }
    return ::testing::AssertionSuccess() << e.what();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw another exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "threw nothing";
}

// A fixture whose tests run once per device spec; ctl() is a controller on it.
class DeviceTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override;
  void TearDown() override;

  Controller& ctl() { return *ctl_; }
  const std::string& spec() const { return GetParam(); }
  // Another controller on the same device (also after ctl_ was destroyed), with these options.
  std::unique_ptr<Controller> another(const ControllerOptions& options = {}) const;
  bool separate_memory() const { return !ctl_->shares_host_memory(); }
  bool host_code() const { return runs_host_code(*ctl_); }

  std::unique_ptr<Controller> ctl_;
};

struct SpecName {
  std::string operator()(const ::testing::TestParamInfo<std::string>& info) const { return param_name(info.param); }
};
struct SpecPairName {
  std::string operator()(const ::testing::TestParamInfo<SpecPair>& p) const {
    return param_name(std::get<0>(p.param)) + "__" + param_name(std::get<1>(p.param));
  }
};

}  // namespace ctrl::test

#define CTRL_INSTANTIATE_DEVICE_TESTS(Suite) \
  INSTANTIATE_TEST_SUITE_P(Devices, Suite, ::testing::ValuesIn(::ctrl::test::device_specs()), ::ctrl::test::SpecName{})
