// matmul on a ctrl controller: a (m x k), b (k x n) -> c, with the generic kernel or the OpenBLAS
// variant (--variant generic|blas|native: cuBLAS / the samples' shared-memory kernel on GPUs). See
// docs/case-studies.md.
#include "common/app.hpp"
#include "matmul/matmul_kernels.hpp"
#include "matmul/matmul_problem.hpp"

#include <ctrl/ctrl.hpp>

#if CTRL_DEVICE_CODE
#include "matmul/matmul_cuda_variants.cuh"
using MatMulKernel = apps::MatMulCuda;  // adds the shared-memory native body and cuBLAS on GPUs
#else
using MatMulKernel = apps::MatMul;
#endif

int main(int argc, char** argv) {
  apps::MatMulParams params;
  const apps::Problem problem = apps::matmul_problem(params);
  return apps::run(problem, apps::Flavor::ctrl, argc, argv, [&](apps::Session& s) {
    const apps::Array& a = s.input("a");
    const apps::Array& b = s.input("b");
    const auto m = static_cast<ctrl::index_t>(a.shape[0]), k = static_cast<ctrl::index_t>(a.shape[1]),
               n = static_cast<ctrl::index_t>(b.shape[1]);
    // The inputs as read: tiles over their memory, nothing copied (const: the kernel's In only).
    auto A = ctrl::wrap(a.data, {m, k}, "a"), B = ctrl::wrap(b.data, {k, n}, "b");
    ctrl::Tile<float, 2> C({m, n}, "c");
    C.fill(0.0F);  // touch the output's pages outside the timing, as the twin's std::vector does
    const ctrl::Variant variant = params.variant == "blas"     ? ctrl::Variant::library
                                  : params.variant == "native" ? ctrl::Variant::native
                                                               : ctrl::Variant::generic;
    if (variant == ctrl::Variant::library) apps::blas_single_threaded();  // not inside the timing

    ctrl::Controller ctl{s.device()};
    s.set_where(ctl.name() + " (" + ctl.description() + ")");
    s.measure([&] {
      ctl.attach(A, B, C);
      ctl.launch<MatMulKernel>(variant, ctrl::Threads(m, n), C, A, B);
      ctl.detach(A, B, C);
    });
    s.output("c", C.elements(), {a.shape[0], b.shape[1]});
  });
}
