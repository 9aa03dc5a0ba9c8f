// The machine's monotonic clock behind energy::Clock.
#include <ctrl/energy/clock.hpp>

#include <thread>

namespace ctrl::energy {

namespace {

class SteadyClock final : public Clock {
 public:
  time_point now() override { return std::chrono::steady_clock::now(); }
  void sleep_until(time_point t) override { std::this_thread::sleep_until(t); }
};

}  // namespace

Clock& steady_clock() {
  static SteadyClock clock;
  return clock;
}

}  // namespace ctrl::energy
