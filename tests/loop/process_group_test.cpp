// The process group a program gives the loop (include/ctrl/loop/process_group.hpp): this process
// alone here (the MPI job's is tested end to end under mpirun, tests/distributed/mpi_cli_test.cpp).
#include <ctrl/loop/process_group.hpp>
#include <ctrl/loop/selection.hpp>

#include "scratch_dir.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

namespace {

using ctrl::parse_device;

TEST(ProcessGroup, ThisProcessIsAGroupOfOneWhoseCollectivesAreItsOwnValues) {
  const auto group = ctrl::loop::this_process();
  EXPECT_EQ(group->rank(), 0);
  EXPECT_EQ(group->size(), 1);
  EXPECT_TRUE(group->is_root());
  EXPECT_EQ(group->who(), "");
  EXPECT_EQ(group->host(), ctrl::loop::this_host());
  std::string text = "mine";
  group->broadcast(text, "a test");
  EXPECT_EQ(text, "mine");
  EXPECT_EQ(group->allgather("x", "a test"), std::vector<std::string>{"x"});
  group->abort(1, "returns at once in a group of one");  // nothing to end
  EXPECT_NO_THROW(ctrl::loop::agree_on_problem(*group, "saxpy --sizes 10"));
}

TEST(ProcessGroup, AnErrorOfThisProcessIsRaisedAsAgreedWithoutARankName) {
  const auto group = ctrl::loop::this_process();
  EXPECT_NO_THROW(ctrl::loop::raise_if_any(*group, "", "a test"));
  try {
    ctrl::loop::raise_if_any(*group, "the file is bad", "a test");
    FAIL() << "no error raised";
  } catch (const ctrl::loop::AgreedUsageError& e) {
    EXPECT_STREQ(e.what(), "the file is bad");
  }
}

TEST(ProcessGroup, ThisProcessPlatformIsATeamOfItsDevicesInTheOrderAsked) {
  const auto group = ctrl::loop::this_process();
  const std::vector<ctrl::DeviceSpec> mine{parse_device("cpu:0"), parse_device("offload:1")};
  const auto all = group->platform(mine);
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ(all->info(0).spec, mine[0]);

  // A front's order names the processors (as the device, or HOST/DEVICE with this host).
  const std::vector<std::string> order{ctrl::loop::processor_name(group->host(), mine[1]), "cpu:0"};
  const auto ordered = group->platform(mine, {}, &order);
  ASSERT_EQ(ordered->size(), 2u);
  EXPECT_EQ(ordered->info(0).spec, mine[1]);
  EXPECT_EQ(ordered->info(1).spec, mine[0]);

  const std::vector<std::string> absent{"cpu:5"};
  EXPECT_THROW((void)group->platform(mine, {}, &absent), ctrl::UsageError);
}

TEST(ProcessGroup, ASelectionFileGivesThisProcessItsLine) {
  const ctrl::test::ScratchDir dir("ctrl-group");
  const std::string path = (dir / "selection.txt").string();
  std::ofstream(path) << "rank 0: cpu:0 offload:1\n";
  const auto group = ctrl::loop::this_process();
  const auto platform = ctrl::loop::selection_platform(*group, path);
  ASSERT_EQ(platform->size(), 2u);
  EXPECT_EQ(platform->info(1).spec, parse_device("offload:1"));

  std::ofstream(path) << "rank 0: cpu:0\nrank 0: cpu:1\n";  // a duplicate entry: the file's error
  try {
    (void)ctrl::loop::selection_platform(*group, path);
    FAIL() << "a malformed selection was accepted";
  } catch (const ctrl::loop::AgreedUsageError& e) {
    EXPECT_NE(std::string(e.what()).find("selection.txt:2"), std::string::npos) << e.what();
  }
}

TEST(ProcessGroup, AnMpiJobNeedsABuildWithMpiAndAPositiveTimeout) {
  if (ctrl::loop::built_with_mpi()) {
    EXPECT_THROW((void)ctrl::loop::mpi_job(0.0), ctrl::UsageError);  // refused before MPI starts
  } else {
    try {
      (void)ctrl::loop::mpi_job();
      FAIL() << "an MPI job without MPI";
    } catch (const ctrl::UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("without MPI"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
