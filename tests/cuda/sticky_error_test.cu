// A kernel that writes far outside its tile: the device reports it asynchronously, at the next
// wait, as a DeviceError naming the call and the last launch. Such an error is sticky (the
// process's CUDA context on that device is lost), so this is a program of its own, and it is left
// out of the compute-sanitizer runs (which would report the planted fault).
#include "cuda_test_support.hpp"
#include "test_kernels.hpp"

#include <ctrl/cuda.hpp>

#include <string>

namespace {

struct WildWrite {
  static constexpr const char* name = "wild_write";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<float, 1> o) const {
    o(t.x + (ctrl::index_t{1} << 40)) = 1.0F;
  }
};

TEST(CudaStickyError, FaultIsReportedAtWaitNamingTheLaunchAndCpuCarriesOn) {
  CTRL_REQUIRE_GPU();
  auto gpu = std::make_unique<ctrl::Controller>(ctrl::cuda(0));
  ctrl::Tile<float, 1> o({1024}, "o");
  gpu->attach(o);
  gpu->launch<cudatest::Fill1>(ctrl::Threads(1024), o, 1.0F);
  gpu->launch<WildWrite>(ctrl::Threads(1024), o);
  try {
    gpu->wait();
    FAIL() << "the fault was not reported";
  } catch (const ctrl::DeviceError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("cuda:0"), std::string::npos) << m;
    EXPECT_NE(m.find("cudaErrorIllegalAddress"), std::string::npos) << m;
    EXPECT_NE(m.find("cudaStreamSynchronize"), std::string::npos) << m;
    EXPECT_NE(m.find("'wild_write'"), std::string::npos) << m;
    EXPECT_NE(m.find("#2"), std::string::npos) << m;
    EXPECT_NE(m.find("sticky"), std::string::npos) << m;
  }
  EXPECT_THROW(gpu->detach(o), ctrl::DeviceError);  // every later call on the lost context fails
  gpu.reset();                                      // and shutting it down does not crash

  ctrl::Tile<float, 2> v({10, 10}, "v");
  v.fill(2.0F);
  ctrl::Controller cpu{ctrl::cpu_count(1)};
  cpu.attach(v);
  cpu.launch<cudatest::Scale2>(ctrl::Threads(10, 10), v, 4.0F);
  cpu.detach(v);
  for (float e : v.elements()) ASSERT_EQ(e, 8.0F);
}

}  // namespace
