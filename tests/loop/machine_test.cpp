// The processors the loop suggests for a machine (suggested_processors): CPU groups of consecutive
// usable cores, then every GPU, one core set aside for each GPU's host thread where cores remain.
// Machines are described by hand, so that a node of several GPUs is tested on any machine.
#include <ctrl/loop/machine.hpp>

#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

namespace {

using ctrl::loop::Machine;
using ctrl::loop::suggested_processors;

Machine machine(int cores, int gpus) {
  Machine m;
  m.cores.resize(static_cast<std::size_t>(cores));
  std::iota(m.cores.begin(), m.cores.end(), 0);
  m.usable = m.cores;
  m.cuda_backend = gpus > 0;
  for (int g = 0; g < gpus; ++g) {
    ctrl::GpuInfo info;
    info.index = g;
    info.name = "a GPU";
    info.pci_bus_id = "0000:1" + std::to_string(g) + ":00.0";
    m.gpus.push_back(info);
  }
  return m;
}

std::vector<std::string> names(const std::vector<ctrl::DeviceSpec>& devices) {
  std::vector<std::string> out;
  for (const auto& d : devices) out.push_back(d.str());
  return out;
}

TEST(SuggestedProcessors, EveryGpuAfterTheCpuGroupsWithACoreSetAsideForEach) {
  EXPECT_EQ(names(suggested_processors(machine(16, 2), 1)), (std::vector<std::string>{"cpu:0-13", "cuda:0", "cuda:1"}));
  EXPECT_EQ(names(suggested_processors(machine(16, 4), 2)),
            (std::vector<std::string>{"cpu:0-5", "cpu:6-11", "cuda:0", "cuda:1", "cuda:2", "cuda:3"}));
  EXPECT_EQ(names(suggested_processors(machine(8, 0), 2)), (std::vector<std::string>{"cpu:0-3", "cpu:4-7"}));
}

TEST(SuggestedProcessors, FewCoresAreNotGivenUpForTheGpus) {
  // Two cores a CPU group must remain after one core per GPU; otherwise every core is a worker.
  EXPECT_EQ(names(suggested_processors(machine(3, 2), 1)), (std::vector<std::string>{"cpu:0-2", "cuda:0", "cuda:1"}));
  EXPECT_EQ(names(suggested_processors(machine(4, 2), 1)), (std::vector<std::string>{"cpu:0-1", "cuda:0", "cuda:1"}));
}

TEST(SuggestedProcessors, OnlyTheUsableCoresAreGrouped) {
  Machine m = machine(16, 2);
  m.usable = {4, 5, 6, 7, 8, 9, 10, 11};  // an affinity mask of 8 cores
  EXPECT_EQ(names(suggested_processors(m, 2)), (std::vector<std::string>{"cpu:4-6", "cpu:7-9", "cuda:0", "cuda:1"}));
}

}  // namespace
