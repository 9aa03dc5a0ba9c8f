// `ctrl pareto` on its own: the tool's pareto command (tools/ctrl/cli/pareto_command.cpp and the
// front_* files) behind a main() like tools/ctrl/main.cpp, so that the command's behaviour and exit
// codes are tested with this command alone registered.
#include "dispatch.hpp"

int main(int argc, char** argv) {
  CLI::App app{"ctrl (pareto only, for tests)", "ctrl"};
  ctrl::tool::action run;
  ctrl::tool::add_pareto(app, run);
  return ctrl::tool::dispatch(app, run, argc, argv);
}
