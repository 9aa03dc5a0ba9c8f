// ctrl: devices, profile, pareto, run. See docs/tool.md.
#include "command.hpp"

#include <ctrl/errors.hpp>

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  CLI::App app{"ctrl: controllers for CPU cores and accelerators, and workload distribution for time and energy"};
  app.require_subcommand(1);
  ctrl::tool::action run;
  ctrl::tool::add_devices(app, run);
  ctrl::tool::add_power(app, run);
  ctrl::tool::add_profile(app, run);
  ctrl::tool::add_pareto(app, run);
  ctrl::tool::add_run(app, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? ctrl::tool::exit_ok : ctrl::tool::exit_bad_input;
  }
  try {
    return run();
  } catch (const ctrl::tool::exit_error& e) {
    std::fprintf(stderr, "ctrl: %s\n", e.what());
    return e.code;
  } catch (const ctrl::UsageError& e) {
    std::fprintf(stderr, "ctrl: %s\n", e.what());
    return ctrl::tool::exit_bad_input;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ctrl: %s\n", e.what());
    return ctrl::tool::exit_failure;
  }
}
