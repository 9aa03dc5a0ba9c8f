// recurrence on a ctrl controller: x -> y, a recurrence applied --iterations times to every
// element. See docs/case-studies.md.
#include "common/app.hpp"
#include "recurrence/recurrence_kernels.hpp"
#include "recurrence/recurrence_problem.hpp"

#include <ctrl/ctrl.hpp>

int main(int argc, char** argv) {
  apps::RecurrenceParams params;
  const apps::Problem problem = apps::recurrence_problem(params);
  return apps::run(problem, apps::Flavor::ctrl, argc, argv, [&](apps::Session& s) {
    const apps::Array& x = s.input("x");
    const auto rows = static_cast<ctrl::index_t>(x.shape[0]), cols = static_cast<ctrl::index_t>(x.shape[1]);
    auto X = ctrl::wrap(x.data, {rows, cols}, "x");  // the input as read: nothing copied
    ctrl::Tile<float, 2> Y({rows, cols}, "y");
    Y.fill(0.0F);  // touch the output's pages outside the timing, as the twin's std::vector does

    ctrl::Controller ctl{s.device()};
    s.set_where(ctl.name() + " (" + ctl.description() + ")");
    s.measure([&] {
      ctl.attach(X, Y);
      ctl.launch<apps::Recurrence>(ctrl::Threads(rows, cols), Y, X, params.iterations);
      ctl.detach(X, Y);
    });
    s.output("y", Y.elements(), x.shape);
  });
}
