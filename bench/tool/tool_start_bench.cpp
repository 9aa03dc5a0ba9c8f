// Whole `ctrl` commands, started as a user starts them (fork, exec, wait), timed from outside:
// what a user waits for, including the dynamic loader and every library's start-up.
//
//   BM_Tool/help                 ctrl --help
//   BM_Tool/pareto_paper_scale   ctrl pareto on the HEPOPTA paper's scale (p = 5 processors,
//                                m = 450 sizes each, workload n = 268), table output
//   BM_Tool/devices              ctrl devices (loads the CUDA backend where the build has one)
#include "dgemm_like.hpp"

#include <benchmark/benchmark.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// The paper-scale profile as `ctrl pareto --profile` reads it, written once per process.
std::string paper_scale_profile() {
  static const std::string path = [] {
    namespace pb = ctrl::partition::bench;
    const auto profile = pb::dgemm_like(pb::measured_dgemm(CTRL_DGEMM_CSV), 5, 450);
    const fs::path file = fs::temp_directory_path() / ("ctrl-tool-start-" + std::to_string(::getpid()) + ".csv");
    std::ofstream out(file);
    out << "processor,size,time,energy\n";
    out.precision(17);
    for (std::size_t i = 0; i < profile.size(); ++i)
      for (const auto& pt : profile[i].points())
        out << profile[i].name() << ',' << pt.size << ',' << pt.time << ',' << pt.energy << '\n';
    if (!out) throw std::runtime_error("cannot write " + file.string());
    std::atexit(
        [] { fs::remove(fs::temp_directory_path() / ("ctrl-tool-start-" + std::to_string(::getpid()) + ".csv")); });
    return file.string();
  }();
  return path;
}

// Runs the tool with `args`, output discarded; false when it did not exit with 0.
bool run_tool(const std::vector<std::string>& args) {
  std::vector<char*> argv{const_cast<char*>(CTRL_TOOL)};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (std::freopen("/dev/null", "w", stdout) == nullptr) ::_exit(127);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void BM_Tool(benchmark::State& state, std::vector<std::string> args) {
  for (auto _ : state)
    if (!run_tool(args)) {
      state.SkipWithError("the command failed");
      break;
    }
}

}  // namespace

BENCHMARK_CAPTURE(BM_Tool, help, {"--help"})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Tool, pareto_paper_scale, {"pareto", "--profile", paper_scale_profile(), "--workload", "268"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Tool, devices, {"devices"})->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
