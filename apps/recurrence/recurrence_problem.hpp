// recurrence as a case study: x -> y, the recurrence of recurrence_kernels.hpp applied
// --iterations times to every element (2-D float32).
#pragma once
#include "common/app.hpp"
#include "recurrence/recurrence_reference.hpp"

#include <cmath>
#include <string>

namespace apps {

struct RecurrenceParams {
  int iterations = 100;
};

inline Problem recurrence_problem(RecurrenceParams& params) {
  Problem p;
  p.name = "recurrence";
  p.summary = "recurrence: x <- 0.5x + 0.25(1-x^2)/(1+x^2) + 0.25u, K times for every element u of a matrix";
  p.inputs = {"x"};
  p.outputs = {"y"};
  p.size_help = "ROWS [COLS] (COLS defaults to ROWS)";
  p.min_size_args = 1;
  p.max_size_args = 2;
  p.default_size = {1024, 1024};
  p.add_options = [&params](OptionSink& o) {
    o.add("--iterations", params.iterations, "how many times the recurrence is applied (K)", 0);
  };
  p.check_inputs = [](const Inputs& in) { require_rank(in, "x", 2); };  // finite: run() checks every input file
  p.size_shapes = [](const std::vector<std::int64_t>& size) { return std::vector<Shape>{rows_cols(size)}; };  // x, y
  p.generate = [](const std::vector<std::int64_t>& size, std::uint64_t seed) {
    const Shape shape = rows_cols(size);
    return std::vector<Array>{uniform_array(shape, seed, 0, -1.0F, 1.0F)};
  };
  p.verify = [&params](const Inputs& in, const std::vector<Array>& out) {
    const auto ref = reference::recurrence(in["x"].data, params.iterations);
    return compare("y", out[0].data, ref, 1e-5, 1e-5);
  };
  p.parameters = [&params] { return "iterations=" + std::to_string(params.iterations); };
  return p;
}

}  // namespace apps
