// recurrence's native CUDA twin: hand-written CUDA with hand-written transfers, no ctrl runtime.
// Host arrays page-locked once, outside the timing. See docs/cuda.md.
#include "common/app.hpp"
#include "recurrence/recurrence_native_cuda_compute.cuh"
#include "recurrence/recurrence_problem.hpp"

#include <cstdint>
#include <vector>

int main(int argc, char** argv) {
  apps::RecurrenceParams params;
  const apps::Problem problem = apps::recurrence_problem(params);
  return apps::run(problem, apps::Flavor::native_cuda, argc, argv, [&](apps::Session& s) {
    namespace nc = apps::native_cuda;
    const apps::Array& x = s.input("x");
    const auto rows = static_cast<std::int64_t>(x.shape[0]), cols = static_cast<std::int64_t>(x.shape[1]);
    std::vector<float> y(x.data.size());
    const int dev = nc::use_device(s.device());
    s.set_where("cuda:" + std::to_string(dev) + " (native CUDA)");
    nc::Stream stream;
    nc::HostPin px(x.data.data(), x.data.size() * sizeof(float)), py(y.data(), y.size() * sizeof(float));
    s.measure([&] { nc::recurrence(y.data(), x.data.data(), rows, cols, params.iterations, stream); });
    s.output("y", y, x.shape);
  });
}
