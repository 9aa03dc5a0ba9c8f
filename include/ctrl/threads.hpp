// The launch index space (1–3-D) and a logical thread's indexes within it.
//
// Row-major meaning on every device: x is the slowest-varying index (a row), z the fastest. The
// CPU backend cuts the space into coarse blocks over its cores, along x while there are rows
// enough, along the other dimensions where there are not; the CUDA backend maps its fastest
// hardware dimension onto the last index of the space, so consecutive threads touch consecutive
// elements.
#pragma once
#include <ctrl/config.hpp>

#include <cstdint>
#include <string>

namespace ctrl {

using index_t = std::int64_t;

// One logical thread of a launch.
struct Thread {
  index_t x = 0, y = 0, z = 0;
};

// The extents of a launch's index space. Threads(n) is 1-D, Threads(rows, cols) 2-D.
class Threads {
 public:
  constexpr explicit Threads(index_t x) : ext_{x, 1, 1}, dims_(1) {}
  constexpr Threads(index_t x, index_t y) : ext_{x, y, 1}, dims_(2) {}
  constexpr Threads(index_t x, index_t y, index_t z) : ext_{x, y, z}, dims_(3) {}

  constexpr int dims() const { return dims_; }
  constexpr index_t x() const { return ext_[0]; }
  constexpr index_t y() const { return ext_[1]; }
  constexpr index_t z() const { return ext_[2]; }
  constexpr index_t extent(int d) const { return ext_[d]; }
  constexpr index_t size() const { return ext_[0] * ext_[1] * ext_[2]; }
  constexpr bool empty() const { return size() == 0; }

  std::string str() const;  // "(100, 200)"

 private:
  index_t ext_[3];
  int dims_;
};

}  // namespace ctrl
