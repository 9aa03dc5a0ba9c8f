// Builds against the installed package only: a kernel, a controller, a front.
#include <ctrl/ctrl.hpp>
#include <ctrl/partition.hpp>

#include <cstdio>

struct Scale {
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<double, 1> v, double k) const { v(t.x) *= k; }
};

int main() {
  ctrl::Tile<double, 1> v({1000}, "v");
  for (ctrl::index_t i = 0; i < 1000; ++i) v(i) = static_cast<double>(i);
  {
    ctrl::Controller cpu{ctrl::cpu_count(1)};
    cpu.attach(v);
    cpu.launch<Scale>(ctrl::Threads(1000), v, 2.0);
    cpu.detach(v);
  }
  for (ctrl::index_t i = 0; i < 1000; ++i) {
    if (v(i) != 2.0 * static_cast<double>(i)) {
      std::printf("consumer: wrong value at %ld\n", static_cast<long>(i));
      return 1;
    }
  }
  std::printf("consumer: ok\n");
  return 0;
}
