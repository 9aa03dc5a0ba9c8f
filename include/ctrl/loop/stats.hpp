// Sample statistics for the profiler's stopping rule: the mean and the half-width of its 95 %
// confidence interval from Student's t distribution.
#pragma once
#include <cstddef>
#include <vector>

namespace ctrl::loop {

// The two-sided 95 % quantile t_{0.975, df} (df >= 1): exact table values up to 30 degrees of
// freedom, then 1.96 + 2.37 / df (within 0.002 of the true value).
double student_t95(std::size_t df);

struct Estimate {
  std::size_t n = 0;
  double mean = 0.0;
  double sd = 0.0;  // sample standard deviation (n - 1)
  double ci = 0.0;  // half-width of the 95 % confidence interval of the mean; infinite for n < 2
  // ci / |mean|; infinite for a zero mean with spread, 0 when every value is 0.
  double relative_ci() const;
};

Estimate estimate(const std::vector<double>& values);

}  // namespace ctrl::loop
