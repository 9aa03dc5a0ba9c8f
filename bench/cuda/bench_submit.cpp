// The host cost of a launch through the controller core, without a GPU: a device kind of parts
// that do nothing but what the CUDA kind computes before it calls cudaLaunchKernel (an execution
// model that fits the launch's geometry and runs no body, memory separate from the host, a queue
// that runs each task at once on the caller's thread, as the CUDA kind's StreamQueue does). What
// is left is what ctrl adds to a CUDA launch on the host: the core's checks and bookkeeping, the
// geometry and the hand-off to the queue. Counts heap allocations per launch (a replaced operator new) and
// times launches back to back; run by bench/lab/gpu-check.sh beside bench_cuda (needs no GPU).
#include "../../src/core/device.hpp"

#include <ctrl/ctrl.hpp>
#include <ctrl/cuda/geometry.hpp>

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>

namespace {

std::atomic<std::uint64_t> allocations{0};

}  // namespace

// Not inlined: GCC would otherwise see free() of what `new` returned at the call sites.
[[gnu::noinline]] void* operator new(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

using namespace ctrl::detail;

class NullExecution final : public ExecutionModel {
 public:
  // The CPU family: the benchmark is host code, whose kernels have generic bodies for CPUs only.
  Family family() const override { return Family::cpu; }
  std::string describe() const override { return "runs nothing"; }
  void run(const LaunchBody& body, ctrl::Variant, const ctrl::Threads& space, void* const* ptrs) override {
    const CudaGeometry g = ctrl::cuda_detail::geometry_for(body.traits(), space, limits_);
    benchmark::DoNotOptimize(g);
    benchmark::DoNotOptimize(space.size());
    benchmark::DoNotOptimize(ptrs);
  }

 private:
  ctrl::cuda_detail::DeviceLimits limits_;
};

class NullMemory final : public MemorySpace {
 public:
  bool shared_with_host() const override { return false; }
  std::string describe() const override { return "separate, never copied"; }
  void* allocate(std::size_t bytes) override { return bytes ? &image_ : nullptr; }
  void release(void*) override {}
  void copy_in(void*, const void*, std::size_t) override {}
  void copy_out(void*, const void*, std::size_t) override {}
  void poison(void*, std::size_t, std::size_t) override {}
  PoisonScan find_poison(const void*, std::size_t, std::size_t) override { return {}; }

 private:
  char image_ = 0;
};

// As StreamQueue: tasks run at once; `inline_path` false makes the core use the owning path.
class InlineQueue final : public Queue {
 public:
  explicit InlineQueue(bool inline_path) : inline_path_(inline_path) {}
  std::uint64_t submit(Task task) override {
    task();
    return ++submitted_;
  }
  bool runs_inline() const override { return inline_path_; }
  std::uint64_t submit_inline(TaskRef task) override {
    task();
    return ++submitted_;
  }
  std::uint64_t last_ticket() const override { return submitted_; }
  void wait(std::uint64_t) override {}
  std::exception_ptr take_error(std::uint64_t& failures) override {
    failures = 0;
    return nullptr;
  }
  void start(std::function<void()>) override {}

 private:
  bool inline_path_;
  std::uint64_t submitted_ = 0;
};

template <bool Inline>
DeviceParts make_null_kind(const ctrl::DeviceSpec&) {
  DeviceParts parts;
  parts.exec = std::make_unique<NullExecution>();
  parts.memory = std::make_unique<NullMemory>();
  parts.queue = std::make_unique<InlineQueue>(Inline);
  return parts;
}

// Kernels as the CUDA benchmarks launch them (the generic body never runs here).
struct Empty {
  static constexpr const char* name = "empty";
  void operator()(ctrl::Thread) const {}
};
struct MatAdd {
  static constexpr const char* name = "matadd";
  void operator()(ctrl::Thread t, ctrl::Out<float, 2> c, ctrl::In<float, 2> a, ctrl::In<float, 2> b) const {
    c(t.x, t.y) = a(t.x, t.y) + b(t.x, t.y);
  }
};

ctrl::DeviceSpec null_spec(bool inline_path) {
  static const bool registered = [] {
    register_kind("null_inline", &make_null_kind<true>);
    register_kind("null_owning", &make_null_kind<false>);
    return true;
  }();
  (void)registered;
  ctrl::DeviceSpec s;
  s.kind = inline_path ? "null_inline" : "null_owning";
  s.index = 0;
  return s;
}

template <class Launch>
void time_launches(benchmark::State& state, ctrl::Controller& c, Launch&& launch) {
  launch();
  const std::uint64_t before = allocations.load();
  std::uint64_t n = 0;
  for (auto _ : state) {
    launch();
    ++n;
  }
  state.counters["allocations_per_launch"] =
      n ? static_cast<double>(allocations.load() - before) / static_cast<double>(n) : 0;
  c.wait();
}

// Arg: 1 = the inline path (CUDA's queue), 0 = the owning path (queue threads' kinds).
void BM_SubmitEmpty(benchmark::State& state) {
  ctrl::Controller c{null_spec(state.range(0) != 0)};
  time_launches(state, c, [&] { c.launch<Empty, false>(ctrl::Threads(1)); });
}
BENCHMARK(BM_SubmitEmpty)->Arg(1)->Arg(0)->ArgName("inline");

void BM_SubmitMatAdd(benchmark::State& state) {
  ctrl::Tile<float, 2> a({64, 64}, "a"), b({64, 64}, "b"), out({64, 64}, "c");
  ctrl::Controller c{null_spec(state.range(0) != 0)};
  c.attach(a, b, out);
  time_launches(state, c, [&] { c.launch<MatAdd, false>(ctrl::Threads(64, 64), out, a, b); });
  c.detach(a, b, out);
}
BENCHMARK(BM_SubmitMatAdd)->Arg(1)->Arg(0)->ArgName("inline");

}  // namespace

BENCHMARK_MAIN();
