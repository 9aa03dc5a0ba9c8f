// matadd on a ctrl controller: a, b -> c = a + b. See docs/case-studies.md.
#include "common/app.hpp"
#include "matadd/matadd_kernels.hpp"
#include "matadd/matadd_problem.hpp"

#include <ctrl/ctrl.hpp>

int main(int argc, char** argv) {
  const apps::Problem problem = apps::matadd_problem();
  return apps::run(problem, apps::Flavor::ctrl, argc, argv, [](apps::Session& s) {
    const apps::Array& a = s.input("a");
    const apps::Array& b = s.input("b");
    const auto rows = static_cast<ctrl::index_t>(a.shape[0]), cols = static_cast<ctrl::index_t>(a.shape[1]);
    // The inputs as read: tiles over their memory, nothing copied (const: the kernel's In only).
    auto A = ctrl::wrap(a.data, {rows, cols}, "a"), B = ctrl::wrap(b.data, {rows, cols}, "b");
    ctrl::Tile<float, 2> C({rows, cols}, "c");
    C.fill(0.0F);  // touch the output's pages outside the timing, as the twin's std::vector does

    ctrl::Controller ctl{s.device()};
    s.set_where(ctl.name() + " (" + ctl.description() + ")");
    s.measure([&] {
      ctl.attach(A, B, C);
      ctl.launch<apps::MatAdd>(ctrl::Threads(rows, cols), C, A, B);
      ctl.detach(A, B, C);
    });
    s.output("c", C.elements(), a.shape);
  });
}
