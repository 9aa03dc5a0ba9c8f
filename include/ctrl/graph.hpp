// Recorded launches (docs/model.md, "Recorded launches"): a sequence of launches on one controller,
// recorded once and replayed many times at a fraction of a launch's cost. On a GPU controller a
// recording is a CUDA graph; on CPU kinds a replay is one queue entry that runs the launches in turn.
//
//   float dt = 0.1F;
//   ctrl::Graph step = gpu.record([&] {                     // nothing runs while recording
//     gpu.launch<JacobiCopy>(whole, copy, M);
//     gpu.launch<Relax>(inner, M, copy, ctrl::ref(dt));     // dt is read at each replay
//   });
//   gpu.replay(step, 1000);                                 // queued, like 2000 launches
//   dt = 0.05F;                                             // the next replay uses the new value
//   gpu.replay(step);
//   gpu.detach(M);                                          // waits, brings M home
//
// The rule for tiles: a replay is one launch whose roles are those of the recorded sequence. A
// tile the sequence reads before it writes is copied in before the replay if the controller's copy
// is not the valid one; a tile it writes is the controller's afterwards. So a replay moves exactly
// the data the same launches, made one by one, would. The tiles must still be attached to (or
// internal to) the controller when a replay is queued: one that was detached, destroyed or freed
// since is a UsageError at replay(); attached again, it is used where it now lives.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

namespace ctrl {

namespace detail {
struct GraphState;
}

// A value argument bound by reference: read when the launch is queued, and in a recording when
// each replay is queued (a changed value updates the recording before that replay runs).
template <class T>
struct Ref {
  const T* ptr;
};
template <class T>
Ref<T> ref(const T& variable) {
  static_assert(std::is_trivially_copyable_v<T>, "ctrl::ref binds trivially copyable values");
  return Ref<T>{&variable};
}
template <class T>
void ref(const T&&) = delete;  // a temporary would be gone by the next replay

template <class T>
inline constexpr bool is_ref_v = false;
template <class T>
inline constexpr bool is_ref_v<Ref<T>> = true;

// The launches Controller::record captured: a handle (copies share the recording), replayed with
// Controller::replay on the controller that recorded it. A default-constructed Graph is empty.
class Graph {
 public:
  Graph() = default;
  bool empty() const { return launches() == 0; }
  std::size_t launches() const;    // how many launches a replay makes
  std::string controller() const;  // the name of the controller that recorded it ("cuda:0"); "" if none

 private:
  friend class Controller;
  explicit Graph(std::shared_ptr<detail::GraphState> s) : state_(std::move(s)) {}
  std::shared_ptr<detail::GraphState> state_;
};

namespace detail {
// Bit i set: argument i is a ctrl::Ref.
template <class... A>
constexpr std::uint32_t ref_mask() {
  std::uint32_t mask = 0, i = 0;
  ((mask |= (is_ref_v<std::remove_cvref_t<A>> ? std::uint32_t{1} << i : 0U), ++i), ...);
  return mask;
}
}  // namespace detail

}  // namespace ctrl
