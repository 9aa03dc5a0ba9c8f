// Bandwidth: matadd and Black-Scholes through ctrl (data resident on the GPU) against a
// device-to-device copy measured in the same run (bytes read + written); host <-> device
// transfers through ctrl (tiles the user never pinned) against cudaMemcpyAsync from
// cudaMallocHost memory; wrapped user memory against an owned tile and pageable copies; and what
// page-locking costs once.
#include "bench_support.hpp"

#include "blackscholes/blackscholes_kernels.hpp"
#include "matadd/matadd_kernels.hpp"

#include <ctrl/cuda.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace {

using cudabench::median;

using cudabench::d2d_bandwidth;

CUDA_BENCH(BM_DeviceCopy) {
  BENCH_REQUIRE_GPU(state);
  for (auto _ : state) state.SetIterationTime(2.0 * (1 << 30) / d2d_bandwidth());
  state.counters["GBps"] = d2d_bandwidth() / 1e9;
}
BENCHMARK(BM_DeviceCopy)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

// The coarsening a controller launch of K over the space uses (the geometry table's).
template <class K>
unsigned table_items(const ctrl::Threads& space) {
  return ctrl::cuda_detail::geometry_for(ctrl::detail::traits_of<K>(), space, cudabench::device_limits()).items;
}

// Seconds per launch: `batch` launches then wait, median of rounds.
template <class F>
double per_launch(ctrl::Controller& gpu, int batch, int rounds, F&& launch) {
  launch();
  gpu.wait();
  std::vector<double> t;
  for (int r = 0; r < rounds; ++r) {
    t.push_back(cudabench::seconds([&] {
                  for (int i = 0; i < batch; ++i) launch();
                  gpu.wait();
                }) /
                batch);
  }
  return median(t);
}

CUDA_BENCH(BM_MatAddBandwidth) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t n = 16384;  // three 1 GiB matrices
  ctrl::Tile<float, 2> a({n, n}, "a"), b({n, n}, "b"), c({n, n}, "c");
  cudabench::fill(a.data(), a.size(), 1, -1, 1);
  cudabench::fill(b.data(), b.size(), 2, -1, 1);
  ctrl::Controller gpu{ctrl::cuda(0)};
  gpu.attach(a, b, c);
  double t = 0;
  for (auto _ : state) {
    t = per_launch(gpu, 10, 7, [&] { gpu.launch<apps::MatAdd>(ctrl::Threads(n, n), c, a, b); });
    state.SetIterationTime(t);
  }
  gpu.detach(a, b, c);
  for (ctrl::index_t i = 0; i < n * n; i += 9973)
    if (c[i] != a[i] + b[i]) state.SkipWithError("matadd: wrong result");
  const double bw = 3.0 * static_cast<double>(a.bytes()) / t;
  const unsigned items = table_items<apps::MatAdd>(ctrl::Threads(n, n));
  state.counters["items"] = items;
  cudabench::report(
      state, {"bandwidth", "matadd (16384x16384, generic, " + std::to_string(items) + " items per thread)", "GB/s",
              bw / 1e9, d2d_bandwidth() / 1e9, 0.90, false, "device-to-device copy"});
}
BENCHMARK(BM_MatAddBandwidth)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

// The CUDA samples' Black-Scholes with the device's fast intrinsics (__expf, __logf, __fdividef),
// for comparison with the case study's kernel (accurate expf / logf, the same on every device).
struct BlackScholesIntrinsics {
  static constexpr const char* name = "blackscholes_intrinsics";
  static constexpr ctrl::Traits traits{ctrl::coalescing::full, ctrl::arith::medium, ctrl::sharing::low};
#if CTRL_ON_DEVICE
  CTRL_HOST_DEVICE static float fexp(float x) { return __expf(x); }
  CTRL_HOST_DEVICE static float flog(float x) { return __logf(x); }
  CTRL_HOST_DEVICE static float fdiv(float a, float b) { return __fdividef(a, b); }
#else
  static float fexp(float x) { return std::exp(x); }
  static float flog(float x) { return std::log(x); }
  static float fdiv(float a, float b) { return a / b; }
#endif
  CTRL_HOST_DEVICE static float cnd(float d) {
    const float a1 = 0.31938153F, a2 = -0.356563782F, a3 = 1.781477937F, a4 = -1.821255978F, a5 = 1.330274429F;
    const float k = fdiv(1.0F, 1.0F + 0.2316419F * fabsf(d));
    float c = 0.39894228040143267793994605993438F * fexp(-0.5F * d * d) *
              (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    return d > 0 ? 1.0F - c : c;
  }
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<float> call, ctrl::Out<float> put, ctrl::In<float> price,
                                   ctrl::In<float> strike, ctrl::In<float> years, float r, float v) const {
    const float s = price(t.x), x = strike(t.x), y = years(t.x);
    const float sqrt_t = sqrtf(y);
    const float d1 = fdiv(flog(s / x) + (r + 0.5F * v * v) * y, v * sqrt_t);
    const float d2 = d1 - v * sqrt_t;
    const float c1 = cnd(d1), c2 = cnd(d2), e = fexp(-r * y);
    call(t.x) = s * c1 - x * e * c2;
    put(t.x) = x * e * (1.0F - c2) - s * (1.0F - c1);
  }
};

template <class K>
void black_scholes_bandwidth(benchmark::State& state, const char* what) {
  BENCH_REQUIRE_GPU(state);
  const ctrl::index_t n = ctrl::index_t{1} << 27;  // five 512 MiB arrays
  ctrl::Tile<float, 1> price({n}, "price"), strike({n}, "strike"), years({n}, "years"), call({n}, "call"),
      put({n}, "put");
  cudabench::fill(price.data(), price.size(), 3, 5, 30);
  cudabench::fill(strike.data(), strike.size(), 4, 1, 100);
  cudabench::fill(years.data(), years.size(), 5, 0.25F, 10);
  ctrl::Controller gpu{ctrl::cuda(0)};
  gpu.attach(price, strike, years, call, put);
  double t = 0;
  for (auto _ : state) {
    t = per_launch(gpu, 10, 7, [&] { gpu.launch<K>(ctrl::Threads(n), call, put, price, strike, years, 0.02F, 0.30F); });
    state.SetIterationTime(t);
  }
  gpu.detach(price, strike, years, call, put);
  for (ctrl::index_t i = 0; i < n; i += 99991) {
    float c, p;
    apps::bs::price(c, p, price[i], strike[i], years[i], 0.02F, 0.30F);
    if (std::fabs(c - call[i]) > 1e-3F * (1 + std::fabs(c)) || std::fabs(p - put[i]) > 1e-3F * (1 + std::fabs(p)))
      state.SkipWithError("blackscholes: wrong result");
  }
  const double bw = 5.0 * static_cast<double>(price.bytes()) / t;
  const unsigned items = table_items<K>(ctrl::Threads(n));
  state.counters["items"] = items;
  cudabench::report(state, {"bandwidth", std::string(what) + ", " + std::to_string(items) + " items per thread", "GB/s",
                            bw / 1e9, d2d_bandwidth() / 1e9, 0.90, false, "device-to-device copy"});
}
CUDA_BENCH(BM_BlackScholesBandwidth) {
  black_scholes_bandwidth<apps::BlackScholes>(state, "Black-Scholes (2^27 options, the case study's kernel)");
}
CUDA_BENCH(BM_BlackScholesIntrinsicsBandwidth) {
  black_scholes_bandwidth<BlackScholesIntrinsics>(state, "Black-Scholes (2^27 options, CUDA samples' intrinsics)");
}
BENCHMARK(BM_BlackScholesBandwidth)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BlackScholesIntrinsicsBandwidth)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

// ---- host <-> device -------------------------------------------------------------------------

struct Read {
  static constexpr const char* name = "read";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread, ctrl::In<float> t) const { (void)t; }
};
struct Write {
  static constexpr const char* name = "write";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread, ctrl::Out<float> t) const { (void)t; }
};

constexpr std::size_t transfer_bytes = std::size_t{1} << 30;

// Pinned cudaMemcpyAsync, seconds (events; median of 8).
double pinned_seconds(cudaMemcpyKind kind) {
  void* h = nullptr;
  BENCH_CUDA(cudaMallocHost(&h, transfer_bytes));
  cudabench::fill(static_cast<float*>(h), transfer_bytes / 4, 9, 0, 1);
  cudabench::DeviceArray<char> d(transfer_bytes);
  const double t = cudabench::median_event_seconds(10, 2, [&] {
    if (kind == cudaMemcpyHostToDevice)
      BENCH_CUDA(cudaMemcpyAsync(d.p, h, transfer_bytes, kind));
    else
      BENCH_CUDA(cudaMemcpyAsync(h, d.p, transfer_bytes, kind));
  });
  cudaFreeHost(h);
  return t;
}

CUDA_BENCH(BM_HostToDevice) {
  BENCH_REQUIRE_GPU(state);
  const double raw = pinned_seconds(cudaMemcpyHostToDevice);
  ctrl::Tile<float, 1> t({static_cast<ctrl::index_t>(transfer_bytes / 4)}, "t");
  cudabench::fill(t.data(), t.size(), 10, 0, 1);
  ctrl::Controller gpu{ctrl::cuda(0)};
  std::vector<double> times;
  for (auto _ : state) {
    for (int i = 0; i < 10; ++i) {
      gpu.attach(t);  // the first attach page-locks the tile for its life
      const double s = cudabench::seconds([&] {
        gpu.launch<Read>(ctrl::Threads(0), t);  // the In role brings the tile in
        gpu.wait();
      });
      gpu.detach(t);  // read only: nothing comes back
      if (i >= 2) times.push_back(s);
    }
    state.SetIterationTime(median(times));
  }
  const double gbps = static_cast<double>(transfer_bytes) / median(times) / 1e9;
  cudabench::report(
      state, {"transfers", "host to device (1 GiB tile, never pinned by the user)", "GB/s", gbps,
              static_cast<double>(transfer_bytes) / raw / 1e9, 0.90, false, "cudaMemcpyAsync from cudaMallocHost"});
}
BENCHMARK(BM_HostToDevice)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

CUDA_BENCH(BM_DeviceToHost) {
  BENCH_REQUIRE_GPU(state);
  const double raw = pinned_seconds(cudaMemcpyDeviceToHost);
  ctrl::Tile<float, 1> t({static_cast<ctrl::index_t>(transfer_bytes / 4)}, "t");
  t.fill(1.0F);
  ctrl::Controller gpu{ctrl::cuda(0)};
  std::vector<double> times;
  for (auto _ : state) {
    for (int i = 0; i < 10; ++i) {
      gpu.attach(t);
      gpu.launch<Write>(ctrl::Threads(0), t);  // the Out role makes the device copy the valid one
      gpu.wait();
      const double s = cudabench::seconds([&] { gpu.detach(t); });  // copy out, free, wait
      if (i >= 2) times.push_back(s);
    }
    state.SetIterationTime(median(times));
  }
  const double gbps = static_cast<double>(transfer_bytes) / median(times) / 1e9;
  cudabench::report(
      state, {"transfers", "device to host (1 GiB tile, never pinned by the user)", "GB/s", gbps,
              static_cast<double>(transfer_bytes) / raw / 1e9, 0.90, false, "cudaMemcpyAsync to cudaMallocHost"});
}
BENCHMARK(BM_DeviceToHost)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

// Wrapped memory (ctrl::wrap) side by side with an owned tile and with pageable copies, in one
// run: a std::vector the user filled, wrapped (ctrl registers its pages at the first attach), an
// owned tile (ctrl pins it the same way), and cudaMemcpyAsync from the same kind of vector left
// pageable (what the wrapped vector would get unregistered). Each way: the median of 8 after 2.

// Seconds of one host-to-device (an In launch brings the tile in) and one device-to-host transfer
// (an Out launch, then detach takes it home) of a tile through a controller.
template <class Tile>
std::pair<double, double> ctrl_transfer_seconds(ctrl::Controller& gpu, Tile& t) {
  std::vector<double> in, out;
  for (int i = 0; i < 10; ++i) {
    gpu.attach(t);
    const double s = cudabench::seconds([&] {
      gpu.launch<Read>(ctrl::Threads(0), t);
      gpu.wait();
    });
    gpu.launch<Write>(ctrl::Threads(0), t);
    gpu.wait();
    const double o = cudabench::seconds([&] { gpu.detach(t); });
    if (i >= 2) {
      in.push_back(s);
      out.push_back(o);
    }
  }
  return {median(in), median(out)};
}

CUDA_BENCH(BM_WrappedTransfers) {
  BENCH_REQUIRE_GPU(state);
  const std::size_t n = transfer_bytes / 4;
  std::vector<float> user(n), plain(n);
  cudabench::fill(user.data(), n, 12, 0, 1);
  cudabench::fill(plain.data(), n, 13, 0, 1);
  ctrl::Tile<float, 1> owned({static_cast<ctrl::index_t>(n)}, "owned");
  cudabench::fill(owned.data(), n, 14, 0, 1);
  ctrl::Tile<float, 1> wrapped = ctrl::wrap(user, "wrapped");
  ctrl::Controller gpu{ctrl::cuda(0)};
  std::pair<double, double> w{}, o{};
  double ph = 0, pd = 0;
  for (auto _ : state) {
    w = ctrl_transfer_seconds(gpu, wrapped);
    o = ctrl_transfer_seconds(gpu, owned);
    cudabench::DeviceArray<char> d(transfer_bytes);
    ph = cudabench::median_event_seconds(
        10, 2, [&] { BENCH_CUDA(cudaMemcpyAsync(d.p, plain.data(), transfer_bytes, cudaMemcpyHostToDevice)); });
    pd = cudabench::median_event_seconds(
        10, 2, [&] { BENCH_CUDA(cudaMemcpyAsync(plain.data(), d.p, transfer_bytes, cudaMemcpyDeviceToHost)); });
    state.SetIterationTime(w.first + w.second);
  }
  auto gbps = [](double s) { return static_cast<double>(transfer_bytes) / s / 1e9; };
  state.counters["wrapped_h2d_GBps"] = gbps(w.first);
  state.counters["wrapped_d2h_GBps"] = gbps(w.second);
  state.counters["owned_h2d_GBps"] = gbps(o.first);
  state.counters["owned_d2h_GBps"] = gbps(o.second);
  state.counters["pageable_h2d_GBps"] = gbps(ph);
  state.counters["pageable_d2h_GBps"] = gbps(pd);
  cudabench::report(state, {"transfers", "host to device, wrapped std::vector (1 GiB)", "GB/s", gbps(w.first),
                            gbps(o.first), 0.95, false, "owned tile, same run"});
  cudabench::report(state, {"transfers", "device to host, wrapped std::vector (1 GiB)", "GB/s", gbps(w.second),
                            gbps(o.second), 0.95, false, "owned tile, same run"});
  char line[256];
  std::snprintf(line, sizeof line,
                "1 GiB transfers, GB/s (host to device / device to host): wrapped std::vector %.1f / %.1f, owned "
                "tile %.1f / %.1f, pageable cudaMemcpyAsync %.1f / %.1f",
                gbps(w.first), gbps(w.second), gbps(o.first), gbps(o.second), gbps(ph), gbps(pd));
  cudabench::note(line);
}
BENCHMARK(BM_WrappedTransfers)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

// What the first attach of a tile pays once: cudaHostRegister + cudaHostUnregister of 1 GiB of
// touched pageable memory; and pageable copies, for scale.
CUDA_BENCH(BM_PageLockingCost) {
  BENCH_REQUIRE_GPU(state);
  std::unique_ptr<float, decltype(&std::free)> mem(static_cast<float*>(std::aligned_alloc(4096, transfer_bytes)),
                                                   &std::free);
  if (!mem) throw std::bad_alloc();
  const std::span<float> h(mem.get(), transfer_bytes / 4);
  cudabench::fill(h.data(), h.size(), 11, 0, 1);
  cudabench::DeviceArray<char> d(transfer_bytes);
  double reg = 0, unreg = 0, pageable = 0;
  for (auto _ : state) {
    std::vector<double> r, u, p;
    for (int i = 0; i < 3; ++i) {
      r.push_back(cudabench::seconds(
          [&] { BENCH_CUDA(cudaHostRegister(h.data(), transfer_bytes, cudaHostRegisterPortable)); }));
      u.push_back(cudabench::seconds([&] { BENCH_CUDA(cudaHostUnregister(h.data())); }));
      p.push_back(
          cudabench::seconds([&] { BENCH_CUDA(cudaMemcpy(d.p, h.data(), transfer_bytes, cudaMemcpyHostToDevice)); }));
    }
    reg = median(r);
    unreg = median(u);
    pageable = median(p);
    state.SetIterationTime(reg + unreg);
  }
  state.counters["register_ms_per_GiB"] = reg * 1e3;
  state.counters["unregister_ms_per_GiB"] = unreg * 1e3;
  state.counters["pageable_h2d_GBps"] = static_cast<double>(transfer_bytes) / pageable / 1e9;
  std::printf("page-locking 1 GiB: register %.1f ms, unregister %.1f ms; pageable host-to-device copy %.1f GB/s\n",
              reg * 1e3, unreg * 1e3, static_cast<double>(transfer_bytes) / pageable / 1e9);
}
BENCHMARK(BM_PageLockingCost)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
