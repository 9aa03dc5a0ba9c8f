// The CUDA device kind (the Controllers paper §3–4): a composition of
//   - CudaExecution: kernels as CUDA grids on the controller's compute stream, their block shape
//     from the kernel's characterization (include/ctrl/cuda/geometry.hpp); library variants on
//     the same stream and the controller's cuBLAS handle / cuFFT plans;
//   - CudaMemory: a separate memory space; images in a stream-ordered pool, transfers on the
//     copy stream from page-locked host memory (host_pinning.hpp);
//   - StreamQueue: no host thread. submit() runs the task at once on the caller's thread; the
//     task only enqueues asynchronous work on the streams, so a launch costs what the CUDA launch
//     costs. wait() synchronizes the streams; an asynchronous failure becomes a DeviceError
//     naming the call that reported it and the last kernel launched.
#include "cuda_device.hpp"
#include "cuda_replay.hpp"
#include "host_pinning.hpp"

#include "../core/device.hpp"

#include <ctrl/cuda/driver.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace ctrl::detail {

// One launch: its work enqueued on ctx.stream(), the device's compute stream or, while a replay
// plan captures a sequence, the plan's capture stream (cuda_replay.cpp).
void run_cuda_launch(CudaDevice& dev, CudaContext& ctx, const LaunchBody& body, Variant v, const Threads& space,
                     void* const* ptrs) {
  if (v == Variant::library) {
    dev.make_current();
    dev.before_kernel();
    dev.record_launch(body.kernel_name(), v, CudaGeometry{});
    body.run_cuda_library(ctx, ptrs);
    dev.enqueued_on_compute();
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
      throw DeviceError(
          fmt::format("{}: a CUDA call of the library variant failed: {}", dev.label(), cuda_error_text(e)));
    }
    return;
  }
  if (space.empty()) return;
  // The hot path of a launch: the device checked against this thread's record of what ctrl made
  // current (a launch that fails because other code switched devices is retried below).
  const bool trusted = dev.make_current_cached();
  dev.before_kernel();
  const CudaGeometry g = cuda_detail::geometry_for(body.traits(), space, dev.limits(), v != Variant::native);
  if (v == Variant::native && cuda_detail::needs_grid_loop(g, space)) {
    throw DeviceError(
        fmt::format("{}: the index space {} needs more blocks of {}x{}x{} than a CUDA grid holds; "
                    "native variants are not looped (generic ones are)",
                    dev.label(), space.str(), g.block[0], g.block[1], g.block[2]));
  }
  dev.record_launch(body.kernel_name(), v, g);
  auto e = static_cast<cudaError_t>(body.run_cuda(v, ctx, g, space, ptrs));
  if (e != cudaSuccess && trusted && dev.current_was_changed()) {
    (void)cudaGetLastError();
    e = static_cast<cudaError_t>(body.run_cuda(v, ctx, g, space, ptrs));
  }
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // the status is reported here; it must not resurface at the next check
    throw DeviceError(fmt::format("{}: the kernel launch failed: {} (grid {}x{}x{}, block {}x{}x{}{})", dev.label(),
                                  cuda_error_text(e), g.grid[0], g.grid[1], g.grid[2], g.block[0], g.block[1],
                                  g.block[2],
                                  g.items > 1 ? fmt::format(", {} items per thread", g.items) : std::string()));
  }
  dev.enqueued_on_compute();
}

namespace {

// Whether `dev` can copy from GPU `peer`'s images directly: the same GPU, or GPUs with peer
// access, which is set up here the first time a pair is asked, for the process's life: peer access
// (cudaDeviceEnablePeerAccess; access that code outside ctrl enabled counts) and, because a
// memory pool's allocations do not follow it, access of `dev` to the peer's pool
// (cudaMemPoolSetAccess), where ctrl's images live.
bool peer_access(CudaDevice& dev, const CudaDevice& peer) {
  if (peer.device() == dev.device()) return true;
  static std::mutex mutex;
  static auto* known = new std::map<std::pair<int, int>, bool>();  // never freed
  std::lock_guard lock(mutex);
  const auto key = std::make_pair(dev.device(), peer.device());
  if (auto it = known->find(key); it != known->end()) return it->second;
  int can = 0;
  check(cudaDeviceCanAccessPeer(&can, dev.device(), peer.device()), dev.label(), "cudaDeviceCanAccessPeer");
  if (can != 0) {
    dev.make_current();
    const std::string where = fmt::format("{} (access to {})", dev.label(), peer.label());
    const cudaError_t e = cudaDeviceEnablePeerAccess(peer.device(), 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled)
      (void)cudaGetLastError();
    else
      check(e, where, "cudaDeviceEnablePeerAccess");
    cudaMemAccessDesc access{};
    access.location.type = cudaMemLocationTypeDevice;
    access.location.id = dev.device();
    access.flags = cudaMemAccessFlagsProtReadWrite;
    check(cudaMemPoolSetAccess(peer.pool(), &access, 1), where, "cudaMemPoolSetAccess");
  }
  known->emplace(key, can != 0);
  return can != 0;
}

class CudaExecution final : public ExecutionModel {
 public:
  explicit CudaExecution(std::shared_ptr<CudaDevice> dev) : dev_(std::move(dev)) {}

  Family family() const override { return Family::cuda; }
  std::string describe() const override {
    const cudaDeviceProp& p = dev_->properties();
    return fmt::format("{}, sm_{}{}, {} multiprocessors, kernels as CUDA grids on the controller's stream", p.name,
                       p.major, p.minor, p.multiProcessorCount);
  }

  void run(const LaunchBody& body, Variant v, const Threads& space, void* const* ptrs) override {
    run_cuda_launch(*dev_, *dev_, body, v, space, ptrs);
  }
  std::unique_ptr<ReplayPlan> plan_replays() override { return make_cuda_replay_plan(dev_); }

 private:
  std::shared_ptr<CudaDevice> dev_;
};

class CudaMemory final : public MemorySpace {
 public:
  explicit CudaMemory(std::shared_ptr<CudaDevice> dev) : dev_(std::move(dev)) {}

  bool shared_with_host() const override { return false; }
  std::string describe() const override {
    return fmt::format("a separate memory space ({} on the device), copies from page-locked host memory",
                       byte_size(dev_->properties().totalGlobalMem));
  }

  void* allocate(std::size_t bytes) override {
    if (bytes == 0) return nullptr;
    dev_->make_current();
    void* p = nullptr;
    cudaError_t e = cudaMallocFromPoolAsync(&p, bytes, dev_->pool(), dev_->copy_stream());
    if (e == cudaErrorMemoryAllocation) {
      // Images freed earlier stay reserved in the pool: give them back and try once more.
      (void)cudaGetLastError();
      if (dev_->synchronize() == nullptr) {
        (void)cudaMemPoolTrimTo(dev_->pool(), 0);
        e = cudaMallocFromPoolAsync(&p, bytes, dev_->pool(), dev_->copy_stream());
      }
    }
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      std::size_t free_bytes = 0, total = 0;
      const bool info = cudaMemGetInfo(&free_bytes, &total) == cudaSuccess;
      (void)cudaGetLastError();
      throw DeviceError(
          fmt::format("{}: {} of device memory: cudaMallocFromPoolAsync of {} failed: {}{}", dev_->label(),
                      e == cudaErrorMemoryAllocation ? "out" : "no allocation", byte_size(bytes), cuda_error_text(e),
                      info ? fmt::format(" ({} free of {})", byte_size(free_bytes), byte_size(total)) : std::string()));
    }
    dev_->enqueued_on_copies();
    return p;
  }

  void release(void* p) override {
    if (!p) return;
    dev_->make_current();
    dev_->before_copy_out();  // the kernels that use it come first
    check(cudaFreeAsync(p, dev_->copy_stream()), dev_->label(), "cudaFreeAsync");
    dev_->enqueued_on_copies();
  }

  void copy_in(void* device, const void* host, std::size_t bytes) override {
    if (bytes == 0) return;
    dev_->make_current();
    for (const HostPiece& piece : host_pieces(const_cast<void*>(host), bytes)) {
      if (!piece.pinned && dev_->host_calls_pending())
        check(cudaStreamSynchronize(dev_->copy_stream()), dev_->label(), "cudaStreamSynchronize");
      const cudaError_t e = cudaMemcpyAsync(static_cast<char*>(device) + piece.offset, piece.host, piece.bytes,
                                            cudaMemcpyHostToDevice, dev_->copy_stream());
      if (e != cudaSuccess) {
        (void)cudaGetLastError();
        throw DeviceError(fmt::format("{}: cudaMemcpyAsync of {} from the host ({}) failed: {}", dev_->label(),
                                      byte_size(piece.bytes), piece.pinned ? "page-locked" : "pageable",
                                      cuda_error_text(e)));
      }
    }
    dev_->enqueued_on_copies();
  }

  void copy_out(void* host, const void* device, std::size_t bytes) override {
    if (bytes == 0) return;
    dev_->make_current();
    dev_->before_copy_out();
    for (const HostPiece& piece : host_pieces(host, bytes)) {
      const cudaError_t e = cudaMemcpyAsync(piece.host, static_cast<const char*>(device) + piece.offset, piece.bytes,
                                            cudaMemcpyDeviceToHost, dev_->copy_stream());
      if (e != cudaSuccess) {
        (void)cudaGetLastError();
        throw DeviceError(fmt::format("{}: cudaMemcpyAsync of {} to the host ({}) failed: {}", dev_->label(),
                                      byte_size(piece.bytes), piece.pinned ? "page-locked" : "pageable",
                                      cuda_error_text(e)));
      }
    }
    dev_->enqueued_on_copies();
  }

  // Another CUDA controller's images: on the same GPU a device-to-device copy; on another GPU a
  // peer copy, where the two GPUs can reach each other (peer access, set up once per pair).
  bool reaches(const MemorySpace& source) override {
    const auto* other = dynamic_cast<const CudaMemory*>(&source);
    return other != nullptr && peer_access(*dev_, *other->dev_);
  }

  // On this controller's copy stream, so that its later kernels wait for it (before_kernel);
  // the giver's writers finished before the core called this.
  void copy_from(void* image, const MemorySpace& source, const void* from, std::size_t bytes) override {
    if (bytes == 0) return;
    const int peer = dynamic_cast<const CudaMemory&>(source).dev_->device();
    const bool same = peer == dev_->device();
    dev_->make_current();
    const cudaError_t e = same ? cudaMemcpyAsync(image, from, bytes, cudaMemcpyDeviceToDevice, dev_->copy_stream())
                               : cudaMemcpyPeerAsync(image, dev_->device(), from, peer, bytes, dev_->copy_stream());
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      throw DeviceError(fmt::format("{}: {} of {} from cuda:{} failed: {}", dev_->label(),
                                    same ? "cudaMemcpyAsync" : "cudaMemcpyPeerAsync", byte_size(bytes), peer,
                                    cuda_error_text(e)));
    }
    dev_->enqueued_on_copies();
  }

  // Checking mode: the device code of ctrl lives in users' .cu files, not here, so the pattern is
  // copied in once and doubled by device-to-device copies on the copy stream (the kernel waits
  // for them, as for a copy-in). Its source is static and never changes: the copy may read it late.
  void poison(void* image, std::size_t bytes, std::size_t elem_size) override {
    if (bytes == 0) return;
    dev_->make_current();
    dev_->before_copy_out();  // after the kernels queued before, which may still use the image
    auto* p = static_cast<char*>(image);
    std::size_t done = std::min(bytes, poison_block_bytes);
    check(cudaMemcpyAsync(p, poison_block(elem_size), done, cudaMemcpyHostToDevice, dev_->copy_stream()), dev_->label(),
          "cudaMemcpyAsync (poison)");
    while (done < bytes) {
      const std::size_t n = std::min(done, bytes - done);
      check(cudaMemcpyAsync(p + done, p, n, cudaMemcpyDeviceToDevice, dev_->copy_stream()), dev_->label(),
            "cudaMemcpyAsync (poison)");
      done += n;
    }
    dev_->enqueued_on_copies();
  }

  // The image comes home and is scanned there; the launch waits for it (checking mode is slow).
  PoisonScan find_poison(const void* image, std::size_t bytes, std::size_t elem_size) override {
    if (bytes == 0) return {};
    dev_->make_current();
    dev_->before_copy_out();  // after the kernel that wrote it
    auto host = std::make_unique_for_overwrite<unsigned char[]>(bytes);
    check(cudaMemcpyAsync(host.get(), image, bytes, cudaMemcpyDeviceToHost, dev_->copy_stream()), dev_->label(),
          "cudaMemcpyAsync (Out check)");
    dev_->enqueued_on_copies();
    if (std::exception_ptr e = dev_->synchronize()) std::rethrow_exception(e);
    return scan_poison(host.get(), bytes, elem_size);
  }

  void tile_attached(TileState& t) override {
    dev_->make_current();
    pin_tile_range(t);
  }
  void tile_detached(TileState&) override {}  // registrations live as long as the storage

 private:
  std::shared_ptr<CudaDevice> dev_;
};

// Runs each task at once on the submitting thread: tasks only enqueue work on the streams.
class StreamQueue final : public Queue {
 public:
  explicit StreamQueue(std::shared_ptr<CudaDevice> dev) : dev_(std::move(dev)) {}

  std::uint64_t submit(Task task) override { return submit_inline(TaskRef(task)); }
  bool runs_inline() const override { return true; }
  std::uint64_t submit_inline(TaskRef task) override {
    // Later tasks still run after a failure: the coherence record was settled at submission. The
    // failure is reported at the next wait or detach, as with a queue thread.
    const std::uint64_t ticket = submitted_.load(std::memory_order_relaxed) + 1;
    submitted_.store(ticket, std::memory_order_release);
    try {
      task();
    } catch (...) {
      record(std::current_exception());
    }
    return ticket;
  }
  // The copies home on the copy stream, then the task as a host function after them (and, joined
  // by before_copy_out, after the kernels before it); later kernels wait for the copy stream.
  std::uint64_t submit_host(Task copies, Task host) override {
    const std::uint64_t ticket = submitted_.load(std::memory_order_relaxed) + 1;
    submitted_.store(ticket, std::memory_order_release);
    try {
      copies();
      dev_->make_current();
      dev_->before_copy_out();
      auto call = std::make_unique<HostCall>(HostCall{this, std::move(host)});
      check(cudaLaunchHostFunc(dev_->copy_stream(), &StreamQueue::run_host_call, call.get()), dev_->label(),
            "cudaLaunchHostFunc");
      call.release();  // run_host_call frees it
      dev_->host_call_enqueued();
      dev_->enqueued_on_copies();
    } catch (...) {
      record(std::current_exception());
    }
    return ticket;
  }
  // An event: a CUDA event on the copy stream once it has joined the compute stream (so after all
  // the work queued before). A CUDA waiter's streams wait for it on the device; any other waiter
  // polls it (EventState::poll), so no CUDA callback ever waits for another controller's callback.
  void record_event(const std::shared_ptr<EventState>& e) override {
    dev_->make_current();
    cudaEvent_t ev = nullptr;
    check(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), dev_->label(), "cudaEventCreateWithFlags");
    e->release = [ev] { (void)cudaEventDestroy(ev); };
    e->cuda_event = ev;
    e->poll = [ev] {
      const cudaError_t s = cudaEventQuery(ev);
      if (s == cudaErrorNotReady) return 0;
      (void)cudaGetLastError();
      return s == cudaSuccess ? 1 : -1;
    };
    dev_->before_copy_out();
    check(cudaEventRecord(ev, dev_->copy_stream()), dev_->label(), "cudaEventRecord");
  }
  // A CUDA event: both streams wait for it on the device. Another controller's: a host function
  // blocks the copy stream until it is reached, and later kernels wait for the copy stream.
  void wait_event(const std::shared_ptr<EventState>& e, const std::string& waiter) override {
    if (e->cuda_event) {
      dev_->make_current();
      auto* ev = static_cast<cudaEvent_t>(e->cuda_event);
      check(cudaStreamWaitEvent(dev_->stream(), ev, 0), dev_->label(), "cudaStreamWaitEvent");
      check(cudaStreamWaitEvent(dev_->copy_stream(), ev, 0), dev_->label(), "cudaStreamWaitEvent");
      return;
    }
    submit_host([] {}, [e, waiter] { e->block(waiter); });
  }
  std::uint64_t last_ticket() const override { return submitted_.load(std::memory_order_acquire); }
  void wait(std::uint64_t /*ticket*/) override {
    // One order on each stream: waiting for all of it waits for the ticket.
    if (std::exception_ptr e = dev_->synchronize()) record(e);
  }
  std::exception_ptr take_error(std::uint64_t& failures) override {
    std::lock_guard lock(error_mutex_);
    failures = failures_;
    failures_ = 0;
    return std::exchange(error_, nullptr);
  }
  void start(std::function<void()> /*on_thread_start*/) override {}  // no thread to start

 private:
  struct HostCall {
    StreamQueue* queue;
    Task task;
  };
  // On CUDA's callback thread; a failure is kept for the next wait, as a kernel's is.
  static void CUDART_CB run_host_call(void* p) {
    std::unique_ptr<HostCall> call(static_cast<HostCall*>(p));
    try {
      call->task();
    } catch (...) {
      call->queue->record(std::current_exception());
    }
    call->queue->dev_->host_call_done();
  }
  void record(std::exception_ptr e) {
    std::lock_guard lock(error_mutex_);
    if (!error_) error_ = std::move(e);
    ++failures_;
  }

  std::shared_ptr<CudaDevice> dev_;
  std::atomic<std::uint64_t> submitted_{0};
  std::mutex error_mutex_;
  std::exception_ptr error_;
  std::uint64_t failures_ = 0;
};

}  // namespace

DeviceParts make_cuda_kind(const DeviceSpec& spec) {
  if (spec.index < 0) {
    throw UsageError(fmt::format("device '{}': a CUDA device needs its number, as in cuda:0", spec.str()));
  }
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) throw DeviceError(fmt::format("{}: {}", spec.str(), no_cuda_device_reason(e)));
  if (spec.index >= count) {
    throw DeviceError(fmt::format("{}: no such CUDA device: this machine has {} (cuda:0{})", spec.str(), count,
                                  count > 1 ? fmt::format(" to cuda:{}", count - 1) : std::string()));
  }
  auto dev = std::make_shared<CudaDevice>(spec.index);
  DeviceParts parts;
  parts.exec = std::make_unique<CudaExecution>(dev);
  parts.memory = std::make_unique<CudaMemory>(dev);
  parts.queue = std::make_unique<StreamQueue>(dev);
  return parts;
}

}  // namespace ctrl::detail

// The backend's one entry point, found by name when libctrl loads this library (src/backends.cpp).
extern "C" ctrl::detail::KindFactory ctrl_cuda_kind_factory() { return &ctrl::detail::make_cuda_kind; }
