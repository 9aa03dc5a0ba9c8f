// mandelbrot's native CUDA twin: hand-written CUDA with a hand-written copy back, no ctrl
// runtime. The host array is page-locked once, outside the timing. See docs/cuda.md.
#include "common/app.hpp"
#include "mandelbrot/mandelbrot_native_cuda_compute.cuh"
#include "mandelbrot/mandelbrot_problem.hpp"

#include <cstdint>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  apps::MandelbrotParams params;
  const apps::Problem problem = apps::mandelbrot_problem(params);
  return apps::run(problem, apps::Flavor::native_cuda, argc, argv, [&](apps::Session& s) {
    namespace nc = apps::native_cuda;
    const apps::mandel::Picture pic = apps::mandel::picture(params, s.options().size);
    std::vector<float> iterations(pic.shape[0] * pic.shape[1]);
    const int dev = nc::use_device(s.device());
    s.set_where("cuda:" + std::to_string(dev) + " (native CUDA)");
    nc::Stream stream;
    nc::HostPin pin(iterations.data(), iterations.size() * sizeof(float));
    s.measure([&] { nc::mandelbrot(iterations.data(), pic.rows, pic.cols, pic.view, params.iterations, stream); });
    s.output("iterations", iterations, pic.shape);
  });
}
