// matadd's reference for --check and the tests: sequential, in double.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

namespace apps::reference {

inline std::vector<double> matadd(std::span<const float> a, std::span<const float> b) {
  std::vector<double> c(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) c[i] = static_cast<double>(a[i]) + static_cast<double>(b[i]);
  return c;
}

}  // namespace apps::reference
