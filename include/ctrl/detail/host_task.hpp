// BoundHostTask: a host task (Controller::host_task) bound to its arguments, behind the
// type-erased HostTaskBody. Its parameters are a kernel's (In, Out, InOut tiles; values), read
// from the callable's signature; tile pointers arrive when it runs: the tiles' host memory.
#pragma once
#include <ctrl/detail/bound_kernel.hpp>

#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

namespace ctrl::detail {

class HostTaskBody {
 public:
  virtual ~HostTaskBody() = default;
  virtual void run(void* const* host_ptrs) = 0;
};

// The parameters of a function, or of a callable's one operator() (a lambda that is not generic).
template <class M>
struct call_params;
template <class R, class... P>
struct call_params<R (*)(P...)> {
  using type = param_list<P...>;
};
template <class R, class... P>
struct call_params<R (*)(P...) noexcept> : call_params<R (*)(P...)> {};
template <class C, class R, class... P>
struct call_params<R (C::*)(P...)> : call_params<R (*)(P...)> {};
template <class C, class R, class... P>
struct call_params<R (C::*)(P...) const> : call_params<R (*)(P...)> {};
template <class C, class R, class... P>
struct call_params<R (C::*)(P...) noexcept> : call_params<R (*)(P...)> {};
template <class C, class R, class... P>
struct call_params<R (C::*)(P...) const noexcept> : call_params<R (*)(P...)> {};

template <class F>
auto host_task_params() {
  using D = std::decay_t<F>;
  if constexpr (std::is_pointer_v<D>)
    return typename call_params<D>::type{};
  else if constexpr (requires { &D::operator(); })
    return typename call_params<decltype(&D::operator())>::type{};
  else
    static_assert(sizeof(D) == 0,
                  "host_task takes a function or a callable with one operator() (a lambda whose parameters are "
                  "not auto): its parameter types are the task's data contract");
}
template <class F>
using host_task_params_t = decltype(host_task_params<F>());

template <class F, class List>
class BoundHostTask;

template <class F, class... P>
class BoundHostTask<F, param_list<P...>> final : public HostTaskBody {
  static constexpr auto tile_slot = tile_slots<P...>();

 public:
  template <class G, class... A>
  explicit BoundHostTask(G&& f, A&&... args)
      : f_(std::forward<G>(f)), stored_(store_param<P, false>(std::forward<A>(args))...) {}

  void run(void* const* ptrs) override {
    [&]<std::size_t... I>(std::index_sequence<I...>) { f_(make<I>(ptrs)...); }
    (std::index_sequence_for<P...>{});
  }

 private:
  template <std::size_t I>
  auto make(void* const* ptrs) const {
    using Q = std::remove_cvref_t<std::tuple_element_t<I, std::tuple<P...>>>;
    if constexpr (is_tile_param_v<Q>)
      return make_view<Q>(ptrs[tile_slot[I]], std::get<I>(stored_));
    else
      return std::get<I>(stored_);
  }

  F f_;
  std::tuple<typename stored_param<P>::type...> stored_;
};

}  // namespace ctrl::detail
