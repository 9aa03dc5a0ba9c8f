// The test suite's own device list (tests/common): what CTRL_TEST_DEVICES accepts, and the
// default list every per-kind test runs on.
#include "test_devices.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

using Specs = std::vector<std::string>;

TEST(TestDevices, EnvironmentListSplitsAtKindBoundaries) {
  EXPECT_EQ(ctrl::test::split_device_list("cpu:0,cuda:0"), (Specs{"cpu:0", "cuda:0"}));
  EXPECT_EQ(ctrl::test::split_device_list("cpu:0,2,4-5,cuda:1"), (Specs{"cpu:0,2,4-5", "cuda:1"}));
  EXPECT_EQ(ctrl::test::split_device_list(" cpu ; offload:0-1 "), (Specs{"cpu", "offload:0-1"}));
  EXPECT_EQ(ctrl::test::split_device_list("cpu,cpu:1"), (Specs{"cpu", "cpu:1"}));
  EXPECT_TRUE(ctrl::test::split_device_list("").empty());
}

TEST(TestDevices, DefaultListHasOneAndAllCpuCores) {
  if (std::getenv("CTRL_TEST_DEVICES")) GTEST_SKIP() << "CTRL_TEST_DEVICES replaces the default list";
  const Specs specs = ctrl::test::device_specs_for(false);
  ASSERT_GE(specs.size(), 2U);
  EXPECT_EQ(specs[0], "cpu:0");
  EXPECT_EQ(specs[1], "cpu");
  for (const std::string& s : specs)
    EXPECT_NE(ctrl::parse_device(s).kind, "cuda") << "host-compiled tests cannot run on " << s;
  EXPECT_EQ(ctrl::test::device_specs_for(true).back(), "cuda:0");
}

TEST(TestDevices, KindsAreProbedByOpeningAController) {
  EXPECT_TRUE(ctrl::test::kind_registered("cpu"));
  EXPECT_FALSE(ctrl::test::kind_registered("no_such_kind"));
}

TEST(TestDevices, ParameterNamesAreIdentifiers) {
  EXPECT_EQ(ctrl::test::param_name("cpu:0-3,5"), "cpu_0_3_5");
  EXPECT_EQ(ctrl::test::param_name("cpu"), "cpu");
}

}  // namespace
