// The fixture of the `ctrl pareto` end-to-end tests (cli_test.cpp, analysis_cli_test.cpp): each
// test runs with the command-only driver and, when it is built, the full `ctrl` tool, in a scratch
// folder of its own.
#pragma once
#include "run_command.hpp"
#include "scratch_dir.hpp"
#include "test_support.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace ctrl::partition {

namespace fs = std::filesystem;

inline std::string fixture(const std::string& name) { return std::string(CTRL_PARTITION_DATA) + "/" + name; }

inline std::string slurp(const fs::path& path) { return ctrl::test::read_file(path); }

using Result = ctrl::test::CommandResult;

class Cli : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam().empty() || !fs::exists(GetParam())) GTEST_SKIP() << "not built: " << GetParam();
  }

  Result run(const std::vector<std::string>& args) const {
    std::vector<std::string> argv{GetParam(), "pareto"};
    argv.insert(argv.end(), args.begin(), args.end());
    return ctrl::test::run_command(argv, dir_);
  }

  ctrl::test::ScratchDir dir_{"ctrl-pareto"};
};

// The binaries every test runs, and their names in the tests' names.
inline auto binaries() { return ::testing::Values(std::string(CTRL_PARETO_CLI), std::string(CTRL_TOOL)); }
inline std::string binary_name(const ::testing::TestParamInfo<std::string>& info) {
  return info.index == 0 ? "command" : "tool";
}

}  // namespace ctrl::partition
