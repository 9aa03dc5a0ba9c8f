#include "dispatch.hpp"

#include <ctrl/errors.hpp>

#include <cstdio>
#include <exception>

namespace ctrl::tool {

int dispatch(CLI::App& app, const action& run, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? exit_ok : exit_bad_input;
  }
  try {
    return run();
  } catch (const exit_error& e) {
    std::fprintf(stderr, "ctrl: %s\n", e.what());
    return e.code;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "ctrl: %s\n", e.what());
    return exit_bad_input;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ctrl: %s\n", e.what());
    return exit_failure;
  }
}

}  // namespace ctrl::tool
