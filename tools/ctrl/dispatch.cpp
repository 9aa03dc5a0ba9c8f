#include "dispatch.hpp"

#include <ctrl/errors.hpp>
#include <ctrl/loop/plan.hpp>

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

int exit_code_of(const std::exception& e) {
  if (const auto* x = dynamic_cast<const exit_error*>(&e)) return x->code;
  if (dynamic_cast<const loop::InfeasibleError*>(&e) != nullptr) return exit_infeasible;
  if (dynamic_cast<const UsageError*>(&e) != nullptr) return exit_bad_input;
  return exit_failure;
}

int dispatch(CLI::App& app, const action& run, int argc, char** argv, ErrorReport* how) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? exit_ok : exit_bad_input;
  }
  try {
    return run();
  } catch (const std::bad_alloc&) {
    // Arrays name themselves (ctrl::throw_cannot_allocate); this is memory beside them.
    return report(how, std::runtime_error("not enough memory for the buffers beside the problem's arrays"), exit_failure);
  } catch (const std::exception& e) {
    return report(how, e, exit_code_of(e));
  }
}

}  // namespace ctrl::tool
