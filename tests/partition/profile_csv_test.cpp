// Reading profiles: what is accepted, and every bad input with the file and line it names.
#include "test_support.hpp"

#include <ctrl/errors.hpp>

#include <string>

namespace ctrl::partition {
namespace {

std::string fixture(const std::string& name) { return std::string(CTRL_PARTITION_DATA) + "/" + name; }

// The message of the UsageError that reading `name` throws ("" when it does not throw).
std::string error_of(const std::string& name) {
  try {
    read_profile_csv(fixture(name));
  } catch (const ctrl::UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ProfileCsv, ReadsAProfile) {
  const Profile p = read_profile_csv(fixture("good.csv"));
  ASSERT_EQ(p.names(), (std::vector<std::string>{"cpu", "gpu"}));
  ASSERT_EQ(p[0].size(), 2u);
  EXPECT_EQ(p[0].find(2)->time, 2.0);
  EXPECT_EQ(p[0].find(2)->energy, 1.0);
  EXPECT_EQ(p[1].find(1)->time, 0.5);
  EXPECT_EQ(p[1].find(2), nullptr);
}

TEST(ProfileCsv, ColumnsInAnyOrderQuotesCrlfAndBom) {
  const Profile p = read_profile_csv(fixture("reordered.csv"));
  // Processors in the order of their first appearance; sizes sorted.
  ASSERT_EQ(p.names(), (std::vector<std::string>{"gpu \"big\"", "cpu"}));
  ASSERT_EQ(p[0].size(), 2u);
  EXPECT_EQ(p[0].points()[0].size, 1);
  EXPECT_EQ(p[0].points()[0].energy, 2.0);
  EXPECT_EQ(p[0].points()[1].time, 2.0);
  EXPECT_EQ(p[1].find(1)->energy, 4.0);
}

TEST(ProfileCsv, SizesInAnyOrder) {
  const Profile p = parse_profile_csv("processor,size,time,energy\na,3,3,3\nb,1,1,1\na,1,1,1\na,2,2,2\n", "mem");
  ASSERT_EQ(p.names(), (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(p[0].size(), 3u);
  EXPECT_EQ(p[0].points()[0].size, 1);
  EXPECT_EQ(p[0].points()[2].size, 3);
}

struct BadInput {
  const char* file;
  const char* where;    // the file:line prefix expected
  const char* message;  // a part of the message
};

class ProfileCsvBad : public ::testing::TestWithParam<BadInput> {};

TEST_P(ProfileCsvBad, NamesTheFileAndLine) {
  const BadInput& bad = GetParam();
  const std::string msg = error_of(bad.file);
  ASSERT_FALSE(msg.empty()) << bad.file << " was accepted";
  EXPECT_NE(msg.find(fixture(bad.file) + bad.where), std::string::npos) << msg;
  EXPECT_NE(msg.find(bad.message), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(
    EveryBadInput, ProfileCsvBad,
    ::testing::Values(BadInput{"missing_column.csv", ":1: ", "missing column 'energy'"},
                      BadInput{"non_numeric_time.csv", ":3: ", "non-numeric time 'fast'"},
                      BadInput{"non_numeric_size.csv", ":3: ", "non-numeric size 'two'"},
                      BadInput{"empty_energy.csv", ":3: ", "non-numeric energy ''"},
                      BadInput{"negative_time.csv", ":3: ", "time must not be negative"},
                      BadInput{"negative_energy.csv", ":2: ", "energy must not be negative"},
                      BadInput{"infinite_energy.csv", ":3: ", "energy must be finite"},
                      BadInput{"nan_time.csv", ":2: ", "time must be finite"},
                      BadInput{"fractional_size.csv", ":3: ", "size must be a positive integer, not '1.5'"},
                      BadInput{"zero_size.csv", ":2: ", "size must be a positive integer, not '0'"},
                      BadInput{"negative_size.csv", ":2: ", "size must be a positive integer, not '-4'"},
                      BadInput{"duplicate.csv", ":5: ", "processor 'cpu' has size 1 twice (first on line 2)"},
                      BadInput{"empty.csv", ": ", "the file is empty"},
                      BadInput{"header_only.csv", ": ", "no data rows"},
                      BadInput{"ragged.csv", ":3: ", "ragged row: 3 fields where the header has 4"},
                      BadInput{"no_such_file.csv", ": ", "no such file"}),
    [](const auto& param_info) {
      std::string name = param_info.param.file;
      return name.substr(0, name.find('.'));
    });

TEST(ProfileCsv, MoreBadText) {
  const auto message = [](const std::string& text) {
    try {
      parse_profile_csv(text, "t.csv");
    } catch (const ctrl::UsageError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message("processor,size,time,energy,size\na,1,1,1,1\n").find("t.csv:1: the column 'size' appears twice"),
            std::string::npos);
  EXPECT_NE(message("processor,size,time,energy\n,1,1,1\n").find("t.csv:2: empty processor name"), std::string::npos);
  EXPECT_NE(message("processor,size,time,energy\n\"a,1,1,1\n").find("t.csv:2: a quoted field is not closed"),
            std::string::npos);
  EXPECT_NE(message("processor,size,time,energy\na,99999999999999999999,1,1\n").find("t.csv:2: the size"),
            std::string::npos);
  EXPECT_NE(message("processor,size,time,energy\na,1,1e999,1\n").find("t.csv:2: the time must be finite"),
            std::string::npos);
  EXPECT_NE(message("processor,size,time,energy\na,+1,1,1\n").find("t.csv:2:"), std::string::npos);
  EXPECT_NE(message("\n\n  \n").find("t.csv: the file is empty"), std::string::npos);
  EXPECT_NE(message("processor,size,time,energy\n\n\n").find("t.csv: no data rows"), std::string::npos);
  EXPECT_NE(message("processor,size,time,energy\na,1,1,1\n\na,2,2\n").find("t.csv:4: ragged row"), std::string::npos);
  EXPECT_EQ(message("processor,size,time,energy\na, 7 ,1.5e-3, 2E2 \n"), "");
}

TEST(ProfileCsv, ProfileValidation) {
  EXPECT_THROW(ProcessorProfile("a", {{0, 1, 1}}), ctrl::UsageError);
  EXPECT_THROW(ProcessorProfile("a", {{1, -1, 1}}), ctrl::UsageError);
  EXPECT_THROW(ProcessorProfile("a", {{1, 1, std::nan("")}}), ctrl::UsageError);
  EXPECT_THROW(ProcessorProfile("a", {{1, 1, 1}, {1, 2, 2}}), ctrl::UsageError);
  EXPECT_THROW(ProcessorProfile("", {{1, 1, 1}}), ctrl::UsageError);
  EXPECT_THROW(Profile({ProcessorProfile("a", {{1, 1, 1}}), ProcessorProfile("a", {{2, 1, 1}})}), ctrl::UsageError);
  const ProcessorProfile ok("a", {{3, 3, 3}, {1, 1, 1}});
  EXPECT_EQ(ok.points()[0].size, 1);
  EXPECT_EQ(ok.max_size(), 3);
}

}  // namespace
}  // namespace ctrl::partition
