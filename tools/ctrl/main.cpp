// ctrl: devices, power, profile, pareto, run. See docs/tool.md.
#include "dispatch.hpp"
#include "job.hpp"

#include <ctrl/config.hpp>
#include <ctrl/loop/process_group.hpp>

#include <string>

namespace {

// What --version prints: the version, and what this build can drive (a bug report needs both; a
// build without the CUDA backend explains "no device kind 'cuda' in this build").
std::string version_text() {
  return std::string("ctrl ") + CTRL_VERSION_STRING + "\nbackends: cpu, offload" +
         (CTRL_HAVE_CUDA_BACKEND ? ", cuda (the CUDA backend is built)"
                                 : " (no CUDA backend: configure with -DCTRL_CUDA=ON where nvcc exists)") +
         "; MPI: " + (ctrl::loop::built_with_mpi() ? "yes (--selection)" : "no");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ctrl: controllers for CPU cores and accelerators, and workload distribution for time and energy",
               "ctrl"};
  app.set_version_flag("-V,--version", version_text(), "Print the version and the backends of this build, and exit");
  ctrl::tool::Job job;  // outlives the command: an MPI job ends (MPI_Finalize) after its report
  ctrl::tool::action run;
  ctrl::tool::add_devices(app, run, job);
  ctrl::tool::add_power(app, run);
  ctrl::tool::add_profile(app, run, job);
  ctrl::tool::add_pareto(app, run);
  ctrl::tool::add_run(app, run, job);
  return ctrl::tool::dispatch(app, run, argc, argv, &job);
}
