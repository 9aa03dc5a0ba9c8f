#include "cuda_device.hpp"

#include <fmt/format.h>

#include <limits>
#include <thread>

namespace ctrl {

namespace detail {

void check(cudaError_t status, const std::string& where, const char* call) {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();  // a non-sticky error must not resurface at the next check
  throw DeviceError(fmt::format("{}: {} failed: {}", where, call, cuda_error_text(status)));
}

std::string byte_size(std::size_t bytes) {
  static constexpr const char* unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) v /= 1024.0, ++u;
  return u == 0 ? fmt::format("{} bytes", bytes) : fmt::format("{:.1f} {}", v, unit[u]);
}

namespace {

// One memory pool per device for every ctrl controller on it, kept for the process's life: freed
// images stay reserved for the next attach (a release threshold of "never"), and the pool is
// trimmed when an allocation fails.
cudaMemPool_t pool_for(int device, const std::string& where) {
  static std::mutex mutex;
  static std::map<int, cudaMemPool_t>* pools = new std::map<int, cudaMemPool_t>();  // never freed
  std::lock_guard lock(mutex);
  auto it = pools->find(device);
  if (it != pools->end()) return it->second;
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool = nullptr;
  check(cudaMemPoolCreate(&pool, &props), where, "cudaMemPoolCreate");
  std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
  check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), where, "cudaMemPoolSetAttribute");
  pools->emplace(device, pool);
  return pool;
}

bool sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

}  // namespace

CudaDevice::CudaDevice(int index) : index_(index), label_(fmt::format("cuda:{}", index)) {
  try {
    check(cudaSetDevice(index), label_, "cudaSetDevice");
    check(cudaGetDeviceProperties(&props_, index), label_, "cudaGetDeviceProperties");
    name_ = fmt::format("{} ({})", label_, props_.name);
    for (int d = 0; d < 3; ++d) limits_.max_grid[d] = static_cast<unsigned>(props_.maxGridSize[d]);
    limits_.multiprocessors = static_cast<unsigned>(props_.multiProcessorCount);
    limits_.threads_per_multiprocessor = static_cast<unsigned>(props_.maxThreadsPerMultiProcessor);
    limits_.blocks_per_multiprocessor = static_cast<unsigned>(props_.maxBlocksPerMultiProcessor);
    check(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking), label_, "cudaStreamCreateWithFlags");
    check(cudaStreamCreateWithFlags(&copies_, cudaStreamNonBlocking), label_, "cudaStreamCreateWithFlags");
    check(cudaEventCreateWithFlags(&compute_done_, cudaEventDisableTiming), label_, "cudaEventCreateWithFlags");
    check(cudaEventCreateWithFlags(&copies_done_, cudaEventDisableTiming), label_, "cudaEventCreateWithFlags");
    pool_ = pool_for(index, label_);
  } catch (...) {
    if (copies_done_) cudaEventDestroy(copies_done_);
    if (compute_done_) cudaEventDestroy(compute_done_);
    if (copies_) cudaStreamDestroy(copies_);
    if (compute_) cudaStreamDestroy(compute_);
    throw;
  }
}

CudaDevice::~CudaDevice() {
  // Errors cannot leave a destructor; a lost context makes all of these fail, harmlessly.
  if (cudaSetDevice(index_) != cudaSuccess) return;
  cudaStreamSynchronize(compute_);
  cudaStreamSynchronize(copies_);
  for (auto& [key, plan] : plans_) cufftDestroy(plan);
  if (cublas_) cublasDestroy(cublas_);
  cudaEventDestroy(copies_done_);
  cudaEventDestroy(compute_done_);
  cudaStreamDestroy(copies_);
  cudaStreamDestroy(compute_);
  (void)cudaGetLastError();
}

namespace {
// The device ctrl last made current on this thread (-1: none, or unknown).
thread_local int made_current = -1;
}  // namespace

void CudaDevice::make_current() const {
  int current = -1;
  if (cudaGetDevice(&current) != cudaSuccess || current != index_) {
    made_current = -1;
    check(cudaSetDevice(index_), label_, "cudaSetDevice");
  }
  made_current = index_;
}

bool CudaDevice::make_current_cached() const {
  if (made_current == index_) return true;
  make_current();
  return false;
}

bool CudaDevice::current_was_changed() const {
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current == index_) return false;
  make_current();
  return true;
}

void CudaDevice::before_kernel() {
  if (!copies_unjoined_) return;
  make_current();  // rare (after copies), so checked
  check(cudaEventRecord(copies_done_, copies_), label_, "cudaEventRecord");
  check(cudaStreamWaitEvent(compute_, copies_done_, 0), label_, "cudaStreamWaitEvent");
  copies_unjoined_ = false;
}

void CudaDevice::before_copy_out() {
  if (!compute_unjoined_) return;
  check(cudaEventRecord(compute_done_, compute_), label_, "cudaEventRecord");
  check(cudaStreamWaitEvent(copies_, compute_done_, 0), label_, "cudaStreamWaitEvent");
  compute_unjoined_ = false;
  copies_enqueued_.fetch_add(1, std::memory_order_relaxed);
}

cublasHandle_t CudaDevice::cublas() {
  if (!cublas_) {
    make_current();
    cublasHandle_t h = nullptr;
    cublas_check(cublasCreate(&h), "cublasCreate");
    const cublasStatus_t s = cublasSetStream(h, compute_);
    if (s != CUBLAS_STATUS_SUCCESS) {
      cublasDestroy(h);
      cublas_check(s, "cublasSetStream");
    }
    cublas_ = h;
  }
  return cublas_;
}

cufftHandle CudaDevice::fft_plan(int rank, const int* dims, cufftType type, int batch) {
  if (rank < 1 || rank > 3)
    throw UsageError(fmt::format("{}: fft_plan: rank {} (cuFFT plans have rank 1 to 3)", label_, rank));
  const auto key =
      std::make_tuple(rank, dims[0], rank > 1 ? dims[1] : 0, rank > 2 ? dims[2] : 0, static_cast<int>(type), batch);
  auto it = plans_.find(key);
  if (it != plans_.end()) return it->second;
  make_current();
  int n[3] = {dims[0], rank > 1 ? dims[1] : 1, rank > 2 ? dims[2] : 1};
  cufftHandle plan = 0;
  cufft_check(cufftPlanMany(&plan, rank, n, nullptr, 1, 0, nullptr, 1, 0, type, batch), "cufftPlanMany");
  const cufftResult r = cufftSetStream(plan, compute_);
  if (r != CUFFT_SUCCESS) {
    cufftDestroy(plan);
    cufft_check(r, "cufftSetStream");
  }
  plans_.emplace(key, plan);
  return plan;
}

void CudaDevice::record_launch(const char* kernel, Variant v, const CudaGeometry& g) {
  constexpr auto relaxed = std::memory_order_relaxed;
  const std::uint64_t s = seq_.load(relaxed);
  seq_.store(s + 1, relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  launch_number_.store(launch_number_.load(relaxed) + 1, relaxed);
  launch_kernel_.store(kernel, relaxed);
  launch_variant_.store(static_cast<unsigned>(v), relaxed);
  launch_items_.store(g.items, relaxed);
  for (int d = 0; d < 3; ++d) {
    launch_grid_[d].store(g.grid[d], relaxed);
    launch_block_[d].store(g.block[d], relaxed);
  }
  seq_.store(s + 2, std::memory_order_release);
}

CudaDevice::LaunchRecord CudaDevice::read_launch() const {
  constexpr auto relaxed = std::memory_order_relaxed;
  LaunchRecord r;
  for (;;) {
    const std::uint64_t s = seq_.load(std::memory_order_acquire);
    if (s % 2 == 0) {
      r.number = launch_number_.load(relaxed);
      r.kernel = launch_kernel_.load(relaxed);
      r.variant = static_cast<Variant>(launch_variant_.load(relaxed));
      r.geometry.items = launch_items_.load(relaxed);
      for (int d = 0; d < 3; ++d) {
        r.geometry.grid[d] = launch_grid_[d].load(relaxed);
        r.geometry.block[d] = launch_block_[d].load(relaxed);
      }
      std::atomic_thread_fence(std::memory_order_acquire);
      if (seq_.load(relaxed) == s) return r;
    }
    std::this_thread::yield();
  }
}

std::string CudaDevice::last_launch() const {
  const LaunchRecord last = read_launch();
  if (last.number == 0) return "before any kernel launch";
  const CudaGeometry& g = last.geometry;
  if (last.variant == Variant::library) {
    return fmt::format("after kernel launch #{}, '{}' (library)", last.number, last.kernel);
  }
  return fmt::format("after kernel launch #{}, '{}' ({}, grid {}x{}x{}, block {}x{}x{}{})", last.number, last.kernel,
                     variant_name(last.variant), g.grid[0], g.grid[1], g.grid[2], g.block[0], g.block[1], g.block[2],
                     g.items > 1 ? fmt::format(", {} items per thread", g.items) : std::string());
}

std::exception_ptr CudaDevice::synchronize() {
  struct Stream {
    cudaStream_t stream;
    std::atomic<std::uint64_t>& enqueued;
    std::atomic<std::uint64_t>& synced;
    const char* what;
  };
  Stream streams[] = {{compute_, compute_enqueued_, compute_synced_, "compute"},
                      {copies_, copies_enqueued_, copies_synced_, "copy"}};
  for (Stream& s : streams) {
    const std::uint64_t target = s.enqueued.load(std::memory_order_acquire);
    if (s.synced.load(std::memory_order_acquire) >= target) continue;
    try {
      make_current();
    } catch (...) {
      return std::current_exception();
    }
    const cudaError_t e = cudaStreamSynchronize(s.stream);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      return std::make_exception_ptr(DeviceError(fmt::format(
          "{}: {} reported by cudaStreamSynchronize on the {} stream, {}{}", label_, cuda_error_text(e), s.what,
          last_launch(),
          sticky(e) ? "; the error is sticky: the device's CUDA context is lost and every later CUDA call on it in "
                      "this process fails"
                    : "")));
    }
    std::uint64_t seen = s.synced.load(std::memory_order_relaxed);
    while (seen < target && !s.synced.compare_exchange_weak(seen, target)) {
    }
  }
  return nullptr;
}

}  // namespace detail
}  // namespace ctrl
