// `ctrl pareto` on its own: the tool's own command sources (tools/ctrl/pareto_command.cpp and the
// front_* files) behind a main() like tools/ctrl/main.cpp, so that the command's behaviour and exit
// codes are tested without the runtime the full tool links.
#include "command.hpp"

#include <ctrl/errors.hpp>

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  CLI::App app{"ctrl (pareto only, for tests)"};
  app.require_subcommand(1);
  ctrl::tool::action run;
  ctrl::tool::add_pareto(app, run);
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
