// Kernel introspection. A kernel is a type with any of these members (the Controllers paper §3.1.1):
//   CTRL_HOST_DEVICE void operator()(ctrl::Thread, params...) const;     generic, every device
//   void cpu(const ctrl::CpuBlock&, params...) const;                     native, CPU cores
//   void cpu_library(ctrl::CpuContext&, params...) const;                 library wrapper, CPU
//   __device__ void cuda(const ctrl::CudaThread&, params...) const;       native CUDA (nvcc only)
//   void cuda_library(ctrl::CudaContext&, params...) const;               library wrapper, GPU
// and optionally
//   static constexpr ctrl::Traits traits{...};          characterization (GPU geometry, CPU balance)
//   static constexpr const char* name = "matadd";       for messages
//   static constexpr std::uint32_t indexed = ctrl::params(0, 1);  tiles the index space indexes
// Every variant takes the same parameters; their types (In/Out/InOut/value) are the data contract.
#pragma once
#include <ctrl/cpu/context.hpp>
#include <ctrl/roles.hpp>
#include <ctrl/threads.hpp>
#include <ctrl/traits.hpp>

#include <cstdint>
#include <type_traits>

namespace ctrl {

// A bitmask of parameter positions, for a kernel's `indexed` member.
template <class... I>
constexpr std::uint32_t params(I... positions) {
  return ((std::uint32_t{1} << positions) | ... | 0U);
}

namespace detail {

template <class... P>
struct param_list {
  static constexpr std::size_t size = sizeof...(P);
};

template <class M>
struct body_params;  // the parameters after the first (Thread or a context)
template <class C, class R, class First, class... P>
struct body_params<R (C::*)(First, P...) const> {
  using type = param_list<P...>;
};
template <class C, class R, class First, class... P>
struct body_params<R (C::*)(First, P...)> {
  static_assert(sizeof(C) == 0, "ctrl kernels: operator(), cpu, cpu_library, cuda and cuda_library must be const");
};

template <class K>
concept has_generic = requires {
  &K::operator();
};
template <class K>
concept has_cpu_native = requires {
  &K::cpu;
};
template <class K>
concept has_cpu_library = requires {
  &K::cpu_library;
};
template <class K>
concept has_cuda_native = requires {
  &K::cuda;
};
template <class K>
concept has_cuda_library = requires {
  &K::cuda_library;
};

template <class K>
auto kernel_params_of() {
  if constexpr (has_generic<K>)
    return typename body_params<decltype(&K::operator())>::type{};
  else if constexpr (has_cpu_library<K>)
    return typename body_params<decltype(&K::cpu_library)>::type{};
  else if constexpr (has_cpu_native<K>)
    return typename body_params<decltype(&K::cpu)>::type{};
  else if constexpr (has_cuda_library<K>)
    return typename body_params<decltype(&K::cuda_library)>::type{};
  else if constexpr (has_cuda_native<K>)
    return typename body_params<decltype(&K::cuda)>::type{};
  else
    static_assert(sizeof(K) == 0,
                  "a ctrl kernel needs operator() or a device variant (cpu, cpu_library, cuda, cuda_library)");
}
template <class K>
using kernel_params_t = decltype(kernel_params_of<K>());

template <class K>
constexpr Traits traits_of() {
  if constexpr (requires { K::traits; })
    return K::traits;
  else
    return Traits{};
}

template <class... P>
constexpr std::size_t count_tiles(param_list<P...>) {
  return (std::size_t{0} + ... + (is_tile_param_v<P> ? 1 : 0));
}

// Maps the kernel's parameter-position mask onto tile-parameter positions.
template <class K, class... P>
constexpr std::uint32_t indexed_tiles_of(param_list<P...>) {
  std::uint32_t positions = ~0U;
  if constexpr (requires { K::indexed; }) positions = K::indexed;
  constexpr bool is_tile[] = {is_tile_param_v<P>..., false};
  std::uint32_t mask = 0;
  std::size_t tile = 0;
  constexpr std::size_t count = sizeof...(P);  // (no "pointless comparison" warning for 0)
  for (std::size_t p = 0; p != count; ++p) {
    if (!is_tile[p]) continue;
    if (positions & (std::uint32_t{1} << p)) mask |= std::uint32_t{1} << tile;
    ++tile;
  }
  return mask;
}

}  // namespace detail
}  // namespace ctrl
