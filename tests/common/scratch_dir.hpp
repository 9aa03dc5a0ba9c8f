// A fresh folder for one test's files, removed with everything in it when the test is done. Its
// name says what made it and is unique per process and test (ctest runs every test case as a
// process of its own, many at once; cases of one process run one after another), so that tests
// never see each other's files, nor what a killed earlier run left (removed first).
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace ctrl::test {

class ScratchDir {
 public:
  // "<temp>/<purpose>-<pid>-<suite>-<test>-<n>" (n counts the folders this process made).
  explicit ScratchDir(std::string_view purpose) {
    static std::atomic<int> made{0};
    std::string name = std::string(purpose) + "-" + std::to_string(::getpid());
    if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info()) {
      name += std::string("-") + info->test_suite_name() + "-" + info->name();
    }
    name += "-" + std::to_string(made++);
    for (char& c : name)
      if (c == '/') c = '_';  // parameterized names: "Suite/Test/0"
    path_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ec;
    // A test may have taken write permission away to provoke a failure: give it back first.
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }

  const std::filesystem::path& path() const { return path_; }
  operator const std::filesystem::path&() const { return path_; }  // NOLINT: a folder is a path
  std::filesystem::path operator/(const std::filesystem::path& name) const { return path_ / name; }
  std::string string() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace ctrl::test
