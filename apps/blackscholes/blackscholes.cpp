// blackscholes on a ctrl controller: price, strike, years -> call, put. See docs/case-studies.md.
#include "blackscholes/blackscholes_kernels.hpp"
#include "blackscholes/blackscholes_problem.hpp"
#include "common/app.hpp"

#include <ctrl/ctrl.hpp>

int main(int argc, char** argv) {
  apps::BlackScholesParams params;
  const apps::Problem problem = apps::blackscholes_problem(params);
  return apps::run(problem, apps::Flavor::ctrl, argc, argv, [&](apps::Session& s) {
    const auto n = static_cast<ctrl::index_t>(s.input("price").shape[0]);
    // The inputs as read: tiles over their memory, nothing copied (const: the kernel's In only).
    auto price = ctrl::wrap(s.input("price").data, "price"), strike = ctrl::wrap(s.input("strike").data, "strike"),
         years = ctrl::wrap(s.input("years").data, "years");
    ctrl::Tile<float, 1> call({n}, "call"), put({n}, "put");
    call.fill(0.0F);  // touch the outputs' pages outside the timing, as the twin's vectors are
    put.fill(0.0F);
    const auto r = static_cast<float>(params.riskfree), v = static_cast<float>(params.volatility);

    ctrl::Controller ctl{s.device()};
    s.set_where(ctl.name() + " (" + ctl.description() + ")");
    s.measure([&] {
      ctl.attach(price, strike, years, call, put);
      ctl.launch<apps::BlackScholes>(ctrl::Threads(n), call, put, price, strike, years, r, v);
      ctl.detach(price, strike, years, call, put);
    });
    s.output("call", call.elements(), {static_cast<std::size_t>(n)});
    s.output("put", put.elements(), {static_cast<std::size_t>(n)});
  });
}
