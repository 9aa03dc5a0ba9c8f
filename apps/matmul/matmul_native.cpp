// matmul's native twin: the same work in plain OpenMP (and OpenBLAS for --variant blas), no ctrl
// runtime (only the shared command-line contract). See docs/case-studies.md.
#include "common/app.hpp"
#include "common/native.hpp"
#include "matmul/matmul_native_compute.hpp"
#include "matmul/matmul_problem.hpp"

#include <cstdint>
#include <vector>

int main(int argc, char** argv) {
  apps::MatMulParams params;
  const apps::Problem problem = apps::matmul_problem(params);
  return apps::run(problem, apps::Flavor::native, argc, argv, [&](apps::Session& s) {
    const apps::Array& a = s.input("a");
    const apps::Array& b = s.input("b");
    const auto m = static_cast<std::int64_t>(a.shape[0]), k = static_cast<std::int64_t>(a.shape[1]),
               n = static_cast<std::int64_t>(b.shape[1]);
    std::vector<float> c(static_cast<std::size_t>(m * n));
    openblas_set_num_threads(1);  // the OpenMP team is the parallelism
    apps::native::pin_openmp(s.cores());
    const bool blas = params.variant == "blas";
    s.measure([&] {
      if (blas)
        apps::native::matmul_blas(c.data(), a.data.data(), b.data.data(), m, k, n);
      else
        apps::native::matmul_generic(c.data(), a.data.data(), b.data.data(), m, k, n);
    });
    s.output("c", c, {a.shape[0], b.shape[1]});
  });
}
