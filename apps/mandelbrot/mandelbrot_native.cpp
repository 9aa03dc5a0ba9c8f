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
    const apps::mandel::Picture pic = apps::mandel::picture(params, s.options().size);
    const apps::mandel::View& v = pic.view;
    std::vector<float> iterations(pic.shape[0] * pic.shape[1]);
    apps::native::pin_openmp(s.cores());
    apps::native::default_mandelbrot_schedule();
    s.measure([&] {
      apps::native::mandelbrot(iterations.data(), pic.rows, pic.cols, v.re0, v.im0, v.step, params.iterations);
    });
    s.output("iterations", iterations, pic.shape);
  });
}
