// blackscholes' native twin: the same work in plain OpenMP, no ctrl runtime (only the shared
// command-line contract). See docs/case-studies.md.
#include "blackscholes/blackscholes_native_compute.hpp"
#include "blackscholes/blackscholes_problem.hpp"
#include "common/app.hpp"
#include "common/native.hpp"

#include <cstdint>
#include <vector>

int main(int argc, char** argv) {
  apps::BlackScholesParams params;
  const apps::Problem problem = apps::blackscholes_problem(params);
  return apps::run(problem, apps::Flavor::native, argc, argv, [&](apps::Session& s) {
    const apps::Array& price = s.input("price");
    const auto n = static_cast<std::int64_t>(price.shape[0]);
    std::vector<float> call(price.data.size()), put(price.data.size());
    const auto r = static_cast<float>(params.riskfree), v = static_cast<float>(params.volatility);
    apps::native::pin_openmp(s.cores());
    s.measure([&] {
      apps::native::blackscholes(call.data(), put.data(), price.data.data(), s.input("strike").data.data(),
                                 s.input("years").data.data(), n, r, v);
    });
    s.output("call", call, price.shape);
    s.output("put", put, price.shape);
  });
}
