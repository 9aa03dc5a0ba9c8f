// BoundKernel: a kernel bound to one launch's value arguments and tile shapes, behind the
// type-erased LaunchBody. Tile pointers arrive at run time, already resolved to the memory of the
// device that runs it.
#pragma once
#include <ctrl/config.hpp>
#include <ctrl/detail/launch_body.hpp>
#include <ctrl/kernel.hpp>
#include <ctrl/tile.hpp>

#include <array>
#include <cstring>
#include <string>
#include <tuple>
#include <typeinfo>
#include <utility>

#if CTRL_DEVICE_CODE && CTRL_HAVE_CUDA_BACKEND
#include <ctrl/cuda/generic_launch.cuh>
#endif

namespace ctrl::detail {

template <std::size_t N>
struct TileExtents {
  index_t ext[N];
};

// A value argument bound by ctrl::ref: the value the body uses and the variable it comes from.
template <class T>
struct BoundValue {
  T value;
  const T* ref;
};

template <class P, bool Tile = is_tile_param_v<P>, bool Ref = false>
struct stored_param {
  using type = std::remove_cvref_t<P>;
};
template <class P>
struct stored_param<P, true, false> {
  using type = TileExtents<role_of<std::remove_cvref_t<P>>::rank>;
};
template <class P>
struct stored_param<P, false, true> {
  using type = BoundValue<std::remove_cvref_t<P>>;
};

template <std::uint32_t Refs, class Seq, class... P>
struct stored_tuple;
template <std::uint32_t Refs, std::size_t... I, class... P>
struct stored_tuple<Refs, std::index_sequence<I...>, P...> {
  using type = std::tuple<typename stored_param<P, is_tile_param_v<P>, ((Refs >> I) & 1U) != 0>::type...>;
};

[[noreturn]] void throw_not_compiled_for_cuda(const char* kernel);

// Slot i: the position of parameter i among the tile parameters (its index into the pointers a
// body receives); 0 for value parameters.
template <class... P>
constexpr std::array<std::size_t, sizeof...(P) + 1> tile_slots() {
  std::array<std::size_t, sizeof...(P) + 1> slot{};
  constexpr bool is_tile[] = {is_tile_param_v<P>..., false};
  std::size_t next = 0;
  for (std::size_t i = 0; i < sizeof...(P); ++i) slot[i] = is_tile[i] ? next++ : 0;
  return slot;
}

// What a body keeps of argument `a` for parameter Param: a tile's extents (the tile checked
// against the parameter at compile time), a value, or a value bound by ctrl::ref.
template <class Param, bool Bound, class A>
typename stored_param<Param, is_tile_param_v<Param>, Bound>::type store_param(A&& a) {
  using Q = std::remove_cvref_t<Param>;
  if constexpr (Bound) {
    static_assert(!is_tile_param_v<Q>, "ctrl::ref binds value parameters; a tile parameter takes the tile");
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(*a.ptr)>, Q>,
                  "ctrl::ref binds a variable of the value parameter's exact type");
    return {*a.ptr, a.ptr};
  } else if constexpr (is_tile_param_v<Q>) {
    using Arg = std::remove_cvref_t<A>;
    static_assert(is_tile_v<Arg>, "a tile parameter (In/Out/InOut) takes a ctrl::Tile argument");
    static_assert(std::is_same_v<std::remove_const_t<typename Arg::element_type>, typename role_of<Q>::element>,
                  "a tile argument's element type differs from the kernel parameter's");
    static_assert(!std::is_const_v<typename Arg::element_type> || role_of<Q>::value == Role::in,
                  "a tile of const elements (wrapped const memory) can only be taken as In");
    static_assert(Arg::rank == role_of<Q>::rank, "a tile argument's rank differs from the kernel parameter's");
    TileExtents<role_of<Q>::rank> e{};
    for (std::size_t d = 0; d < Arg::rank; ++d) e.ext[d] = a.extent(d);
    return e;
  } else {
    static_assert(!is_tile_v<std::remove_cvref_t<A>>, "a value parameter cannot take a ctrl::Tile argument");
    return Q(std::forward<A>(a));
  }
}

// Tile parameter Q as a view of `ptr`, the tile's memory where the body runs.
template <class Q, std::size_t N>
Q make_view(void* ptr, const TileExtents<N>& e) {
  using E = typename role_of<Q>::element;
  using Ptr = std::conditional_t<role_of<Q>::value == Role::in, const E*, E*>;
  return Q(static_cast<Ptr>(ptr), e.ext);
}

// Refs: bit i set when argument i is a ctrl::Ref (the body then keeps the variable's address).
template <class K, bool Nvcc, class List, std::uint32_t Refs = 0>
class BoundKernel;

template <class K, bool Nvcc, class... P, std::uint32_t Refs>
class BoundKernel<K, Nvcc, param_list<P...>, Refs> final : public LaunchBody {
  using Stored = typename stored_tuple<Refs, std::index_sequence_for<P...>, P...>::type;
  static constexpr bool is_bound(std::size_t i) { return ((Refs >> i) & 1U) != 0; }
  static constexpr auto tile_slot = tile_slots<P...>();

 public:
  template <class... A>
  explicit BoundKernel(const K& kernel, A&&... args)
      : BoundKernel(std::index_sequence_for<P...>{}, kernel, std::forward<A>(args)...) {}

  std::unique_ptr<LaunchBody> move_to_heap() override { return std::make_unique<BoundKernel>(std::move(*this)); }

  const char* kernel_name() const override {
    if constexpr (requires { K::name; })
      return K::name;
    else {
      static const std::string name = demangle(typeid(K).name());
      return name.c_str();
    }
  }
  Traits traits() const override { return traits_of<K>(); }
  std::uint32_t indexed_tiles() const override { return indexed_tiles_of<K>(param_list<P...>{}); }

  bool has(Family f, Variant v) const override {
    if (f == Family::cpu) {
      return (v == Variant::generic && has_generic<K>) || (v == Variant::native && has_cpu_native<K>) ||
             (v == Variant::library && has_cpu_library<K>);
    }
    return (v == Variant::generic && has_generic<K> && Nvcc) || (v == Variant::native && has_cuda_native<K> && Nvcc) ||
           (v == Variant::library && has_cuda_library<K>);
  }

  void run_cpu_block(Variant v, const CpuBlock& b, void* const* ptrs) const override {
    with_params(ptrs, [&](const P&... p) {
      if constexpr (has_cpu_native<K>) {
        if (v == Variant::native) return kernel_.cpu(b, p...);
      }
      if constexpr (has_generic<K>) generic_loop(b, p...);
    });
  }

  void run_cpu_library(CpuContext& ctx, void* const* ptrs) const override {
    if constexpr (has_cpu_library<K>) with_params(ptrs, [&](const P&... p) { kernel_.cpu_library(ctx, p...); });
  }

  int run_cuda(Variant v, CudaContext& ctx, const CudaGeometry& g, const Threads& space,
               void* const* ptrs) const override {
#if CTRL_DEVICE_CODE && CTRL_HAVE_CUDA_BACKEND
    if constexpr (Nvcc) {
      int status = 0;
      with_params(ptrs, [&](const P&... p) { status = cuda_detail::launch<K>(v, ctx, g, space, kernel_, p...); });
      return status;
    }
#endif
    (void)v, (void)ctx, (void)g, (void)space, (void)ptrs;
    throw_not_compiled_for_cuda(kernel_name());
  }

  void run_cuda_library(CudaContext& ctx, void* const* ptrs) const override {
    if constexpr (has_cuda_library<K>) with_params(ptrs, [&](const P&... p) { kernel_.cuda_library(ctx, p...); });
  }

  bool binds_values() const override { return Refs != 0; }
  bool values_changed() const override {
    if constexpr (Refs == 0) {
      return false;
    } else {
      return [&]<std::size_t... I>(std::index_sequence<I...>) { return (bound_changed<I>() || ...); }
      (std::index_sequence_for<P...>{});
    }
  }
  void reload_values() override {
    if constexpr (Refs != 0) {
      [&]<std::size_t... I>(std::index_sequence<I...>) { (reload<I>(), ...); }
      (std::index_sequence_for<P...>{});
    }
  }

 private:
  template <std::size_t... I, class... A>
  BoundKernel(std::index_sequence<I...>, const K& kernel, A&&... args)
      : kernel_(kernel), stored_(store_param<P, is_bound(I)>(std::forward<A>(args))...) {}

  // Bytes compared, not operator==: a value type need not have one, and a NaN equals itself here.
  template <std::size_t I>
  bool bound_changed() const {
    if constexpr (is_bound(I)) {
      const auto& b = std::get<I>(stored_);
      return std::memcmp(&b.value, b.ref, sizeof(b.value)) != 0;
    } else {
      return false;
    }
  }
  template <std::size_t I>
  void reload() {
    if constexpr (is_bound(I)) {
      auto& b = std::get<I>(stored_);
      std::memcpy(&b.value, b.ref, sizeof(b.value));
    }
  }

  template <std::size_t I>
  auto make(void* const* ptrs) const {
    using Q = std::remove_cvref_t<std::tuple_element_t<I, std::tuple<P...>>>;
    if constexpr (is_tile_param_v<Q>)
      return make_view<Q>(ptrs[tile_slot[I]], std::get<I>(stored_));
    else if constexpr (is_bound(I))
      return std::get<I>(stored_).value;
    else
      return std::get<I>(stored_);
  }

  template <class F>
  void with_params(void* const* ptrs, F&& f) const {
    [&]<std::size_t... I>(std::index_sequence<I...>) { f(make<I>(ptrs)...); }
    (std::index_sequence_for<P...>{});
  }

  // The generic body over one block; the innermost loop walks the last dimension so that
  // consecutive iterations touch consecutive elements (and the compiler can vectorise). The bounds
  // are copied first: the body's stores could otherwise alias them and force a reload per element.
  void generic_loop(const CpuBlock& b, const P&... p) const {
    const index_t x0 = b.x.lo, x1 = b.x.hi, y0 = b.y.lo, y1 = b.y.hi, z0 = b.z.lo, z1 = b.z.hi;
    switch (b.space.dims()) {
      case 1:
        for (index_t x = x0; x < x1; ++x) kernel_(Thread{x, 0, 0}, p...);
        break;
      case 2:
        for (index_t x = x0; x < x1; ++x)
          for (index_t y = y0; y < y1; ++y) kernel_(Thread{x, y, 0}, p...);
        break;
      default:
        for (index_t x = x0; x < x1; ++x)
          for (index_t y = y0; y < y1; ++y)
            for (index_t z = z0; z < z1; ++z) kernel_(Thread{x, y, z}, p...);
    }
  }

  K kernel_;
  Stored stored_;
};

}  // namespace ctrl::detail
