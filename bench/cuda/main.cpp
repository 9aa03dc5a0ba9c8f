// The CUDA benchmarks' main: Google Benchmark (console and --benchmark_out JSON), the GPU, driver
// and runtime in the JSON's context, and the table of goals (each ctrl figure against its anchor
// measured in the same run) printed last and appended to $CTRL_BENCH_SUMMARY.
#include "bench_support.hpp"

#include <cuda_runtime_api.h>

#include <string>

namespace cudabench {
int print_goals();
}

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  cudaDeviceProp p{};
  int driver = 0, runtime = 0;
  if (cudabench::have_gpu() && cudaGetDeviceProperties(&p, 0) == cudaSuccess) {
    benchmark::AddCustomContext("gpu", p.name);
    benchmark::AddCustomContext("gpu_sms", std::to_string(p.multiProcessorCount));
    benchmark::AddCustomContext("gpu_memory_bytes", std::to_string(p.totalGlobalMem));
    benchmark::AddCustomContext("gpu_cc", std::to_string(p.major) + "." + std::to_string(p.minor));
  } else {
    benchmark::AddCustomContext("gpu", "none");
  }
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  benchmark::AddCustomContext("cuda_driver", std::to_string(driver));
  benchmark::AddCustomContext("cuda_runtime", std::to_string(runtime));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  const int failed = cudabench::print_goals();
  return failed == 0 ? 0 : 3;
}
