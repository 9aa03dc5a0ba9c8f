// View: a non-owning, row-major n-D window on elements in one memory space. Host tiles hand out
// views of host memory; controllers hand kernels views of the memory of their device. Element
// access is the same expression everywhere: v(i, j).
#pragma once
#include <ctrl/config.hpp>
#include <ctrl/threads.hpp>

#include <cstddef>
#include <type_traits>

namespace ctrl {

inline constexpr std::size_t max_tile_rank = 4;

template <class T, std::size_t N>
class View {
  static_assert(N >= 1 && N <= max_tile_rank, "ctrl tiles have 1 to 4 dimensions");
  static_assert(std::is_trivially_copyable_v<std::remove_const_t<T>>,
                "ctrl tiles hold trivially copyable elements only");

 public:
  using element_type = T;
  static constexpr std::size_t rank = N;

  CTRL_HOST_DEVICE constexpr View() : data_(nullptr), ext_{} {}
  CTRL_HOST_DEVICE constexpr View(T* data, const index_t (&ext)[N]) : data_(data), ext_{} {
    for (std::size_t d = 0; d < N; ++d) ext_[d] = ext[d];
  }

  CTRL_HOST_DEVICE constexpr T* data() const { return data_; }
  CTRL_HOST_DEVICE constexpr index_t extent(std::size_t d) const { return ext_[d]; }
  CTRL_HOST_DEVICE constexpr index_t size() const {
    index_t s = 1;
    for (std::size_t d = 0; d < N; ++d) s *= ext_[d];
    return s;
  }

  // Row-major element access: v(i), v(i, j), v(i, j, k), v(i, j, k, l).
  template <class... I>
  CTRL_HOST_DEVICE CTRL_FORCEINLINE T& operator()(I... i) const {
    static_assert(sizeof...(I) == N, "a tile of rank N takes exactly N indexes");
    return data_[offset(static_cast<index_t>(i)...)];
  }
  CTRL_HOST_DEVICE CTRL_FORCEINLINE T& operator[](index_t linear) const { return data_[linear]; }

 private:
  CTRL_HOST_DEVICE CTRL_FORCEINLINE index_t offset(index_t i0) const { return i0; }
  CTRL_HOST_DEVICE CTRL_FORCEINLINE index_t offset(index_t i0, index_t i1) const { return i0 * ext_[1] + i1; }
  CTRL_HOST_DEVICE CTRL_FORCEINLINE index_t offset(index_t i0, index_t i1, index_t i2) const {
    return (i0 * ext_[1] + i1) * ext_[2] + i2;
  }
  CTRL_HOST_DEVICE CTRL_FORCEINLINE index_t offset(index_t i0, index_t i1, index_t i2, index_t i3) const {
    return ((i0 * ext_[1] + i1) * ext_[2] + i2) * ext_[3] + i3;
  }

  T* data_;
  index_t ext_[N];
};

}  // namespace ctrl
