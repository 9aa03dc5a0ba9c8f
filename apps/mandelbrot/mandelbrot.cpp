// mandelbrot on a ctrl controller: the escape time of every pixel. See docs/case-studies.md.
#include "mandelbrot/mandelbrot_kernels.hpp"
#include "mandelbrot/mandelbrot_problem.hpp"
#include "common/app.hpp"

#include <ctrl/ctrl.hpp>

int main(int argc, char** argv) {
  apps::MandelbrotParams params;
  const apps::Problem problem = apps::mandelbrot_problem(params);
  return apps::run(problem, apps::Flavor::ctrl, argc, argv, [&](apps::Session& s) {
    const apps::mandel::Picture pic = apps::mandel::picture(params, s.options().size);
    ctrl::Tile<float, 2> iterations({pic.rows, pic.cols}, "iterations");
    iterations.fill(0.0F);  // touch the output's pages outside the timing, as the twin's vector is

    ctrl::Controller ctl{s.device()};
    s.set_where(ctl.name() + " (" + ctl.description() + ")");
    s.measure([&] {
      ctl.attach(iterations);
      ctl.launch<apps::Mandelbrot>(ctrl::Threads(pic.rows, pic.cols), iterations, pic.view, params.iterations);
      ctl.detach(iterations);
    });
    s.output("iterations", iterations.elements(), pic.shape);
  });
}
