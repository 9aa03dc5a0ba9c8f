// The front JSON that `ctrl run --front FILE` reads (written by `ctrl pareto --format json`):
// loop::plan_run, which reads the file, picks a point and checks it, with each pick and with and
// without a profile.
// Oracle: a malformed front ends in a UsageError (exit status 2 or 3 with a message), nothing
// else; a plan that is accepted gives every processor its rows, summing to the front's workload.
#include "input_file.hpp"

#include "catalog/catalog.hpp"
#include <ctrl/errors.hpp>
#include <ctrl/loop/front_file.hpp>
#include <ctrl/loop/plan.hpp>

namespace {

// A profile of the processors the seed fronts name, for the picks that need one.
const char* const kProfile =
    "processor,size,time,energy\n"
    "cpu:0-3,1,1.0,2.0\ncpu:0-3,2,2.0,4.0\ncpu:0-3,3,3.0,6.0\ncpu:0-3,4,4.0,8.0\n"
    "cuda:0,1,0.5,3.0\ncuda:0,2,0.7,5.0\ncuda:0,3,0.9,7.0\ncuda:0,4,1.1,9.0\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace loop = ctrl::loop;
  static ctrl::fuzz::InputFile front("front"), profile("profile");
  static const std::string profile_path = profile.write(kProfile);
  static const loop::Workload& app = apps::catalog().find("dgemm");
  const std::string& front_path = front.write(data, size);
  for (const char* pick : {"fastest", "least-energy", "2", "load-balanced", "even"}) {
    for (const bool with_profile : {false, true}) {
      loop::PlanRequest r;
      r.front = front_path;
      r.pick = loop::Pick::parse(pick);
      if (with_profile) r.profile = profile_path;
      try {
        const loop::Plan p = loop::plan_run(app, r);
        if (p.processors.size() != p.rows.size()) ctrl::fuzz::fail("a plan whose processors and rows differ in number");
        if (p.rows.empty() || p.total_rows() <= 0) ctrl::fuzz::fail("a plan without rows");
        if (p.source.empty()) ctrl::fuzz::fail("a plan that does not say where it comes from");
      } catch (const ctrl::UsageError&) {
      }
    }
  }
  return 0;
}
