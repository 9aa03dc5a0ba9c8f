// For the native CUDA twins of the case studies (hand-written CUDA with hand-written transfers,
// no ctrl runtime) and the benchmarks that run them: error checks, a stream, page-locking of the
// host arrays (done once, outside the timing, as a careful CUDA programmer does), and device
// buffers from a stream-ordered pool that keeps its memory between runs.
#pragma once
#include <ctrl/cuda/driver.hpp>
#include <ctrl/device_spec.hpp>
#include <ctrl/errors.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <string>

namespace apps::native_cuda {

inline void check(cudaError_t e, const char* call) {
  if (e == cudaSuccess) return;
  (void)cudaGetLastError();
  throw ctrl::DeviceError(std::string(call) + " failed: " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}
#define APPS_CUDA(call) ::apps::native_cuda::check((call), #call)

// The GPU a twin runs on: cuda:N from --device, cuda:0 for any other kind. Makes it current and
// lets its default memory pool keep freed memory (no unmapping and remapping between runs).
inline int use_device(const ctrl::DeviceSpec& spec) {
  const int dev = spec.is_cuda() && spec.index >= 0 ? spec.index : 0;
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0)
    throw ctrl::DeviceError("cuda:" + std::to_string(dev) + ": " + ctrl::detail::no_cuda_device_reason(e));
  if (dev >= count) throw ctrl::DeviceError("cuda:" + std::to_string(dev) + ": no such CUDA device");
  APPS_CUDA(cudaSetDevice(dev));
  cudaMemPool_t pool = nullptr;
  APPS_CUDA(cudaDeviceGetDefaultMemPool(&pool, dev));
  std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
  APPS_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  return dev;
}

class Stream {
 public:
  Stream() { APPS_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  operator cudaStream_t() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

// Page-locks host memory for as long as it lives.
class HostPin {
 public:
  HostPin(const void* p, std::size_t bytes) : p_(const_cast<void*>(p)) {
    if (bytes)
      APPS_CUDA(cudaHostRegister(p_, bytes, cudaHostRegisterPortable));
    else
      p_ = nullptr;
  }
  ~HostPin() {
    if (p_) cudaHostUnregister(p_);
  }
  HostPin(const HostPin&) = delete;
  HostPin& operator=(const HostPin&) = delete;

 private:
  void* p_;
};

template <class T>
T* device_alloc(std::size_t n, cudaStream_t s) {
  void* p = nullptr;
  if (n) APPS_CUDA(cudaMallocAsync(&p, n * sizeof(T), s));
  return static_cast<T*>(p);
}
inline void device_free(void* p, cudaStream_t s) {
  if (p) APPS_CUDA(cudaFreeAsync(p, s));
}
inline void to_device(void* d, const void* h, std::size_t bytes, cudaStream_t s) {
  if (bytes) APPS_CUDA(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, s));
}
inline void to_host(void* h, const void* d, std::size_t bytes, cudaStream_t s) {
  if (bytes) APPS_CUDA(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s));
}
inline void finish(cudaStream_t s) {
  APPS_CUDA(cudaGetLastError());
  APPS_CUDA(cudaStreamSynchronize(s));
}

inline unsigned blocks(std::int64_t n, unsigned per_block) {
  return static_cast<unsigned>((n + per_block - 1) / per_block);
}

}  // namespace apps::native_cuda
