// The device-selection file (parsing, errors with line numbers, which line a rank takes, the
// suggested selection for ranks sharing a host), processor names, and windowed problems: a rank's
// window of rows computes exactly the rows the whole problem would.
#include "catalog/catalog.hpp"
#include <ctrl/loop/selection.hpp>
#include <ctrl/loop/team.hpp>
#include <ctrl/loop/workload.hpp>

#include <ctrl/ctrl.hpp>
#include <ctrl/io/npy.hpp>

#include "scratch_dir.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace {

using namespace ctrl;
using namespace ctrl::loop;

std::string message_of(const auto& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no UsageError)";
}

TEST(Selection, ParsesRankHostAndDefaultLines) {
  const Selection s =
      parse_selection("# comment\n\nrank 1: cpu:0-3 cuda:0   # trailing\nhost node2: cpu:0-15\n*: cpu\n", "sel.txt");
  ASSERT_EQ(s.lines.size(), 3U);
  EXPECT_EQ(s.lines[0].line, 3);
  EXPECT_EQ(s.devices_for(1, "node2").size(), 2U) << "a rank line wins over the host line";
  EXPECT_EQ(s.devices_for(1, "node2")[1].str(), "cuda:0");
  EXPECT_EQ(s.devices_for(0, "node2")[0].str(), "cpu:0-15") << "then the host's line";
  EXPECT_EQ(s.devices_for(7, "elsewhere")[0].str(), "cpu") << "then '*'";
  // The text reads back to the same selection.
  const Selection again = parse_selection(s.text(), "again");
  ASSERT_EQ(again.lines.size(), 3U);
  EXPECT_EQ(again.devices_for(1, "x")[0].str(), "cpu:0-3");
}

TEST(Selection, ErrorsNameTheFileAndLine) {
  EXPECT_EQ(message_of([] { parse_selection("rank 0: cpu:0\nrank x: cpu:1\n", "s.txt"); }),
            "s.txt:2: 'x' is not a rank number (0, 1, ...)");
  EXPECT_EQ(message_of([] { parse_selection("rank 0: cpu:0\nrank 0: cpu:1\n", "s.txt"); }),
            "s.txt:2: rank 0 is already given on line 1");
  EXPECT_EQ(message_of([] { parse_selection("node1 cpu\n", "s.txt"); }),
            "s.txt:1: expected 'rank N: DEVICES', 'host NAME: DEVICES' or '*: DEVICES', got 'node1 cpu'");
  EXPECT_EQ(message_of([] { parse_selection("gpu 1: cpu:0\n", "s.txt"); }),
            "s.txt:1: 'gpu 1' names no rank or host: write 'rank N', 'host NAME' or '*'");
  EXPECT_EQ(message_of([] { parse_selection("*:\n", "s.txt"); }), "s.txt:1: * has no devices");
  EXPECT_NE(message_of([] { parse_selection("*: cpu:0-\n", "s.txt"); }).find("s.txt:1: "), std::string::npos);
  EXPECT_NE(message_of([] { parse_selection("# nothing\n", "s.txt"); }).find("s.txt: no selection lines"),
            std::string::npos);
  const Selection s = parse_selection("rank 0: cpu:0\n", "s.txt");
  EXPECT_EQ(message_of([&] { s.devices_for(1, "n1"); }),
            "s.txt: no line for rank 1 (host n1): add 'rank 1: DEVICES', 'host n1: DEVICES' or '*: DEVICES'");
  EXPECT_NE(message_of([] { read_selection("/nonexistent/sel.txt"); }).find("/nonexistent/sel.txt: cannot read"),
            std::string::npos);
}

TEST(Selection, WritesAtomically) {
  const ctrl::test::ScratchDir dir("ctrl-sel");
  const auto path = dir / "sel.txt";
  write_selection(path.string(), parse_selection("host a: cpu:0\n", "x"));
  EXPECT_EQ(read_selection(path.string()).devices_for(0, "a")[0].str(), "cpu:0");
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".tmp"));
  EXPECT_THROW(write_selection("/nonexistent/dir/sel.txt", parse_selection("*: cpu\n", "x")), UsageError);
}

RankMachine rank_on(int rank, const std::string& host, std::vector<int> cores, std::vector<int> gpus) {
  RankMachine r;
  r.rank = rank;
  r.host = host;
  r.machine.usable = std::move(cores);
  for (const int g : gpus) {
    GpuInfo info;
    info.index = g;
    r.machine.gpus.push_back(info);
  }
  return r;
}

TEST(Selection, SuggestionSplitsSharedHosts) {
  // One rank per host: host lines, each host whole (a core kept for the GPU's host thread).
  const Selection a =
      suggest_selection({rank_on(0, "n1", {0, 1, 2, 3, 4, 5, 6, 7}, {0}), rank_on(1, "n2", {0, 1, 2, 3}, {})}, 1);
  ASSERT_EQ(a.lines.size(), 2U);
  EXPECT_EQ(a.lines[0].who, SelectionLine::Who::host);
  EXPECT_EQ(a.devices_for(5, "n1")[0].str(), "cpu:0-6");
  EXPECT_EQ(a.devices_for(5, "n1")[1].str(), "cuda:0");
  EXPECT_EQ(a.devices_for(9, "n2")[0].str(), "cpu:0-3");
  // Two ranks on one host: rank lines, the cores halved and the GPUs dealt out.
  const Selection b = suggest_selection(
      {rank_on(0, "n1", {0, 1, 2, 3, 4, 5, 6, 7}, {0, 1}), rank_on(1, "n1", {0, 1, 2, 3, 4, 5, 6, 7}, {0, 1})}, 1);
  EXPECT_EQ(b.lines[0].who, SelectionLine::Who::rank);
  EXPECT_EQ(b.devices_for(0, "n1")[0].str(), "cpu:0-2");
  EXPECT_EQ(b.devices_for(0, "n1")[1].str(), "cuda:0");
  EXPECT_EQ(b.devices_for(1, "n1")[0].str(), "cpu:4-6");
  EXPECT_EQ(b.devices_for(1, "n1")[1].str(), "cuda:1");
  // More ranks than cores: a clear error.
  EXPECT_THROW(suggest_selection({rank_on(0, "n", {0}, {}), rank_on(1, "n", {0}, {})}, 1), UsageError);
  // A host name a line cannot hold (a newline would write a line of its own): rank lines, and the
  // file reads back to the same devices.
  const Selection c = suggest_selection({rank_on(0, "n1\n*: cpu:0", {0, 1}, {}), rank_on(1, "n2", {0, 1}, {})}, 1);
  EXPECT_EQ(c.lines[0].who, SelectionLine::Who::rank);
  const std::string text = c.text();
  EXPECT_EQ(text.find("*: cpu:0\n"), std::string::npos) << text;
}

TEST(Selection, ProcessorNames) {
  EXPECT_EQ(processor_name("node2", parse_device("cpu:0-3")), "node2/cpu:0-3");
  const auto [host, spec] = split_processor_name("node2/cuda:1");
  EXPECT_EQ(host, "node2");
  EXPECT_EQ(spec.str(), "cuda:1");
  EXPECT_EQ(split_processor_name("cpu:0").first, "");
  EXPECT_THROW(split_processor_name("node2/gpu:x"), UsageError);
  ::setenv("CTRL_HOSTNAME", "pretend-node", 1);
  EXPECT_EQ(this_host(), "pretend-node");
  ::unsetenv("CTRL_HOSTNAME");
  EXPECT_FALSE(this_host().empty());
}

// A rank's window of rows computes exactly the rows of the whole problem, for both applications.
TEST(Windows, AWindowComputesTheSameRowsAsTheWhole) {
  for (const char* name : {"dgemm", "fft2d"}) {
    const Workload& app = apps::catalog().find(name);
    Controller cpu0(cpu({0}));
    auto whole = app.make_problem(40, 32, 1, 9);
    auto window = app.make_problem(15, 32, 1, 9, /*first_row=*/20);
    EXPECT_EQ(window->first_row(), 20);
    whole->run_block(cpu0, {20, 35}, 0);
    window->run_block(cpu0, {20, 35}, 0);
    const auto a = whole->output_bytes({20, 35});
    const auto b = window->output_bytes({20, 35});
    ASSERT_EQ(a.size(), b.size()) << name;
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size()), 0) << name;
    EXPECT_TRUE(window->verify({{20, 35}}).ok) << name;
    // Rows outside the window are refused with the window named.
    EXPECT_NE(message_of([&] {
                window->run_block(cpu0, {10, 25}, 0);
              }).find("outside the problem's rows [20, 35)"),
              std::string::npos)
        << name;
    window->perturb_output(30, 3, 1.0);
    const Check bad = window->verify({{20, 35}});
    EXPECT_FALSE(bad.ok) << name;
    EXPECT_NE(bad.detail.find("30"), std::string::npos) << "the instance's row is named: " << bad.detail;
  }
}

TEST(Windows, TeamWritesTheOutputInBlockOrder) {
  Team team({cpu({0})});
  const Workload& app = apps::catalog().find("dgemm");
  const std::vector<Block> blocks{{0, 12}};
  auto problem = team.make_problem(app, blocks, 16, 3);
  problem->run_block(team.controller(0), blocks[0], 0);
  const ctrl::test::ScratchDir dir("ctrl-out");
  const auto path = dir / "out.npy";
  team.write_output(*problem, blocks, path.string());
  const auto c = npy::load<double>(path);
  ASSERT_EQ(c.shape, (std::vector<std::size_t>{12, 16}));
  EXPECT_EQ(std::memcmp(c.data.data(), problem->output_bytes(blocks[0]).data(), c.data.size() * sizeof(double)), 0);
}

}  // namespace
