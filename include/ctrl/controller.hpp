// Controller: owns one device and hides its programming model (the Controllers paper §3–4).
//
//   ctrl::Controller gpu{ctrl::cuda(0)}, cpu{ctrl::cpu({4, 5, 6, 7})};
//   gpu.attach(A, B, C);                                     // the host keeps its hands off
//   gpu.launch<MatAdd>(ctrl::Threads(n, n), C, A, B);        // queued; returns at once
//   gpu.detach(C);                                           // waits, brings C home
//
// Launches run in FIFO order, asynchronously. Data moves only when a kernel's parameter roles
// demand it. A kernel that throws, or a device that fails, surfaces at the next wait() or detach()
// as a ctrl::KernelError / ctrl::DeviceError; the controller stays usable.
#pragma once
#include <ctrl/detail/bound_kernel.hpp>
#include <ctrl/detail/host_task.hpp>
#include <ctrl/device_spec.hpp>
#include <ctrl/errors.hpp>
#include <ctrl/event.hpp>
#include <ctrl/graph.hpp>
#include <ctrl/tile.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ctrl {

namespace detail {
class ControllerCore;
// Distinguishes the instantiations made by nvcc from those made by a host compiler, so that a
// launch compiled without nvcc never stands in for one compiled with it (no ODR clash).
inline constexpr bool compiled_by_nvcc = CTRL_DEVICE_CODE != 0;

struct TileUse {
  TileState* tile;
  Role role;
};
}  // namespace detail

// Bytes and copies moved between the host and a controller's memory, each way, and from another
// controller's memory straight into this one's (take: peer copies between GPUs, or between two
// GPU controllers of one GPU), counted by the controller that receives them.
struct TransferStats {
  std::uint64_t bytes_in = 0, copies_in = 0;      // host -> device
  std::uint64_t bytes_out = 0, copies_out = 0;    // device -> host
  std::uint64_t bytes_peer = 0, copies_peer = 0;  // another controller's device -> this device
  friend bool operator==(const TransferStats&, const TransferStats&) = default;
};

// How a controller works, beyond which device it owns.
struct ControllerOptions {
  // Checking mode for Out parameters (docs/model.md, "Out: the kernel writes every element"):
  // before each launch, every Out tile's image on the controller is filled with a poison pattern;
  // after it, elements still holding the pattern fail the launch with a KernelError, at the next
  // wait() or detach(), naming the kernel, the launch, the tile and the first element left
  // unwritten. It waits for each launch and scans its Out tiles: for tests and debugging. Transfer
  // counts are those of the unchecked run. The environment turns it on for every controller of a
  // process without changing code: CTRL_CHECK_OUT=1 (0 or empty: as the options say).
  bool check_out = false;
};

class Controller {
 public:
  explicit Controller(const DeviceSpec& device, const ControllerOptions& options = {});
  explicit Controller(std::string_view device, const ControllerOptions& options = {})
      : Controller(parse_device(device), options) {}
  ~Controller();  // waits, detaches what is still attached, frees internal tiles; never throws
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // Binds host tiles to this controller until detach.
  template <class... T>
  void attach(T&... tiles) {
    (attach_state(tiles.state_ptr()), ...);
  }
  // Waits for the queued launches that use the tiles, brings valid data home and unbinds them.
  template <class... T>
  void detach(T&... tiles) {
    std::vector<std::shared_ptr<detail::TileState>> states{tiles.state_ptr()...};
    detach_states(states);
  }
  // Moves tiles attached or internal to another controller to this one, which then holds them as
  // if it had attached (or created) them itself (docs/model.md, "Moving a tile between
  // controllers"). Waits for the launches queued on the giving controller; data that only its
  // memory holds is copied here directly where this controller's memory reaches it (GPU to GPU:
  // a peer copy, counted in transfers().bytes_peer), otherwise through the host memory (a copy
  // out there, then in here as after an attach). Returns when the data has moved. A tile already
  // on this controller stays; one on no controller is a UsageError (attach it).
  template <class... T>
  void take(T&... tiles) {
    std::vector<std::shared_ptr<detail::TileState>> states{tiles.state_ptr()...};
    take_states(states);
  }
  // Internal tiles live in this controller's memory only (declare them with ctrl::shape_only).
  template <class... T>
  void create_internal(T&... tiles) {
    (create_internal_state(tiles.state_ptr()), ...);
  }
  template <class... T>
  void destroy_internal(T&... tiles) {
    (destroy_internal_state(tiles.state_ptr()), ...);
  }

  // Queues kernel K over the index space; arguments follow K's parameters (tiles for In/Out/InOut).
  template <class K, bool Nvcc = detail::compiled_by_nvcc, class... A>
  void launch(const Threads& space, A&&... args) {
    launch_with<K, Nvcc>(K{}, Variant::automatic, space, std::forward<A>(args)...);
  }
  // The same, asking for one variant (generic, native or library) or passing a kernel object.
  template <class K, bool Nvcc = detail::compiled_by_nvcc, class... A>
  void launch(Variant variant, const Threads& space, A&&... args) {
    launch_with<K, Nvcc>(K{}, variant, space, std::forward<A>(args)...);
  }
  template <class K, bool Nvcc = detail::compiled_by_nvcc, class... A>
  void launch_with(const K& kernel, Variant variant, const Threads& space, A&&... args) {
    using Params = detail::kernel_params_t<K>;
    static_assert(Params::size == sizeof...(A), "launch: the number of arguments differs from the kernel's parameters");
    detail::TileUse uses[detail::count_tiles(Params{}) + 1];
    collect_uses(uses, Params{}, args...);
    // Moved to the heap only if needed.
    detail::BoundKernel<K, Nvcc, Params, detail::ref_mask<A...>()> body(kernel, std::forward<A>(args)...);
    submit(body, variant, space, uses, detail::count_tiles(Params{}));
  }

  // Queues f(args...) to run on the host in this controller's queue order: after the launches
  // queued before it have finished, before those queued after it start; returns at once. f is a
  // function or a lambda whose parameters are a kernel's (docs/model.md, "Host tasks"): its tile
  // parameters are views of the tiles' host memory, made current for In and InOut ones (copied
  // home first where the device holds newer data); what it writes through Out and InOut ones
  // reaches the device when a later launch reads it. The tiles must be attached here; values
  // are copied when queued.
  //
  //   gpu.launch<Step>(space, grid);
  //   gpu.host_task([](ctrl::In<float, 2> g, ctrl::Out<double> norm) { norm[0] = max_abs(g); }, grid, norm);
  //   gpu.launch<Step>(space, grid);  // runs after the task; nothing waited on the host
  //
  // An exception from f fails the task as a kernel's fails its launch: a KernelError at the next
  // wait() or detach(), naming the task and the controller; later work still runs. f runs on a
  // thread of the controller's queue and must not call a controller itself (a UsageError there).
  template <class F, class... A>
  void host_task(F&& f, A&&... args) {
    using Params = detail::host_task_params_t<F>;
    static_assert(Params::size == sizeof...(A),
                  "host_task: the number of arguments differs from the task's parameters");
    static_assert((!is_ref_v<std::remove_cvref_t<A>> && ...),
                  "host_task: ctrl::ref binds values of recorded launches; a host task copies its values when queued");
    detail::TileUse uses[detail::count_tiles(Params{}) + 1];
    collect_uses(uses, Params{}, args...);
    submit_host_task(
        std::make_unique<detail::BoundHostTask<std::decay_t<F>, Params>>(std::forward<F>(f), std::forward<A>(args)...),
        uses, detail::count_tiles(Params{}));
  }

  // An event after the work queued here so far (launches, host tasks, the copies they need): it is
  // reached once that work has finished. Returns at once. Another controller's wait_for(event)
  // orders its later work after it (docs/model.md, "Events between controllers").
  Event record_event();
  // The work queued here after this call starts once `event` (recorded on any controller) is
  // reached; returns at once, and no host thread waits. An event of this controller is already
  // in order. An event that is never reached (its controller destroyed after its device failed)
  // fails this controller's work with a DeviceError at the next wait(), naming both controllers,
  // as does one not reached within event_timeout.
  void wait_for(const Event& event);

  // Records the launches f makes on this controller, without running them, as a graph that
  // replay() runs again (include/ctrl/graph.hpp has the rules). The launches are checked as they
  // are recorded, as any launch is. While f runs, this controller only records: attach, detach,
  // create_internal, destroy_internal, take, update_host/update_device, copy_rows, wait, replay
  // and a nested record are UsageErrors. If f throws, nothing is recorded, and it propagates.
  template <class F>
  Graph record(F&& f) {
    begin_recording();
    try {
      std::forward<F>(f)();
    } catch (...) {
      abort_recording();
      throw;
    }
    return end_recording();
  }
  // Queues the recorded launches `times` times in a row: one queue entry (a CUDA graph launch on a
  // GPU), with the copies the sequence's roles demand before it. Failures are reported at the next
  // wait() or detach(), as a launch's are. A graph replays only on the controller that recorded it.
  void replay(const Graph& graph, std::uint64_t times = 1);

  // Rows [begin, end) of an attached tile (its first dimension), moved while it stays attached: a
  // halo whose rows the host holds (docs/loop.md, "Halos"; copy_rows takes them from a
  // neighbour's tile). update_host waits for the launches queued before it and brings those rows
  // of the device's copy home; update_device copies those rows of the host memory, which the
  // caller has just written, into the device's copy before any later launch. Both return when
  // the rows have moved; only the rows move (counted by transfers()); nothing moves on a kind
  // that shares the host's memory, or when the side being updated is the one in use.
  template <class T>
  void update_host(T& tile, index_t begin, index_t end) {
    update_rows(tile.state_ptr(), begin, end, true);
  }
  template <class T>
  void update_device(T& tile, index_t begin, index_t end) {
    update_rows(tile.state_ptr(), begin, end, false);
  }
  // Rows [begin, end) of `tile` (attached or internal here) replaced by rows [from, from + end -
  // begin) of `source`, a tile attached or internal to another controller, with rows of the same
  // size: a stencil's halo taken from the neighbour that computed it (docs/loop.md, "Halos").
  // Waits for the launches queued on both controllers, then copies by the shortest path: straight
  // from the other controller's memory where this one's reaches it (GPU to GPU: a peer copy, or a
  // copy within one GPU; counted in transfers().bytes_peer), a memcpy between host memories (CPU
  // kinds: nothing counted), otherwise through host memory (the other controller counts the copy
  // out, this one the copy in). Returns when the rows have moved. Neither tile may be moved,
  // detached or written by another thread meanwhile.
  template <class T, class U>
  void copy_rows(T& tile, index_t begin, index_t end, const U& source, index_t from) {
    copy_rows_state(tile.state_ptr(), begin, end, source.state_ptr(), from);
  }

  // Waits for every queued launch; rethrows the first failure since the last wait. On a CPU
  // controller of all the cores, the waiting thread may run a launch itself, in the place of the
  // worker of the core it is on, instead of handing it to the queue thread (docs/model.md, "Launch
  // cost on CPU cores"): same order, same results, same errors.
  void wait();

  const DeviceSpec& spec() const;
  std::string name() const;         // "cpu:0-3"
  std::string description() const;  // "4 cores (0-3), shared memory, 4 workers"
  bool shares_host_memory() const;
  bool checks_out() const;  // checking mode for Out parameters: the option or CTRL_CHECK_OUT=1
  TransferStats transfers() const;
  void reset_transfers();

 private:
  template <class... P, class... A>
  static void collect_uses([[maybe_unused]] detail::TileUse* out, detail::param_list<P...>, A&... args) {
    [[maybe_unused]] std::size_t n = 0;
    (add_use<P>(out, n, args), ...);
  }
  template <class P, class A>
  static void add_use(detail::TileUse* out, std::size_t& n, A& arg) {
    if constexpr (is_tile_param_v<P>) {
      if constexpr (is_tile_v<std::remove_cvref_t<A>>) out[n++] = {&arg.state(), role_of_v<P>};
    }
  }

  void attach_state(const std::shared_ptr<detail::TileState>& s);
  void detach_states(const std::vector<std::shared_ptr<detail::TileState>>& s);
  void take_states(const std::vector<std::shared_ptr<detail::TileState>>& s);
  void create_internal_state(const std::shared_ptr<detail::TileState>& s);
  void destroy_internal_state(const std::shared_ptr<detail::TileState>& s);
  void update_rows(const std::shared_ptr<detail::TileState>& s, index_t begin, index_t end, bool to_host);
  void copy_rows_state(const std::shared_ptr<detail::TileState>& s, index_t begin, index_t end,
                       const std::shared_ptr<detail::TileState>& source, index_t from);
  void submit(detail::LaunchBody& body, Variant variant, const Threads& space, const detail::TileUse* uses,
              std::size_t n_uses);
  void submit_host_task(std::unique_ptr<detail::HostTaskBody> body, const detail::TileUse* uses, std::size_t n_uses);
  void begin_recording();
  Graph end_recording();
  void abort_recording() noexcept;

  std::unique_ptr<detail::ControllerCore> core_;
};

}  // namespace ctrl
