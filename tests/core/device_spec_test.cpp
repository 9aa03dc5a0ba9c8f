// DeviceSpec: the text that names a device ("cpu", "cpu:0-3", "cpu:0,2,4-7", "cpu:x4", "cuda:1",
// "offload:0-3"), its canonical form, the core-list helpers, and every malformed input.
#include <ctrl/ctrl.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using ctrl::DeviceSpec;
using ctrl::parse_device;

TEST(DeviceSpecParse, CpuAloneMeansAllUsableCores) {
  const DeviceSpec s = parse_device("cpu");
  EXPECT_EQ(s.kind, "cpu");
  EXPECT_TRUE(s.cores.empty());
  EXPECT_EQ(s.count, 0);
  EXPECT_EQ(s.index, -1);
  EXPECT_EQ(s, ctrl::cpu());
}

TEST(DeviceSpecParse, CoreListsAndRanges) {
  EXPECT_EQ(parse_device("cpu:0-3").cores, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(parse_device("cpu:0,2,4-7").cores, (std::vector<int>{0, 2, 4, 5, 6, 7}));
  EXPECT_EQ(parse_device("cpu:5").cores, (std::vector<int>{5}));
  EXPECT_EQ(parse_device("cpu:3-3").cores, (std::vector<int>{3}));
  EXPECT_EQ(parse_device("cpu:7,1").cores, (std::vector<int>{7, 1}));  // order kept
  EXPECT_EQ(parse_device("cpu:4-7"), ctrl::cpu_range(4, 7));
  EXPECT_EQ(parse_device("cpu:4,5,6,7"), ctrl::cpu({4, 5, 6, 7}));
}

TEST(DeviceSpecParse, CoreCount) {
  const DeviceSpec s = parse_device("cpu:x4");
  EXPECT_TRUE(s.cores.empty());
  EXPECT_EQ(s.count, 4);
  EXPECT_EQ(s, ctrl::cpu_count(4));
}

TEST(DeviceSpecParse, CudaDevices) {
  EXPECT_EQ(parse_device("cuda:1").index, 1);
  EXPECT_EQ(parse_device("cuda:0"), ctrl::cuda(0));
  EXPECT_EQ(parse_device("cuda").index, 0);  // the first GPU
  EXPECT_TRUE(parse_device("cuda:3").cores.empty());
}

TEST(DeviceSpecParse, OffloadTakesCoresLikeCpu) {
  const DeviceSpec s = parse_device("offload:0-3");
  EXPECT_EQ(s.kind, "offload");
  EXPECT_EQ(s.cores, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(s, ctrl::offload({0, 1, 2, 3}));
  EXPECT_EQ(parse_device("offload").kind, "offload");
}

TEST(DeviceSpecParse, UnknownKindsStillParse) {  // whether the build has the kind is the controller's question
  const DeviceSpec s = parse_device("fpga_2:1-2");
  EXPECT_EQ(s.kind, "fpga_2");
  EXPECT_EQ(s.cores, (std::vector<int>{1, 2}));
}

TEST(DeviceSpecFormat, CanonicalTextRoundTrips) {
  for (const char* text :
       {"cpu", "cpu:0-3", "cpu:0,2,4-7", "cpu:x4", "cuda:0", "cuda:7", "offload:0-3", "offload:1,3"}) {
    SCOPED_TRACE(text);
    EXPECT_EQ(parse_device(text).str(), text);
    EXPECT_EQ(parse_device(parse_device(text).str()), parse_device(text));
  }
  EXPECT_EQ(parse_device("cpu:0,1,2,3").str(), "cpu:0-3");  // compacted
  EXPECT_EQ(parse_device("cuda").str(), "cuda:0");
  EXPECT_EQ(ctrl::cpu({6, 4, 5}).str(), "cpu:6,4-5");
}

TEST(DeviceSpecFormat, FormatCores) {
  EXPECT_EQ(ctrl::format_cores({}), "");
  EXPECT_EQ(ctrl::format_cores({5}), "5");
  EXPECT_EQ(ctrl::format_cores({0, 1, 2, 3, 6}), "0-3,6");
  EXPECT_EQ(ctrl::format_cores({0, 2, 4}), "0,2,4");
  EXPECT_EQ(ctrl::format_cores({1, 2, 4, 5, 6, 9}), "1-2,4-6,9");
}

TEST(DeviceSpecFormat, ParseCoresInvertsFormatCores) {
  const std::vector<int> cores{0, 1, 2, 3, 6, 8, 9, 10, 15};
  EXPECT_EQ(ctrl::parse_cores(ctrl::format_cores(cores)), cores);
  EXPECT_EQ(ctrl::parse_cores("0-3,6"), (std::vector<int>{0, 1, 2, 3, 6}));
}

// Every malformed text is a UsageError whose message quotes the text.
TEST(DeviceSpecErrors, MalformedDeviceTexts) {
  const std::vector<std::string> bad = {
      "",         ":0",       "cpu:",  "cpu:a",  "cpu:3-1", "cpu:1,1",         "cpu:0-2,1",         "cpu:-1",
      "cpu:1,,2", "cpu:1-",   "cpu:-", "cpu:1,", "cpu:x0",  "cpu:x",           "cpu:x-2",           "cuda:x",
      "cuda:-1",  "cuda:1-2", "cuda:", "c pu:0", "cpu!:0",  "cpu:99999999999", "cpu:0-99999999999", "cpu:1.5",
      "cuda:0,1"};
  for (const std::string& text : bad) {
    SCOPED_TRACE("'" + text + "'");
    try {
      (void)parse_device(text);
      ADD_FAILURE() << "accepted";
    } catch (const ctrl::UsageError& e) {
      if (!text.empty()) {
        EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
      }
    }
  }
}

TEST(DeviceSpecErrors, MalformedCoreLists) {
  for (const char* list : {"", "a", "1,1", "3-1", "-1", "1,,2", "1-", "0-2,2", ",", "1;2"}) {
    SCOPED_TRACE(list);
    EXPECT_THROW((void)ctrl::parse_cores(list), ctrl::UsageError);
  }
}

TEST(DeviceSpecErrors, DuplicateCoreIsNamed) {
  try {
    (void)ctrl::parse_cores("0-3,2");
    ADD_FAILURE() << "accepted";
  } catch (const ctrl::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("core 2 appears twice"), std::string::npos) << e.what();
  }
}

TEST(DeviceSpecErrors, ConstructorHelpersRejectNonsense) {
  EXPECT_THROW((void)ctrl::cpu(std::vector<int>{}), ctrl::UsageError);
  EXPECT_THROW((void)ctrl::cpu_range(3, 1), ctrl::UsageError);
  EXPECT_THROW((void)ctrl::cpu_range(-1, 1), ctrl::UsageError);
  EXPECT_THROW((void)ctrl::cpu_count(0), ctrl::UsageError);
  EXPECT_THROW((void)ctrl::cuda(-1), ctrl::UsageError);
  EXPECT_THROW((void)ctrl::offload(std::vector<int>{}), ctrl::UsageError);
}

}  // namespace
