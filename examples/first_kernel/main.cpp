// A kernel, a controller: c = a + b on this machine's GPU where it has one, else on an offload
// device (CPU cores with a memory of their own: the same attach, launch, detach and transfers).
// README.md quotes this file.
#include <ctrl/ctrl.hpp>
#include <ctrl/loop/machine.hpp>

#include <cstdio>

struct MatAdd {  // one body for every device
  static constexpr ctrl::Traits traits{ctrl::coalescing::full, ctrl::arith::low, ctrl::sharing::low};
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<float, 2> c, ctrl::In<float, 2> a,
                                   ctrl::In<float, 2> b) const {
    c(t.x, t.y) = a(t.x, t.y) + b(t.x, t.y);
  }
};

int main() {
  const ctrl::index_t n = 1024;
  ctrl::Tile<float, 2> A({n, n}, "A"), B({n, n}, "B"), C({n, n}, "C");
  for (ctrl::index_t i = 0; i < n; ++i)
    for (ctrl::index_t j = 0; j < n; ++j) {
      A(i, j) = static_cast<float>(i);
      B(i, j) = static_cast<float>(j);
    }

  const bool gpu = !ctrl::loop::probe_machine().gpus.empty();
  ctrl::Controller device{gpu ? ctrl::cuda(0) : ctrl::offload({0})};
  device.attach(A, B, C);
  device.launch<MatAdd>(ctrl::Threads(n, n), C, A, B);  // queued; copies only what the roles demand
  device.detach(C);                                     // waits, brings C home

  for (ctrl::index_t i = 0; i < n; ++i)
    for (ctrl::index_t j = 0; j < n; ++j)
      if (C(i, j) != static_cast<float>(i + j)) {
        std::printf("wrong: C(%lld, %lld) = %g\n", static_cast<long long>(i), static_cast<long long>(j), C(i, j));
        return 1;
      }
  std::printf("c = a + b on %s: ok\n", device.name().c_str());
  return 0;
}
