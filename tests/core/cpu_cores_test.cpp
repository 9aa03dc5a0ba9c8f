// Controllers of CPU cores: specs naming cores that do not exist are refused with the cores named;
// workers are pinned to the controller's cores; controllers on disjoint cores run at the same time
// (proved by a rendezvous that would never complete if they ran one after the other).
#include "host_sync.hpp"
#include "pinned_thread.hpp"

#include <ctrl/ctrl.hpp>

#include <gtest/gtest.h>

#include <sched.h>

#include <string>
#include <thread>
#include <vector>

namespace {

using ctrl::index_t;

using ctrl::test::allowed_cores;

// A core number no machine this runs on has.
int missing_core() { return static_cast<int>(std::thread::hardware_concurrency()) + 1000; }

bool message_has(const std::exception& e, const std::string& part) {
  return std::string(e.what()).find(part) != std::string::npos;
}

TEST(CpuCores, CoreThatDoesNotExistIsAUsageErrorNamingIt) {
  const int bad = missing_core();
  try {
    ctrl::Controller c(ctrl::cpu({bad}));
    ADD_FAILURE() << "a controller on core " << bad << " was created";
  } catch (const ctrl::UsageError& e) {
    EXPECT_TRUE(message_has(e, "core " + std::to_string(bad) + " does not exist")) << e.what();
  }
}

TEST(CpuCores, EveryMissingCoreOfAListIsNamed) {
  const int bad = missing_core();
  const std::string spec = "cpu:0," + std::to_string(bad) + "-" + std::to_string(bad + 2);
  try {
    ctrl::Controller c(spec);
    ADD_FAILURE() << spec << " was accepted";
  } catch (const ctrl::UsageError& e) {
    EXPECT_TRUE(message_has(e, spec)) << e.what();
    EXPECT_TRUE(message_has(e, "cores " + std::to_string(bad) + "-" + std::to_string(bad + 2) + " do not exist"))
        << e.what();
  }
}

TEST(CpuCores, MoreCoresThanTheProcessMayUseIsAUsageError) {
  const int too_many = static_cast<int>(allowed_cores().size()) + 1;
  try {
    ctrl::Controller c(ctrl::cpu_count(too_many));
    ADD_FAILURE() << "a controller on " << too_many << " cores was created";
  } catch (const ctrl::UsageError& e) {
    EXPECT_TRUE(message_has(e, "asks for " + std::to_string(too_many) + " cores")) << e.what();
  }
}

TEST(CpuCores, UnknownDeviceKindIsAUsageErrorListingTheKinds) {
  try {
    ctrl::Controller c("fpga:0");
    ADD_FAILURE() << "a controller of kind fpga was created";
  } catch (const ctrl::UsageError& e) {
    EXPECT_TRUE(message_has(e, "no device kind 'fpga'")) << e.what();
    EXPECT_TRUE(message_has(e, "cpu")) << e.what();
  }
}

TEST(CpuCores, ControllerDescribesItsCores) {
  const int core = allowed_cores().at(0);
  ctrl::Controller c(ctrl::cpu({core}));
  EXPECT_EQ(c.name(), "cpu:" + std::to_string(core));
  EXPECT_EQ(c.spec(), ctrl::cpu({core}));
  EXPECT_TRUE(c.shares_host_memory());
  EXPECT_NE(c.description().find("1 pinned worker on cores " + std::to_string(core)), std::string::npos)
      << c.description();
  ctrl::Controller all("cpu");
  EXPECT_EQ(all.name(), "cpu");
}

// Each worker reports the core it runs on.
struct WhereAmI {
  static constexpr const char* name = "where_am_i";
  void cpu_library(ctrl::CpuContext& ctx, ctrl::Out<int, 1> seen, ctrl::Out<int, 1> expected) const {
    ctx.parallel_for(ctx.workers(), [&](index_t begin, index_t end, int w) {
      for (index_t i = begin; i < end; ++i) {
        seen(i) = sched_getcpu();
        expected(i) = ctx.cores()[static_cast<std::size_t>(w)];
      }
    });
  }
};

void pin_self(const std::vector<int>& cores) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cores) CPU_SET(c, &set);
  ASSERT_EQ(sched_setaffinity(0, sizeof set, &set), 0);
}

// The host thread waits from the last core: a waiter on worker 0's core may run the launch itself
// as worker 0 (docs/model.md, "Launch cost on CPU cores"), and an unpinned one could then move.
TEST(CpuCores, WorkersRunOnTheControllersCores) {
  const std::vector<int> cores = allowed_cores();
  ctrl::Controller all(ctrl::cpu(cores));
  const auto n = static_cast<index_t>(cores.size());
  ctrl::Tile<int, 1> seen({n}, "seen"), expected({n}, "expected");
  all.attach(seen, expected);
  pin_self({cores.back()});
  all.launch<WhereAmI>(ctrl::Threads(n), seen, expected);
  all.detach(seen, expected);
  pin_self(cores);
  for (index_t w = 0; w < n; ++w) {
    EXPECT_EQ(expected(w), cores[static_cast<std::size_t>(w)]) << "worker " << w;
    EXPECT_EQ(seen(w), expected(w)) << "worker " << w << " is not pinned to its core";
  }
}

// Meets the kernel of the other controller, and records the core it ran on.
struct MeetOnCore {
  static constexpr const char* name = "meet_on_core";
  void cpu(const ctrl::CpuBlock& b, ctrl::Out<int, 1> core, ctrl::test::Rendezvous* r) const {
    if (b.worker != 0) return;
    core(0) = sched_getcpu();
    ctrl::test::meet(r);
  }
};

TEST(CpuCores, ControllersOnDisjointCoresRunConcurrently) {
  const std::vector<int> cores = allowed_cores();
  if (cores.size() < 2) GTEST_SKIP() << "needs two usable cores, this process has " << cores.size();
  ctrl::Controller first(ctrl::cpu({cores[0]})), second(ctrl::cpu({cores[1]}));
  ctrl::Tile<int, 1> where_first({1}, "where_first"), where_second({1}, "where_second");
  first.attach(where_first);
  second.attach(where_second);
  for (int round = 0; round < 3; ++round) {  // again and again: not a lucky first launch
    ctrl::test::Rendezvous meeting;
    first.launch<MeetOnCore>(ctrl::Threads(1), where_first, &meeting);
    second.launch<MeetOnCore>(ctrl::Threads(1), where_second, &meeting);
    EXPECT_NO_THROW(first.wait());
    EXPECT_NO_THROW(second.wait());
    EXPECT_EQ(meeting.arrived.load(), 2);
  }
  first.detach(where_first);
  second.detach(where_second);
  EXPECT_EQ(where_first(0), cores[0]);
  EXPECT_EQ(where_second(0), cores[1]);
}

}  // namespace
