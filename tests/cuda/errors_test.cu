// Every CUDA error becomes a ctrl exception naming the call and the launch, and the program can
// carry on: with the same controller, another one, or CPU controllers.
#include "cuda_test_support.hpp"
#include "host_compiled_launch.hpp"
#include "test_kernels.hpp"
#include "matadd/matadd_kernels.hpp"

#include <ctrl/cuda.hpp>

#include <string>
#include <vector>

namespace {

using ctrl::Controller;
using ctrl::Threads;
using ctrl::Tile;

template <class E, class F>
::testing::AssertionResult throws_naming(F&& f, const std::vector<std::string>& parts) {
  try {
    f();
  } catch (const E& e) {
    const std::string m = e.what();
    for (const std::string& p : parts)
      if (m.find(p) == std::string::npos)
        return ::testing::AssertionFailure() << "the message \"" << m << "\" does not name \"" << p << "\"";
    return ::testing::AssertionSuccess() << m;
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw another exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "threw nothing";
}

void cpu_controllers_still_work() {
  Tile<float, 2> v({10, 10}, "v");
  v.fill(2.0F);
  Controller cpu{ctrl::cpu_count(1)};
  cpu.attach(v);
  cpu.launch<cudatest::Scale2>(Threads(10, 10), v, 4.0F);
  cpu.detach(v);
  for (float e : v.elements()) ASSERT_EQ(e, 8.0F);
}

// Runs everywhere: without a GPU, cuda:N says so and CPU controllers carry on; with one, a device
// number past the last says which devices there are.
TEST(CudaErrors, AbsentDeviceIsReportedAndCpuControllersCarryOn) {
  if (!cudatest::have_gpu()) {
    // The reason ctrl gives everywhere; without a driver at all it says so, not that the driver
    // is too old (what the CUDA runtime says).
    const std::string why = cudatest::no_device_reason();
    if (!ctrl::detail::nvidia_driver_present())
      EXPECT_EQ(why, "no NVIDIA driver on this machine (libcuda.so.1 not found)");
    EXPECT_TRUE(throws_naming<ctrl::DeviceError>([] { Controller c{ctrl::cuda(0)}; }, {"cuda:0", why}));
    EXPECT_TRUE(throws_naming<ctrl::DeviceError>([] { Controller c{"cuda:3"}; }, {"cuda:3", why}));
  } else {
    EXPECT_TRUE(throws_naming<ctrl::DeviceError>([] { Controller c{ctrl::cuda(99)}; },
                                                 {"cuda:99", "no such CUDA device", "cuda:0"}));
  }
  cpu_controllers_still_work();
}

TEST(CudaErrors, OutOfMemoryNamesTheTileAndTheControllerCarriesOn) {
  CTRL_REQUIRE_GPU();
  Controller gpu{ctrl::cuda(0)};
  Tile<float, 1> huge({ctrl::index_t{1} << 40}, ctrl::shape_only, "huge");  // 4 TiB
  EXPECT_TRUE(throws_naming<ctrl::DeviceError>(
      [&] { gpu.create_internal(huge); },
      {"create_internal", "'huge'", "cuda:0", "out of device memory", "cudaMallocFromPoolAsync", "4.0 TiB"}));
  Tile<float, 2> a({100, 100}, "a"), b({100, 100}, "b"), c({100, 100}, "c");
  a.fill(1.0F);
  b.fill(2.0F);
  gpu.attach(a, b, c);
  gpu.launch<apps::MatAdd>(Threads(100, 100), c, a, b);
  gpu.detach(a, b, c);
  for (float e : c.elements()) ASSERT_EQ(e, 3.0F);
}

// A block of 64x64 threads is more than a CUDA block holds: the launch fails (CUDA 13 on the
// H200 says cudaErrorInvalidValue), and the message names the error, the kernel, the launch and
// its geometry.
struct TooBig {
  static constexpr const char* name = "too_big";
  static constexpr ctrl::Traits traits = ctrl::Traits::fixed_block(64, 64);
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<float, 2> o) const { o(t.x, t.y) = 1.0F; }
};

TEST(CudaErrors, FailedLaunchIsReportedAtWaitAndTheControllerCarriesOn) {
  CTRL_REQUIRE_GPU();
  Controller gpu{ctrl::cuda(0)};
  Tile<float, 2> o({128, 128}, "o");
  o.fill(0.0F);
  gpu.attach(o);
  gpu.launch<TooBig>(Threads(128, 128), o);
  EXPECT_TRUE(throws_naming<ctrl::DeviceError>(
      [&] { gpu.wait(); },
      {"launch #1", "'too_big'", "cuda:0", "the kernel launch failed", "cudaError", "block 64x64x1"}));
  gpu.launch<cudatest::Scale2>(Threads(128, 128), o, 2.0F);  // the controller carries on
  gpu.wait();
  gpu.detach(o);
  Tile<float, 2> a({8, 8}, "a"), b({8, 8}, "b"), c({8, 8}, "c");
  a.fill(1.0F);
  b.fill(1.0F);
  gpu.attach(a, b, c);
  gpu.launch<apps::MatAdd>(Threads(8, 8), c, a, b);
  gpu.detach(a, b, c);
  for (float e : c.elements()) ASSERT_EQ(e, 2.0F);
}

TEST(CudaErrors, GenericKernelFromAFileNotCompiledByNvccIsAClearError) {
  CTRL_REQUIRE_GPU();
  Controller gpu{ctrl::cuda(0)};
  Tile<float, 1> t({100}, "t");
  gpu.attach(t);
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { cudatest::launch_generic_from_host_compiled_file(gpu, t); },
                                              {"fill1", "not compiled by nvcc"}));
  // Library variants need no nvcc: the same file can launch them.
  Tile<int, 1> i({100}, "i");
  i.fill(5);
  gpu.attach(i);
  cudatest::launch_library_from_host_compiled_file(gpu, i);
  gpu.detach(i, t);
  for (int e : i.elements()) ASSERT_EQ(e, 0);
}

TEST(CudaErrors, UsageErrorsNameTheTileAndController) {
  CTRL_REQUIRE_GPU();
  Controller gpu{ctrl::cuda(0)};
  Tile<float, 1> t({100}, "loose");
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { gpu.launch<cudatest::Fill1>(Threads(100), t, 1.0F); },
                                              {"'loose'", "cuda:0", "fill1"}));
  gpu.attach(t);
  EXPECT_TRUE(throws_naming<ctrl::UsageError>([&] { gpu.launch<cudatest::Fill1>(Threads(101), t, 1.0F); },
                                              {"'loose'", "cuda:0", "larger"}));
  gpu.detach(t);
}

}  // namespace
