// ctrl: devices, power, profile, pareto, run. See docs/tool.md.
#include "dispatch.hpp"
#include "platform_choice.hpp"

int main(int argc, char** argv) {
  CLI::App app{"ctrl: controllers for CPU cores and accelerators, and workload distribution for time and energy"};
  app.require_subcommand(1);
  ctrl::tool::action run;
  ctrl::tool::add_devices(app, run);
  ctrl::tool::add_power(app, run);
  ctrl::tool::add_profile(app, run);
  ctrl::tool::add_pareto(app, run);
  ctrl::tool::add_run(app, run);
  const int rc = ctrl::tool::dispatch(app, run, argc, argv);
  ctrl::tool::finish_distributed();
  return rc;
}
