// Compiled by the host compiler, not nvcc: what a file that includes only <ctrl/ctrl.hpp> can do
// with a CUDA controller.
#include "host_compiled_launch.hpp"

#include "test_kernels.hpp"

#include <ctrl/cuda/context.hpp>  // host-only: library variants need no nvcc

namespace cudatest {

namespace {
// A generic body and a library variant: CUDA controllers run the library variant from here.
struct HostFill {
  static constexpr const char* name = "host_fill";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<int, 1> o) const { o(t.x) = 1; }
  void cuda_library(ctrl::CudaContext& ctx, ctrl::Out<int, 1> o) const {
    ctrl::cuda_check(cudaMemsetAsync(o.data(), 0, static_cast<std::size_t>(o.size()) * sizeof(int), ctx.stream()),
                     "cudaMemsetAsync");
  }
};
}  // namespace

void launch_generic_from_host_compiled_file(ctrl::Controller& c, ctrl::Tile<float, 1>& t) {
  c.launch<Fill1>(ctrl::Threads(t.extent(0)), t, 1.0F);
}

void launch_library_from_host_compiled_file(ctrl::Controller& c, ctrl::Tile<int, 1>& t) {
  c.launch<HostFill>(ctrl::Threads(t.extent(0)), t);
}

}  // namespace cudatest
