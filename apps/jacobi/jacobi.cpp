// jacobi on a ctrl controller, as in the Controllers paper Fig. 3: m -> m after --iterations sweeps.
// See docs/case-studies.md.
#include "common/app.hpp"
#include "jacobi/jacobi_kernels.hpp"
#include "jacobi/jacobi_problem.hpp"

#include <ctrl/ctrl.hpp>

#include <algorithm>
#include <cstdint>

int main(int argc, char** argv) {
  apps::JacobiParams params;
  const apps::Problem problem = apps::jacobi_problem(params);
  return apps::run(problem, apps::Flavor::ctrl, argc, argv, [&](apps::Session& s) {
    const apps::Array& m = s.input("m");
    const auto rows = static_cast<ctrl::index_t>(m.shape[0]), cols = static_cast<ctrl::index_t>(m.shape[1]);
    ctrl::Tile<float, 2> M({rows, cols}, "m");
    ctrl::Tile<float, 2> copy({rows, cols}, ctrl::shape_only, "m_copy");  // internal: device memory only

    ctrl::Controller ctl{s.device()};
    s.set_where(ctl.name() + " (" + ctl.description() + ")");
    ctl.create_internal(copy);
    const bool interior = rows >= 3 && cols >= 3;  // otherwise every cell is boundary: nothing changes
    const ctrl::Threads whole(rows, cols);
    const ctrl::Threads inner(interior ? rows - 2 : 0, interior ? cols - 2 : 0);
    // One iteration, recorded once (at the first run: its tiles must be attached) and replayed
    // `iterations` times per run: a CUDA graph on a GPU, one queue entry on CPU kinds.
    ctrl::Graph iteration;
    s.measure([&] { std::copy(m.data.begin(), m.data.end(), M.data()); },
              [&] {
                ctl.attach(M);
                if (interior && iteration.empty()) {
                  iteration = ctl.record([&] {
                    ctl.launch<apps::JacobiCopy>(whole, copy, M);
                    ctl.launch<apps::JacobiUpdate>(inner, M, copy);
                  });
                }
                ctl.replay(iteration, static_cast<std::uint64_t>(std::max(params.iterations, 0)));
                ctl.detach(M);
              });
    ctl.destroy_internal(copy);
    s.output("m", M.elements(), m.shape);
  });
}
