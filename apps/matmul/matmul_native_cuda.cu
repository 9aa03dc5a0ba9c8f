// matmul's native CUDA twin: hand-written CUDA with hand-written transfers, no ctrl runtime.
// --variant generic runs the plain one-thread-per-element product, blas runs cuBLAS (the
// benchmarks also time the CUDA samples' tiled product). See docs/cuda.md.
#include "common/app.hpp"
#include "matmul/matmul_native_cuda_compute.cuh"
#include "matmul/matmul_problem.hpp"

#include <cstdint>
#include <vector>

int main(int argc, char** argv) {
  apps::MatMulParams params;
  const apps::Problem problem = apps::matmul_problem(params);
  return apps::run(problem, apps::Flavor::native_cuda, argc, argv, [&](apps::Session& s) {
    namespace nc = apps::native_cuda;
    const apps::Array& a = s.input("a");
    const apps::Array& b = s.input("b");
    const auto m = static_cast<std::int64_t>(a.shape[0]), k = static_cast<std::int64_t>(a.shape[1]),
               n = static_cast<std::int64_t>(b.shape[1]);
    std::vector<float> c(static_cast<std::size_t>(m * n));
    const int dev = nc::use_device(s.device());
    s.set_where("cuda:" + std::to_string(dev) + " (native CUDA)");
    nc::Stream stream;
    nc::Cublas blas(stream);
    nc::HostPin pa(a.data.data(), a.data.size() * sizeof(float)), pb(b.data.data(), b.data.size() * sizeof(float)),
        pc(c.data(), c.size() * sizeof(float));
    const nc::MatMulKind kind = params.variant == "blas" ? nc::MatMulKind::cublas : nc::MatMulKind::generic;
    s.measure([&] { nc::matmul(kind, c.data(), a.data.data(), b.data.data(), m, k, n, stream, blas.get()); });
    s.output("c", c, {a.shape[0], b.shape[1]});
  });
}
