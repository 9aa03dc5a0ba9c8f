// ctrl: devices, power, profile, pareto, run. See docs/tool.md.
#include "dispatch.hpp"
#include "job.hpp"

int main(int argc, char** argv) {
  CLI::App app{"ctrl: controllers for CPU cores and accelerators, and workload distribution for time and energy"};
  app.require_subcommand(1);
  ctrl::tool::Job job;  // outlives the command: an MPI job ends (MPI_Finalize) after its report
  ctrl::tool::action run;
  ctrl::tool::add_devices(app, run, job);
  ctrl::tool::add_power(app, run);
  ctrl::tool::add_profile(app, run, job);
  ctrl::tool::add_pareto(app, run);
  ctrl::tool::add_run(app, run, job);
  return ctrl::tool::dispatch(app, run, argc, argv, &job);
}
