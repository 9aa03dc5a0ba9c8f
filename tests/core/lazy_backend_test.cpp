// The CUDA backend is loaded when the first CUDA controller is made, not when a program starts
// (src/backends.cpp): a program of CPU controllers maps no CUDA library, so it starts in
// milliseconds and runs on nodes without them. Asking for a CUDA controller then loads the backend,
// or fails with an error naming the device (no GPU, no CUDA libraries, or a build without CUDA).
#include <ctrl/ctrl.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace {

// The CUDA libraries this process has mapped, one per line ("" when none).
std::string cuda_libraries_mapped() {
  std::ifstream maps("/proc/self/maps");
  std::string line, found;
  while (std::getline(maps, line))
    for (const char* lib : {"libcudart", "libcublas", "libcufft", "libctrl_cuda_backend"})
      if (line.find(lib) != std::string::npos && found.find(lib) == std::string::npos) found += std::string(lib) + "\n";
  return found;
}

TEST(LazyBackend, CpuControllersMapNoCudaLibraryAndACudaOneLoadsTheBackend) {
  {
    ctrl::Controller c(ctrl::parse_device("cpu:0"));
    ctrl::Tile<float, 1> t({16}, "t");
    c.attach(t);
    c.detach(t);
  }
  EXPECT_EQ(cuda_libraries_mapped(), "") << "a program of CPU controllers mapped CUDA libraries";

  try {
    ctrl::Controller gpu(ctrl::parse_device("cuda:0"));
    EXPECT_NE(cuda_libraries_mapped().find("libctrl_cuda_backend"), std::string::npos);
  } catch (const ctrl::DeviceError& e) {  // no GPU here, or no CUDA libraries on this node
    EXPECT_NE(std::string(e.what()).find("cuda:0"), std::string::npos) << e.what();
  } catch (const ctrl::UsageError& e) {  // a build without the CUDA backend
    EXPECT_NE(std::string(e.what()).find("cuda"), std::string::npos) << e.what();
  }
}

}  // namespace
