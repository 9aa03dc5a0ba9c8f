// The front JSON that `ctrl run --front FILE` reads (written by `ctrl pareto --format json`):
// prepare_run in tools/ctrl/run_plan.cpp, which reads the file, picks a point and checks it,
// with each --pick and with and without a --profile.
// Oracle: a malformed front ends in exit_error or UsageError (exit status 2 or 3 with a message),
// nothing else; a plan that is accepted gives every processor its rows.
#include "input_file.hpp"

#include "run_plan.hpp"
#include "command.hpp"

#include "catalog/catalog.hpp"
#include <ctrl/errors.hpp>

namespace {

// A profile of the processors the seed fronts name, for the picks that need one.
const char* const kProfile =
    "processor,size,time,energy\n"
    "cpu:0-3,1,1.0,2.0\ncpu:0-3,2,2.0,4.0\ncpu:0-3,3,3.0,6.0\ncpu:0-3,4,4.0,8.0\n"
    "cuda:0,1,0.5,3.0\ncuda:0,2,0.7,5.0\ncuda:0,3,0.9,7.0\ncuda:0,4,1.1,9.0\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace tool = ctrl::tool;
  static ctrl::fuzz::InputFile front("front"), profile("profile");
  static const std::string profile_path = profile.write(kProfile);
  static const ctrl::loop::Workload& app = apps::catalog().find("dgemm");
  const std::string& front_path = front.write(data, size);
  for (const char* pick : {"fastest", "least-energy", "2", "load-balanced"}) {
    for (const bool with_profile : {false, true}) {
      tool::RunArgs a;
      a.app = "dgemm";
      a.front = front_path;
      a.pick = pick;
      if (with_profile) a.profile = profile_path;
      try {
        const tool::Prepared p = tool::prepare_run(a, app);
        if (p.plan.names.size() != p.plan.rows.size()) ctrl::fuzz::fail("a plan whose names and rows differ in number");
      } catch (const tool::exit_error&) {
      } catch (const ctrl::UsageError&) {
      }
    }
  }
  return 0;
}
