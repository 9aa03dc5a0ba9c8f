// matadd's native twin: the same work in plain OpenMP, no ctrl runtime (only the shared
// command-line contract). See docs/case-studies.md.
#include "common/app.hpp"
#include "common/native.hpp"
#include "matadd/matadd_native_compute.hpp"
#include "matadd/matadd_problem.hpp"

#include <cstdint>
#include <vector>

int main(int argc, char** argv) {
  const apps::Problem problem = apps::matadd_problem();
  return apps::run(problem, apps::Flavor::native, argc, argv, [](apps::Session& s) {
    const apps::Array& a = s.input("a");
    const apps::Array& b = s.input("b");
    const auto rows = static_cast<std::int64_t>(a.shape[0]), cols = static_cast<std::int64_t>(a.shape[1]);
    std::vector<float> c(a.data.size());
    apps::native::pin_openmp(s.cores());
    s.measure([&] { apps::native::matadd(c.data(), a.data.data(), b.data.data(), rows, cols); });
    s.output("c", c, a.shape);
  });
}
