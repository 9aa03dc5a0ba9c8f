#include "dispatch.hpp"

#include <ctrl/errors.hpp>

#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>

namespace ctrl::tool {

namespace {

int report(ErrorReport* how, const std::exception& e, int code) {
  const std::string prefix = how != nullptr ? how->prefix() : std::string();
  if (how != nullptr) how->before(e, code);
  std::fprintf(stderr, "ctrl: %s%s\n", prefix.c_str(), e.what());
  return code;
}

}  // namespace

int dispatch(CLI::App& app, const action& run, int argc, char** argv, ErrorReport* how) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? exit_ok : exit_bad_input;
  }
  try {
    return run();
  } catch (const exit_error& e) {
    return report(how, e, e.code);
  } catch (const UsageError& e) {
    return report(how, e, exit_bad_input);
  } catch (const std::bad_alloc&) {
    // Arrays name themselves (ctrl::throw_cannot_allocate); this is memory beside them.
    return report(how, std::runtime_error("not enough memory for the buffers beside the problem's arrays"), exit_failure);
  } catch (const std::exception& e) {
    return report(how, e, exit_failure);
  }
}

}  // namespace ctrl::tool
