// blackscholes for the loop: call and put prices of x options per processor (1-D arrays; N is not
// used), with the case study's parameters (--riskfree, 0.02 by default; --volatility, 0.30) and input ranges.
#include "blackscholes/blackscholes_kernels.hpp"
#include "blackscholes/blackscholes_reference.hpp"
#include "catalog/catalog.hpp"

#include <ctrl/loop/divisible.hpp>

#include <cmath>

namespace apps {

std::vector<ctrl::loop::Parameter> blackscholes_parameters() {
  return {
      {.name = "riskfree", .help = "the riskless interest rate, a year", .value = 0.02},
      {.name = "volatility", .help = "the volatility, a year (> 0)", .value = 0.30, .min = 0, .min_exclusive = true}};
}

std::unique_ptr<ctrl::loop::Workload> blackscholes_workload(const ctrl::loop::Settings& settings) {
  using namespace ctrl::loop;
  const auto riskfree = static_cast<float>(settings["riskfree"]);
  const auto volatility = static_cast<float>(settings["volatility"]);
  auto w = std::make_unique<Divisible>(
      "blackscholes", "European call and put prices of x options per processor, in float (N is not used)", 1);
  const auto price = w->input<float>("price", {Rows}, random_values<float>(5.0, 30.0));
  const auto strike = w->input<float>("strike", {Rows}, random_values<float>(1.0, 100.0));
  const auto years = w->input<float>("years", {Rows}, random_values<float>(0.25, 10.0));
  const auto call = w->output<float>("call", {Rows});
  const auto put = w->output<float>("put", {Rows});
  w->compute([=](BlockRun& r) {
    r.launch<BlackScholes>(ctrl::Threads(r.rows()), r[call], r[put], r[price], r[strike], r[years], riskfree,
                           volatility);
  });
  w->verify("every option against the formula in double (2e-4 absolute + 2e-5 relative)",
            [=](const Results& res, CheckNotes& notes) {
              for (const Block& blk : res.blocks()) {
                const auto k0 = static_cast<std::size_t>(blk.begin - res.first_row());
                const auto n = static_cast<std::size_t>(blk.rows());
                const auto ref = reference::blackscholes(res[price].subspan(k0, n), res[strike].subspan(k0, n),
                                                         res[years].subspan(k0, n), riskfree, volatility);
                const auto C = res[call].subspan(k0, n), P = res[put].subspan(k0, n);
                for (std::size_t k = 0; k < n; ++k) {
                  const auto row = blk.begin + static_cast<ctrl::index_t>(k);
                  notes.note(std::abs(C[k] - ref.call[k]), 2e-4 + 2e-5 * std::abs(ref.call[k]),
                             [&] { return words("call(", row, ") = ", C[k], " against ", ref.call[k]); });
                  notes.note(std::abs(P[k] - ref.put[k]), 2e-4 + 2e-5 * std::abs(ref.put[k]),
                             [&] { return words("put(", row, ") = ", P[k], " against ", ref.put[k]); });
                }
                notes.rows_checked(n);
              }
            });
  return w;
}

}  // namespace apps
