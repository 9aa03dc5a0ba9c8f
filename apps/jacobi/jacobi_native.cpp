// jacobi's native twin: the same work in plain OpenMP, no ctrl runtime (only the shared
// command-line contract). See docs/case-studies.md.
#include "common/app.hpp"
#include "common/native.hpp"
#include "jacobi/jacobi_native_compute.hpp"
#include "jacobi/jacobi_problem.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

int main(int argc, char** argv) {
  apps::JacobiParams params;
  const apps::Problem problem = apps::jacobi_problem(params);
  return apps::run(problem, apps::Flavor::native, argc, argv, [&](apps::Session& s) {
    const apps::Array& in = s.input("m");
    const auto rows = static_cast<std::int64_t>(in.shape[0]), cols = static_cast<std::int64_t>(in.shape[1]);
    std::vector<float> m(in.data.size());
    // Scratch left untouched, like the ctrl program's internal tile: both fault its pages in
    // during the first run.
    std::unique_ptr<float[]> copy(new float[in.data.size()]);
    apps::native::pin_openmp(s.cores());
    s.measure([&] { std::copy(in.data.begin(), in.data.end(), m.begin()); },
              [&] { apps::native::jacobi(m.data(), copy.get(), rows, cols, params.iterations); });
    s.output("m", m, in.shape);
  });
}
