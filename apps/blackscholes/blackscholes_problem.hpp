// blackscholes as a case study: price, strike, years -> call, put (1-D float32 arrays), with
// --riskfree and --volatility; random inputs in the CUDA samples' ranges.
#pragma once
#include "blackscholes/blackscholes_reference.hpp"
#include "common/app.hpp"

#include <cmath>

namespace apps {

struct BlackScholesParams {
  double riskfree = 0.02;
  double volatility = 0.30;
};

inline Problem blackscholes_problem(BlackScholesParams& params) {
  Problem p;
  p.name = "blackscholes";
  p.summary = "blackscholes: European call and put prices (Black-Scholes, the CUDA samples' formula) in float";
  p.inputs = {"price", "strike", "years"};
  p.outputs = {"call", "put"};
  p.size_help = "OPTIONS (the number of options)";
  p.min_size_args = 1;
  p.max_size_args = 1;
  p.default_size = {4000000};
  p.add_options = [&params](OptionSink& o) {
    o.add("--riskfree", params.riskfree, "the riskless interest rate, a year");
    o.add("--volatility", params.volatility, "the volatility, a year (> 0)");
  };
  p.check_options = [&params] {
    if (!std::isfinite(params.riskfree)) throw BadInput("--riskfree must be a finite number");
    if (!(std::isfinite(params.volatility) && params.volatility > 0)) {
      throw BadInput("--volatility must be a finite number above 0");
    }
  };
  p.check_inputs = [](const Inputs& in) {
    require_rank(in, "price", 1);
    require_rank(in, "strike", 1);
    require_rank(in, "years", 1);
    require_same_shape(in, "strike", "price");
    require_same_shape(in, "years", "price");
    require_positive(in, "price", "spot prices");
    require_positive(in, "strike", "strike prices");
    require_positive(in, "years", "times to expiry in years");
  };
  p.size_shapes = [](const std::vector<std::int64_t>& size) {
    return std::vector<Shape>{{static_cast<std::size_t>(size[0])}};  // every input and output
  };
  p.generate = [](const std::vector<std::int64_t>& size, std::uint64_t seed) {
    const Shape shape{static_cast<std::size_t>(size[0])};
    return std::vector<Array>{uniform_array(shape, seed, 0, 5.0F, 30.0F), uniform_array(shape, seed, 1, 1.0F, 100.0F),
                              uniform_array(shape, seed, 2, 0.25F, 10.0F)};
  };
  p.verify = [&params](const Inputs& in, const std::vector<Array>& out) {
    const auto ref =
        reference::blackscholes(in["price"].data, in["strike"].data, in["years"].data,
                                static_cast<float>(params.riskfree), static_cast<float>(params.volatility));
    return combine(
        {compare("call", out[0].data, ref.call, 2e-4, 2e-5), compare("put", out[1].data, ref.put, 2e-4, 2e-5)});
  };
  p.parameters = [&params] {
    return "riskfree=" + number(params.riskfree) + " volatility=" + number(params.volatility);
  };
  return p;
}

}  // namespace apps
