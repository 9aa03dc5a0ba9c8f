// matadd's native CUDA twin: hand-written CUDA with hand-written transfers, no ctrl runtime (only
// the shared command-line contract). The host arrays are page-locked once, outside the timing;
// each timed run allocates, copies in, computes, copies out and frees, as the ctrl program's
// attach / launch / detach does. See docs/cuda.md.
#include "common/app.hpp"
#include "matadd/matadd_native_cuda_compute.cuh"
#include "matadd/matadd_problem.hpp"

#include <cstdint>
#include <vector>

int main(int argc, char** argv) {
  const apps::Problem problem = apps::matadd_problem();
  return apps::run(problem, apps::Flavor::native_cuda, argc, argv, [](apps::Session& s) {
    namespace nc = apps::native_cuda;
    const apps::Array& a = s.input("a");
    const apps::Array& b = s.input("b");
    const auto rows = static_cast<std::int64_t>(a.shape[0]), cols = static_cast<std::int64_t>(a.shape[1]);
    std::vector<float> c(a.data.size());
    const int dev = nc::use_device(s.device());
    s.set_where("cuda:" + std::to_string(dev) + " (native CUDA)");
    nc::Stream stream;
    nc::HostPin pa(a.data.data(), a.data.size() * sizeof(float)), pb(b.data.data(), b.data.size() * sizeof(float)),
        pc(c.data(), c.size() * sizeof(float));
    s.measure([&] { nc::matadd(c.data(), a.data.data(), b.data.data(), rows, cols, stream); });
    s.output("c", c, a.shape);
  });
}
