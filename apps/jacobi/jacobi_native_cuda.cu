// jacobi's native CUDA twin: hand-written CUDA with hand-written transfers, no ctrl runtime. The
// scratch copy lives on the device for the whole program (like the ctrl program's internal
// tile); each timed run copies the matrix in once and out once. See docs/cuda.md.
#include "common/app.hpp"
#include "jacobi/jacobi_native_cuda_compute.cuh"
#include "jacobi/jacobi_problem.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

int main(int argc, char** argv) {
  apps::JacobiParams params;
  const apps::Problem problem = apps::jacobi_problem(params);
  return apps::run(problem, apps::Flavor::native_cuda, argc, argv, [&](apps::Session& s) {
    namespace nc = apps::native_cuda;
    const apps::Array& in = s.input("m");
    const auto rows = static_cast<std::int64_t>(in.shape[0]), cols = static_cast<std::int64_t>(in.shape[1]);
    std::vector<float> m(in.data.size());
    const int dev = nc::use_device(s.device());
    s.set_where("cuda:" + std::to_string(dev) + " (native CUDA)");
    nc::Stream stream;
    nc::HostPin pm(m.data(), m.size() * sizeof(float));
    float* d_copy = nc::device_alloc<float>(m.size(), stream);
    s.measure([&] { std::copy(in.data.begin(), in.data.end(), m.begin()); },
              [&] { nc::jacobi(m.data(), d_copy, rows, cols, params.iterations, stream); });
    nc::device_free(d_copy, stream);
    nc::finish(stream);
    s.output("m", m, in.shape);
  });
}
