// matadd as a case study: a, b -> c = a + b, for the ctrl program, its twin and the tests.
#pragma once
#include "common/app.hpp"
#include "matadd/matadd_reference.hpp"

namespace apps {

inline Problem matadd_problem() {
  Problem p;
  p.name = "matadd";
  p.summary = "matadd: c = a + b for two float32 matrices";
  p.inputs = {"a", "b"};
  p.outputs = {"c"};
  p.size_help = "ROWS [COLS] (COLS defaults to ROWS)";
  p.min_size_args = 1;
  p.max_size_args = 2;
  p.default_size = {4096, 4096};
  p.check_inputs = [](const Inputs& in) {
    require_rank(in, "a", 2);
    require_rank(in, "b", 2);
    require_same_shape(in, "b", "a");
  };
  p.size_shapes = [](const std::vector<std::int64_t>& size) { return std::vector<Shape>{rows_cols(size)}; };  // a, b, c
  p.generate = [](const std::vector<std::int64_t>& size, std::uint64_t seed) {
    const Shape shape = rows_cols(size);
    return std::vector<Array>{uniform_array(shape, seed, 0, -1.0F, 1.0F), uniform_array(shape, seed, 1, -1.0F, 1.0F)};
  };
  p.verify = [](const Inputs& in, const std::vector<Array>& out) {
    const auto ref = reference::matadd(in["a"].data, in["b"].data);
    return compare("c", out[0].data, ref, 0.0, 1e-6);
  };
  return p;
}

}  // namespace apps
