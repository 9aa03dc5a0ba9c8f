// matmul as a case study: a (m x k), b (k x n) -> c (m x n), with --variant generic|blas.
#pragma once
#include "common/app.hpp"
#include "matmul/matmul_reference.hpp"

#include <string>

namespace apps {

struct MatMulParams {
  std::string variant = "blas";
};

inline Problem matmul_problem(MatMulParams& params) {
  Problem p;
  p.name = "matmul";
  p.summary = "matmul: c = a * b for float32 matrices a (m x k) and b (k x n)";
  p.inputs = {"a", "b"};
  p.outputs = {"c"};
  p.size_help = "M [K [N]] (K defaults to M, N to K)";
  p.min_size_args = 1;
  p.max_size_args = 3;
  p.default_size = {1024};
  p.add_options = [&params](OptionSink& o) {
    o.add_choice("--variant", params.variant, {"generic", "blas", "native"},
                 "generic: the generic kernel (a dot product per element); blas: OpenBLAS on row blocks "
                 "(cuBLAS on GPUs); native: the CUDA samples' shared-memory kernel (GPUs only)");
  };
  p.check_inputs = [](const Inputs& in) {
    require_rank(in, "a", 2);
    require_rank(in, "b", 2);
    const Shape &a = in.shape("a"), &b = in.shape("b");
    if (b[0] != a[1]) {
      throw BadInput(in.origin("b") + ": input 'b' has " + std::to_string(b[0]) + " rows, but input 'a' (" +
                     in.origin("a") + ") has " + std::to_string(a[1]) +
                     " columns; matmul needs a (m x k) and b (k x n)");
    }
    for (const char* name : {"a", "b"}) require_int_extents(in, name, "BLAS takes");
    require_fits({a[0], b[1]}, in.origin("a") + " and " + in.origin("b") + ": output 'c'");
  };
  // a (m x k), b (k x n), c (m x n).
  // BLAS counts in int: an extent beyond it is refused before the inputs are made, not by
  // check_inputs after gigabytes of them were generated.
  p.check_size = [](const std::vector<std::int64_t>& size) { require_int_size(size, "BLAS takes"); };
  p.size_shapes = [](const std::vector<std::int64_t>& size) {
    const auto m = static_cast<std::size_t>(size[0]);
    const auto k = size.size() > 1 ? static_cast<std::size_t>(size[1]) : m;
    const auto n = size.size() > 2 ? static_cast<std::size_t>(size[2]) : k;
    return std::vector<Shape>{{m, k}, {k, n}, {m, n}};
  };
  p.generate = [shapes = p.size_shapes](const std::vector<std::int64_t>& size, std::uint64_t seed) {
    const std::vector<Shape> s = shapes(size);
    return std::vector<Array>{uniform_array(s[0], seed, 0, -1.0F, 1.0F), uniform_array(s[1], seed, 1, -1.0F, 1.0F)};
  };
  p.verify = [](const Inputs& in, const std::vector<Array>& out) {
    const Shape &a = in.shape("a"), &b = in.shape("b");
    const auto ref = reference::matmul(in["a"].data, in["b"].data, a[0], a[1], b[1]);
    return compare_bounded("c", out[0].data, ref.c, reference::matmul_bound(ref, a[1]));
  };
  p.parameters = [&params] { return "variant=" + params.variant; };
  return p;
}

}  // namespace apps
