// blackscholes' native CUDA twin: hand-written CUDA with hand-written transfers, no ctrl
// runtime. Host arrays page-locked once, outside the timing. See docs/cuda.md.
#include "blackscholes/blackscholes_native_cuda_compute.cuh"
#include "blackscholes/blackscholes_problem.hpp"
#include "common/app.hpp"

#include <cstdint>
#include <vector>

int main(int argc, char** argv) {
  apps::BlackScholesParams params;
  const apps::Problem problem = apps::blackscholes_problem(params);
  return apps::run(problem, apps::Flavor::native_cuda, argc, argv, [&](apps::Session& s) {
    namespace nc = apps::native_cuda;
    const apps::Array& price = s.input("price");
    const apps::Array& strike = s.input("strike");
    const apps::Array& years = s.input("years");
    const auto n = static_cast<std::int64_t>(price.shape[0]);
    std::vector<float> call(price.data.size()), put(price.data.size());
    const auto r = static_cast<float>(params.riskfree), v = static_cast<float>(params.volatility);
    const int dev = nc::use_device(s.device());
    s.set_where("cuda:" + std::to_string(dev) + " (native CUDA)");
    nc::Stream stream;
    const std::size_t bytes = price.data.size() * sizeof(float);
    nc::HostPin p1(price.data.data(), bytes), p2(strike.data.data(), bytes), p3(years.data.data(), bytes),
        p4(call.data(), bytes), p5(put.data(), bytes);
    s.measure([&] {
      nc::blackscholes(call.data(), put.data(), price.data.data(), strike.data.data(), years.data.data(), r, v, n,
                       stream);
    });
    s.output("call", call, price.shape);
    s.output("put", put, price.shape);
  });
}
