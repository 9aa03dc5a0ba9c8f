// Kernels of the CUDA controller's tests: written once, generic, with the paper's row-major index
// meaning. Host-only (no nvcc needed): host_compiled_launch.cpp includes it too. The case studies'
// kernels (apps::MatAdd, apps::JacobiCopy/Update) serve as they are.
#pragma once
#include <ctrl/ctrl.hpp>

#include <cstdint>

namespace cudatest {

struct Scale2 {
  static constexpr const char* name = "scale2";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<float, 2> v, float k) const { v(t.x, t.y) *= k; }
};

struct Fill1 {
  static constexpr const char* name = "fill1";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<float, 1> o, float v) const { o(t.x) = v; }
};

struct Copy1 {
  static constexpr const char* name = "copy1";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<float, 1> dst, ctrl::In<float, 1> src) const {
    dst(t.x) = src(t.x);
  }
};

// Each element of the space gets its own indexes, encoded: where threads go and which are clipped.
// InOut, so that the elements outside the space come back as they were (an Out tile's elements
// that no thread writes are undefined on a device with its own memory: nothing is copied in).
struct Where1 {
  static constexpr const char* name = "where1";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<std::int64_t, 1> o) const { o(t.x) = t.x; }
};
struct Where2 {
  static constexpr const char* name = "where2";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<std::int64_t, 2> o) const {
    o(t.x, t.y) = t.x * 1000000 + t.y;
  }
};
struct Where3 {
  static constexpr const char* name = "where3";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<std::int64_t, 3> o) const {
    o(t.x, t.y, t.z) = (t.x * 1000 + t.y) * 1000 + t.z;
  }
};
// A block of one row of 32 threads: a space of many rows needs more blocks than a grid's y holds.
struct Where2OneRow : Where2 {
  static constexpr const char* name = "where2_one_row";
  static constexpr ctrl::Traits traits = ctrl::Traits::fixed_block(1, 32);
};

// Integer kernels of the randomized coherence test (exact on every device; wrap around).
struct SetU {
  static constexpr const char* name = "set_u";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<std::uint32_t, 1> o, std::uint32_t v) const {
    o(t.x) = v + static_cast<std::uint32_t>(t.x);
  }
};
struct AddU {
  static constexpr const char* name = "add_u";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<std::uint32_t, 1> o, std::uint32_t k) const {
    o(t.x) += k;
  }
};
struct MixU {  // dst(i) = src(i mod |src|) * 3 + k
  static constexpr const char* name = "mix_u";
  static constexpr std::uint32_t indexed = ctrl::params(0);
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<std::uint32_t, 1> dst, ctrl::In<std::uint32_t, 1> src,
                                   std::uint32_t k) const {
    dst(t.x) = src(t.x % src.extent(0)) * 3U + k;
  }
};
struct AccumulateU {  // dst(i) += src(i mod |src|)
  static constexpr const char* name = "accumulate_u";
  static constexpr std::uint32_t indexed = ctrl::params(0);
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<std::uint32_t, 1> dst,
                                   ctrl::In<std::uint32_t, 1> src) const {
    dst(t.x) += src(t.x % src.extent(0));
  }
};

}  // namespace cudatest
