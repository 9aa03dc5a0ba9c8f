// recurrence's native twin: the same work in plain OpenMP, no ctrl runtime (only the shared
// command-line contract). See docs/case-studies.md.
#include "common/app.hpp"
#include "common/native.hpp"
#include "recurrence/recurrence_native_compute.hpp"
#include "recurrence/recurrence_problem.hpp"

#include <cstdint>
#include <vector>

int main(int argc, char** argv) {
  apps::RecurrenceParams params;
  const apps::Problem problem = apps::recurrence_problem(params);
  return apps::run(problem, apps::Flavor::native, argc, argv, [&](apps::Session& s) {
    const apps::Array& x = s.input("x");
    const auto rows = static_cast<std::int64_t>(x.shape[0]), cols = static_cast<std::int64_t>(x.shape[1]);
    std::vector<float> y(x.data.size());
    apps::native::pin_openmp(s.cores());
    s.measure([&] { apps::native::recurrence(y.data(), x.data.data(), rows, cols, params.iterations); });
    s.output("y", y, x.shape);
  });
}
