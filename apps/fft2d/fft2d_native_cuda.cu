// fft2d's native CUDA twin: cuFFT's own 2-D transform (cufftPlan2d, C2C) with hand-written
// transfers, no ctrl runtime. The host arrays are page-locked once and the plan made once, outside
// the timing; each timed run allocates, copies in, transforms, copies out and frees, as the ctrl
// program's attach / launch / detach does. See docs/cuda.md.
#include "common/app.hpp"
#include "common/native_cuda.cuh"
#include "fft2d/fft2d_problem.hpp"

#include <cufft.h>

#include <string>
#include <vector>

int main(int argc, char** argv) {
  const apps::Problem problem = apps::fft2d_problem();
  return apps::run(problem, apps::Flavor::native_cuda, argc, argv, [](apps::Session& s) {
    namespace nc = apps::native_cuda;
    const apps::Array& x = s.input("x");
    const int m = static_cast<int>(x.shape[0]), n = static_cast<int>(x.shape[1]);
    std::vector<float> f(x.data.size());
    const int dev = nc::use_device(s.device());
    s.set_where("cuda:" + std::to_string(dev) + " (native CUDA, cuFFT)");
    nc::Stream stream;
    nc::HostPin px(x.data.data(), x.data.size() * sizeof(float)), pf(f.data(), f.size() * sizeof(float));
    cufftHandle plan{};
    if (cufftPlan2d(&plan, m, n, CUFFT_C2C) != CUFFT_SUCCESS || cufftSetStream(plan, stream) != CUFFT_SUCCESS)
      throw ctrl::DeviceError("cuFFT could not plan a " + std::to_string(m) + " x " + std::to_string(n) + " transform");
    const std::size_t bytes = x.data.size() * sizeof(float);
    s.measure([&] {
      auto* d = nc::device_alloc<cufftComplex>(x.data.size() / 2, stream);
      nc::to_device(d, x.data.data(), bytes, stream);
      if (cufftExecC2C(plan, d, d, CUFFT_FORWARD) != CUFFT_SUCCESS) throw ctrl::DeviceError("cufftExecC2C failed");
      nc::to_host(f.data(), d, bytes, stream);
      nc::device_free(d, stream);
      nc::finish(stream);
    });
    cufftDestroy(plan);
    s.output("f", f, x.shape);
  });
}
