// mandelbrot's native twin: the same work in plain OpenMP, no ctrl runtime (only the shared
// command-line contract). See docs/case-studies.md.
#include "common/app.hpp"
#include "common/native.hpp"
#include "mandelbrot/mandelbrot_native_compute.hpp"
#include "mandelbrot/mandelbrot_problem.hpp"

#include <vector>

int main(int argc, char** argv) {
  apps::MandelbrotParams params;
  const apps::Problem problem = apps::mandelbrot_problem(params);
  return apps::run(problem, apps::Flavor::native, argc, argv, [&](apps::Session& s) {
    const apps::Shape size = apps::rows_cols(s.options().size);
    const auto rows = static_cast<std::int64_t>(size[0]), cols = static_cast<std::int64_t>(size[1]);
    const apps::mandel::View v = apps::mandel::checked_view(params, rows, cols);
    std::vector<float> iterations(size[0] * size[1]);
    apps::native::pin_openmp(s.cores());
    apps::native::default_mandelbrot_schedule();
    s.measure(
        [&] { apps::native::mandelbrot(iterations.data(), rows, cols, v.re0, v.im0, v.step, params.iterations); });
    s.output("iterations", iterations, size);
  });
}
