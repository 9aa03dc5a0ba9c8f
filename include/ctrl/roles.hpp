// Parameter roles. A kernel's signature is its data contract: the type of each parameter says
// whether the controller must bring the tile's data to the device before the launch (In, InOut),
// and whether the launch makes the device copy the only valid one (Out, InOut). Any other
// parameter type is passed by value.
#pragma once
#include <ctrl/view.hpp>

#include <type_traits>

namespace ctrl {

enum class Role : unsigned char { in = 1, out = 2, inout = 3, value = 0 };

constexpr bool reads(Role r) { return (static_cast<unsigned>(r) & 1U) != 0; }
constexpr bool writes(Role r) { return (static_cast<unsigned>(r) & 2U) != 0; }
const char* role_name(Role r);

// Read-only tile parameter: the data must be valid on the device before the kernel runs.
template <class T, std::size_t N = 1>
struct In : View<const T, N> {
  using value_type = T;
  static constexpr Role role = Role::in;
  using View<const T, N>::View;
};

// Write-only tile parameter: the kernel writes every element; the device copy becomes the valid
// one and nothing is copied in first. A kernel that writes only some must take the tile as InOut
// (ControllerOptions::check_out finds the ones that do not).
template <class T, std::size_t N = 1>
struct Out : View<T, N> {
  using value_type = T;
  static constexpr Role role = Role::out;
  using View<T, N>::View;
};

// Read-write tile parameter.
template <class T, std::size_t N = 1>
struct InOut : View<T, N> {
  using value_type = T;
  static constexpr Role role = Role::inout;
  using View<T, N>::View;
};

namespace detail {
template <class P>
struct role_of {
  static constexpr Role value = Role::value;
  static constexpr bool is_tile = false;
};
template <class T, std::size_t N, Role R>
struct tile_role {
  static constexpr Role value = R;
  static constexpr bool is_tile = true;
  using element = T;
  static constexpr std::size_t rank = N;
};
template <class T, std::size_t N>
struct role_of<In<T, N>> : tile_role<T, N, Role::in> {};
template <class T, std::size_t N>
struct role_of<Out<T, N>> : tile_role<T, N, Role::out> {};
template <class T, std::size_t N>
struct role_of<InOut<T, N>> : tile_role<T, N, Role::inout> {};
}  // namespace detail

// True for In, Out and InOut parameter types.
template <class P>
inline constexpr bool is_tile_param_v = detail::role_of<std::remove_cvref_t<P>>::is_tile;

template <class P>
inline constexpr Role role_of_v = detail::role_of<std::remove_cvref_t<P>>::value;

}  // namespace ctrl
