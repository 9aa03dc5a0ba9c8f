// Inputs found by the fuzz targets in fuzz/ (each is also in fuzz/corpus/<target>/): what each
// did before its fix, and what it must do now.
#include "catalog/catalog.hpp"
#include <ctrl/loop/args.hpp>
#include <ctrl/loop/plan.hpp>
#include <ctrl/loop/profile_file.hpp>

#include <ctrl/errors.hpp>

#include "scratch_dir.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <utility>

namespace ctrl::loop {
namespace {

// A file holding `text` for the length of one test, in a scratch folder named after it.
class InputFile {
 public:
  explicit InputFile(const std::string& text) { std::ofstream(dir_ / "input", std::ios::binary) << text; }
  std::string path() const { return (dir_ / "input").string(); }

 private:
  ctrl::test::ScratchDir dir_{"ctrl-fuzz"};
};

// The message of the UsageError that `read_profile_file` throws for a file holding `text`.
std::string profile_file_error(const std::string& text) {
  const InputFile file(text);
  try {
    read_profile_file(file.path());
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

// Whether `ctrl run dgemm --front FILE --pick fastest` refuses a front holding `text` as bad input
// (exit status 2: a UsageError that is not an InfeasibleError), and its message (loop::plan_run,
// as the tool calls it).
std::pair<bool, std::string> front_error(const std::string& text) {
  const InputFile file(text);
  PlanRequest r;
  r.front = file.path();
  r.pick = Pick::parse("fastest");
  try {
    plan_run(apps::catalog().find("dgemm"), r);
  } catch (const InfeasibleError& e) {
    return {false, e.what()};
  } catch (const UsageError& e) {
    return {true, e.what()};
  }
  return {false, "no error"};
}

// fuzz/corpus/profile_file/size_beyond_index_t.csv: a size of 9.2e19 was converted from double to
// index_t, which is undefined behaviour (UBSan: "outside the range of representable values").
TEST(FuzzProfileFile, ASizeBeyondIndexTIsRefused) {
  const std::string message = profile_file_error(
      profile_header() +
      "\n\"host \"\"a\"\",b/cpu:0\",92233720368547758078,1,1,3,1,0,,,,none,absent,0,1,\"dgemm, x\",16,,1,,profile\n");
  EXPECT_NE(message.find(":2: the size '92233720368547758078' is too large"), std::string::npos) << message;
}

// fuzz/corpus/profile_file/reps_beyond_int.csv: reps of 2^31 wrapped to a negative int, which the
// file then rewritten on resume (format_profile_row) could not be read back from.
TEST(FuzzProfileFile, RepsBeyondIntAreRefused) {
  const std::string message =
      profile_file_error(profile_header() + "\ncpu:0,8,1,1,2147483648,1,0,,,,none,absent,0,1,dgemm,16,,1,,profile\n");
  EXPECT_NE(message.find(":2: reps '2147483648' is not a count"), std::string::npos) << message;
}

// fuzz/corpus/loop_args/sizes_at_index_t_max: the step past TO overflowed index_t (UBSan: signed
// integer overflow) when TO was within STEP of its largest value.
TEST(FuzzLoopArgs, SizesAtTheTopOfIndexT) {
  constexpr index_t top = std::numeric_limits<index_t>::max();
  EXPECT_EQ(parse_sizes("9223372036854775807:9223372036854775807:1"), std::vector<index_t>{top});
  EXPECT_EQ(parse_sizes("9223372036854775000:9223372036854775807:500"), (std::vector<index_t>{top - 807, top - 307}));
}

// fuzz/corpus/front/distribution_beyond_index_t.json: nlohmann's get<index_t> cast the part
// 1.9e19 (a float to JSON) to index_t, which is undefined behaviour.
TEST(FuzzFront, APartBeyondIndexTIsRefused) {
  const auto [bad_input, message] =
      front_error(R"({"processors":["cpu:0-3","cuda:0"],"workload":5,)"
                  R"("front":[{"time":1.1,"energy":13.0,"distribution":[19223372036854775807,4]}]})");
  EXPECT_TRUE(bad_input) << message;
  EXPECT_NE(message.find("a distribution part 1.9223372036854776e+19 is not an integer of at most 9223372036854775807"),
            std::string::npos)
      << message;
}

// fuzz/corpus/front/workload_float.json: the same for the workload.
TEST(FuzzFront, AWorkloadBeyondIndexTIsRefused) {
  const auto [bad_input, message] =
      front_error(R"({"processors":["cpu:0-3"],"workload":1e19,"front":[{"time":1,"energy":1,"distribution":[3]}]})");
  EXPECT_TRUE(bad_input) << message;
  EXPECT_NE(message.find("the workload 1e+19 is not an integer"), std::string::npos) << message;
}

}  // namespace
}  // namespace ctrl::loop
