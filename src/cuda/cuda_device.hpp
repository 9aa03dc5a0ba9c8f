// One CUDA controller's device state, shared by its three parts (execution model, memory space,
// queue): the device, two streams, the events that order them, the library handles and a record
// of the last kernel launched, for messages.
//
// Streams: `compute` runs kernels and library calls in launch order; `copies` runs transfers,
// allocations and frees, so that a launch's copy-in can overlap the kernel before it. They are
// joined by events only where an order is needed:
//   - before a kernel, if anything was put on `copies` since the last join (a copy-in, or an
//     allocation the kernel's tiles may come from), `compute` waits for it;
//   - before a copy-out or a free, if a kernel ran since the last join, `copies` waits for
//     `compute`.
// Everything that enqueues runs on the host thread that calls the controller, under the
// controller core's lock; only synchronize() runs outside it.
#pragma once
#include <ctrl/cuda/context.hpp>
#include <ctrl/cuda/geometry.hpp>
#include <ctrl/detail/launch_body.hpp>

#include <atomic>
#include <cstdint>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace ctrl::detail {

// "cudaErrorMemoryAllocation: out of memory"
std::string cuda_error_text(cudaError_t e);
// Throws DeviceError "<where>: <call> failed: <error>" when status is not cudaSuccess (and
// clears the runtime's last error).
void check(cudaError_t status, const std::string& where, const char* call);
// "1.5 GiB"
std::string byte_size(std::size_t bytes);

class CudaDevice final : public CudaContext {
 public:
  explicit CudaDevice(int index);  // throws DeviceError
  ~CudaDevice() override;
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  // CudaContext
  int device() const override { return index_; }
  const cudaDeviceProp& properties() const override { return props_; }
  cudaStream_t stream() const override { return compute_; }
  cublasHandle_t cublas() override;
  cufftHandle fft_plan(int rank, const int* dims, cufftType type, int batch) override;
  std::string name() const override { return name_; }

  const std::string& label() const { return label_; }  // "cuda:0"
  cudaStream_t copy_stream() const { return copies_; }
  cudaMemPool_t pool() const { return pool_; }
  const cuda_detail::DeviceLimits& limits() const { return limits_; }

  // Makes this device current on the calling thread (cheap when it already is).
  void make_current() const;
  // The same without asking the runtime when ctrl itself made this device current on this thread
  // last (true: trusted, nothing called). Code outside ctrl may have switched devices since: a
  // launch that then fails calls current_was_changed(), which checks, switches back and says so.
  bool make_current_cached() const;
  bool current_was_changed() const;
  // The stream joins described above.
  void before_kernel();
  void before_copy_out();
  // Only enqueuing code counts (under the controller core's lock, one writer at a time), so a
  // load and a store do: no read-modify-write on the launch path.
  void enqueued_on_copies() {
    copies_unjoined_ = true;
    copies_enqueued_.store(copies_enqueued_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }
  void enqueued_on_compute() {
    compute_unjoined_ = true;
    compute_enqueued_.store(compute_enqueued_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }

  // The last kernel launched, for messages about asynchronous failures.
  struct LaunchRecord {
    std::uint64_t number = 0;
    const char* kernel = nullptr;
    Variant variant = Variant::generic;
    CudaGeometry geometry{};
  };
  // Written by the launching thread (one at a time, under the core's lock) without a lock: a
  // sequence counter lets last_launch, on any thread, retry a read that overlapped a write.
  void record_launch(const char* kernel, Variant v, const CudaGeometry& g);
  LaunchRecord read_launch() const;
  std::string last_launch() const;  // "after launch #3 of kernel 'k' (generic, grid 4x1x1, block 256x1x1)"

  // Host tasks on the copy stream (cudaLaunchHostFunc): enqueued, and finished. A copy from
  // pageable host memory may read it when enqueued rather than in stream order, so while a host
  // task may still write that memory such a copy waits for the stream first (CudaMemory::copy_in).
  void host_call_enqueued() { host_calls_enqueued_.fetch_add(1, std::memory_order_relaxed); }
  void host_call_done() { host_calls_done_.fetch_add(1, std::memory_order_release); }
  bool host_calls_pending() const {
    return host_calls_done_.load(std::memory_order_acquire) != host_calls_enqueued_.load(std::memory_order_relaxed);
  }

  // Waits for everything enqueued so far on both streams. Returns null, or the DeviceError of an
  // asynchronous failure naming the call that reported it and the last launch.
  std::exception_ptr synchronize();

 private:
  int index_;
  std::string label_, name_;
  cudaDeviceProp props_{};
  cuda_detail::DeviceLimits limits_{};
  cudaStream_t compute_ = nullptr, copies_ = nullptr;
  cudaEvent_t compute_done_ = nullptr, copies_done_ = nullptr;
  cudaMemPool_t pool_ = nullptr;
  bool copies_unjoined_ = false, compute_unjoined_ = false;
  std::atomic<std::uint64_t> copies_enqueued_{0}, compute_enqueued_{0};
  std::atomic<std::uint64_t> copies_synced_{0}, compute_synced_{0};
  std::atomic<std::uint64_t> host_calls_enqueued_{0}, host_calls_done_{0};

  cublasHandle_t cublas_ = nullptr;
  std::map<std::tuple<int, int, int, int, int, int>, cufftHandle> plans_;

  // The launch record, field by field (relaxed atomics: a torn read is detected by seq_, odd while
  // a write is under way).
  std::atomic<std::uint64_t> seq_{0}, launch_number_{0};
  std::atomic<const char*> launch_kernel_{nullptr};
  std::atomic<unsigned> launch_variant_{0}, launch_items_{1};
  std::atomic<unsigned> launch_grid_[3] = {1, 1, 1}, launch_block_[3] = {1, 1, 1};
};

}  // namespace ctrl::detail
