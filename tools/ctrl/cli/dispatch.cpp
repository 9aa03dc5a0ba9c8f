#include "dispatch.hpp"

#include <ctrl/errors.hpp>
#include <ctrl/loop/plan.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
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

// "devices, power, profile, pareto, run": the subcommands that do something, for messages.
std::string subcommand_names(const CLI::App& app) {
  std::string names;
  for (const CLI::App* sub : app.get_subcommands(std::function<bool(const CLI::App*)>{}))
    if (sub->get_name() != "help") names += (names.empty() ? "" : ", ") + sub->get_name();
  return names;
}

// The help of `app` itself: App::help() would describe the subcommand the command line chose (help).
std::string help_of(const CLI::App& app, const std::string& prev = "") {
  return app.get_formatter()->make_help(&app, prev.empty() ? app.get_name() : prev + " " + app.get_name(),
                                        CLI::AppFormatMode::Normal);
}

// `ctrl help [SUBCOMMAND]`: the help on stdout, as --help; an unknown subcommand is bad input.
int print_help(const CLI::App& app, const std::string& topic) {
  if (topic.empty()) {
    std::cout << help_of(app);
    return exit_ok;
  }
  const CLI::App* sub = nullptr;
  try {
    sub = app.get_subcommand(topic);
  } catch (const CLI::OptionNotFound&) {
    throw exit_error(exit_bad_input,
                     "help: unknown subcommand '" + topic + "' (the subcommands: " + subcommand_names(app) + ")");
  }
  std::cout << help_of(*sub, app.get_name());
  return exit_ok;
}

// A command line CLI11 refused: --help and --version print and succeed; anything else is one
// "ctrl: " line on stderr saying what is wrong, and where to read more.
int parse_failure(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);  // stdout
  const std::vector<CLI::App*> chosen = app.get_subcommands();
  if (chosen.empty() && argc > 1 && argv[1][0] != '-') {
    // A first word that is not an option is a subcommand: CLI11 would call it an extra argument.
    std::fprintf(stderr, "ctrl: unknown subcommand '%s' (the subcommands: %s)\n", argv[1],
                 subcommand_names(app).c_str());
    return exit_bad_input;
  }
  std::string command = app.get_name();
  for (const CLI::App* sub : chosen) command += " " + sub->get_name();
  std::fprintf(stderr, "ctrl: %s\nRun '%s --help' for more information.\n", e.what(), command.c_str());
  return exit_bad_input;
}

// What a command printed must have reached stdout: a full disk or a closed stdout fails the
// command (exit 1, naming stdout) rather than let it succeed with its output lost.
int checked_stdout(int code) {
  errno = 0;
  std::cout.flush();
  const bool failed = std::cout.fail() || std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  if (!failed) return code;
  const int err = errno;
  std::fprintf(stderr, "ctrl: cannot write to stdout: %s\n", err != 0 ? std::strerror(err) : "a write failed");
  return code == exit_ok ? exit_failure : code;
}

}  // namespace

int exit_code_of(const std::exception& e) {
  if (const auto* x = dynamic_cast<const exit_error*>(&e)) return x->code;
  if (dynamic_cast<const loop::InfeasibleError*>(&e) != nullptr) return exit_infeasible;
  if (dynamic_cast<const UsageError*>(&e) != nullptr) return exit_bad_input;
  return exit_failure;
}

int dispatch(CLI::App& app, const action& run, int argc, char** argv, ErrorReport* how) {
  std::string topic;
  CLI::App* help = app.add_subcommand("help", "Show the help of ctrl, or of one subcommand: ctrl help SUBCOMMAND");
  help->add_option("subcommand", topic, "The subcommand to describe");
  app.require_subcommand(0, 1);  // none: the usage below, not CLI11's "A subcommand is required"
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return checked_stdout(parse_failure(app, e, argc, argv));
  }
  try {
    if (help->parsed()) return checked_stdout(print_help(app, topic));
    if (!run) {
      std::cerr << help_of(app) << "ctrl: a subcommand is required (ctrl help SUBCOMMAND describes one)\n";
      return exit_bad_input;
    }
    return checked_stdout(run());
  } catch (const std::bad_alloc&) {
    // Arrays name themselves (ctrl::throw_cannot_allocate); this is memory beside them.
    return report(how, std::runtime_error("not enough memory for the buffers beside the problem's arrays"),
                  exit_failure);
  } catch (const std::exception& e) {
    return report(how, e, exit_code_of(e));
  }
}

}  // namespace ctrl::tool
