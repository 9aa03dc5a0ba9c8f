#include <ctrl/loop/stats.hpp>

#include <array>
#include <cmath>
#include <limits>

namespace ctrl::loop {

double student_t95(std::size_t df) {
  static constexpr std::array<double, 30> table{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                                2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                                2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df == 0) return std::numeric_limits<double>::infinity();
  if (df <= table.size()) return table[df - 1];
  return 1.959964 + 2.37 / static_cast<double>(df);
}

double Estimate::relative_ci() const {
  if (ci == 0.0) return 0.0;
  if (mean == 0.0 || !std::isfinite(ci)) return std::numeric_limits<double>::infinity();
  return ci / std::fabs(mean);
}

Estimate estimate(const std::vector<double>& values) {
  Estimate e;
  e.n = values.size();
  if (e.n == 0) {
    e.ci = std::numeric_limits<double>::infinity();
    return e;
  }
  double sum = 0;
  for (const double v : values) sum += v;
  e.mean = sum / static_cast<double>(e.n);
  if (e.n < 2) {
    e.ci = std::numeric_limits<double>::infinity();
    return e;
  }
  double ss = 0;
  for (const double v : values) ss += (v - e.mean) * (v - e.mean);
  e.sd = std::sqrt(ss / static_cast<double>(e.n - 1));
  e.ci = student_t95(e.n - 1) * e.sd / std::sqrt(static_cast<double>(e.n));
  return e;
}

}  // namespace ctrl::loop
