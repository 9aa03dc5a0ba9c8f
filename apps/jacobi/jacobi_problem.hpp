// jacobi as a case study: m -> m after --iterations Jacobi sweeps (2-D float32).
#pragma once
#include "common/app.hpp"
#include "jacobi/jacobi_reference.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace apps {

struct JacobiParams {
  int iterations = 100;
};

inline Problem jacobi_problem(JacobiParams& params) {
  Problem p;
  p.name = "jacobi";
  p.summary = "jacobi: Jacobi iterations of the 2-D heat equation, boundary fixed (the Controllers paper Fig. 3)";
  p.inputs = {"m"};
  p.outputs = {"m"};
  p.size_help = "ROWS [COLS] (COLS defaults to ROWS)";
  p.min_size_args = 1;
  p.max_size_args = 2;
  p.default_size = {2048, 2048};
  p.add_options = [&params](OptionSink& o) {
    o.add("--iterations", params.iterations, "the number of Jacobi iterations", 0);
  };
  p.check_inputs = [](const Inputs& in) { require_rank(in, "m", 2); };
  p.size_shapes = [](const std::vector<std::int64_t>& size) { return std::vector<Shape>{rows_cols(size)}; };  // m, copy
  p.generate = [](const std::vector<std::int64_t>& size, std::uint64_t seed) {
    const Shape shape = rows_cols(size);
    return std::vector<Array>{uniform_array(shape, seed, 0, 0.0F, 1.0F)};
  };
  p.verify = [&params](const Inputs& in, const std::vector<Array>& out) {
    const Array& m = in["m"];
    const auto ref = reference::jacobi(m.data, m.shape[0], m.shape[1], params.iterations);
    double scale = 0;
    for (float v : m.data) scale = std::max(scale, static_cast<double>(std::abs(v)));
    // Each sweep rounds a few times and never amplifies earlier errors (a mean of neighbours).
    const double atol = 4.0 * 0x1p-24 * (params.iterations + 1) * scale;
    return compare("m", out[0].data, ref, atol, 0.0);
  };
  p.parameters = [&params] { return "iterations=" + std::to_string(params.iterations); };
  return p;
}

}  // namespace apps
