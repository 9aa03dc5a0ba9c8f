// fft2d on a ctrl controller: the 2-D FFT of x in the phases a distributed 2-D FFT takes (the
// loop's fft2d-whole on one processor), each a kernel of the catalog's fft2d: row FFTs, a
// transpose, row FFTs of the transpose, a transpose back; the intermediates stay in the device's
// memory. See docs/case-studies.md.
#include "common/app.hpp"
#include "fft2d/fft2d_problem.hpp"
#include "fft2d/fft2d_workload.hpp"

#include <ctrl/ctrl.hpp>

#include <complex>
#include <span>

int main(int argc, char** argv) {
  const apps::Problem problem = apps::fft2d_problem();
  return apps::run(problem, apps::Flavor::ctrl, argc, argv, [](apps::Session& s) {
    using cfloat = std::complex<float>;
    namespace f2 = apps::fft2d;
    const apps::Array& x = s.input("x");
    const auto m = static_cast<ctrl::index_t>(x.shape[0]), n = static_cast<ctrl::index_t>(x.shape[1]);
    // The input as read, as complex elements: nothing copied.
    auto X = ctrl::wrap(reinterpret_cast<const cfloat*>(x.data.data()), {m, n}, "x");
    ctrl::Tile<cfloat, 2> F({m, n}, "f");
    F.fill(cfloat(0, 0));  // touch the output's pages outside the timing, as the twins' vectors are
    ctrl::Tile<cfloat, 2> rows({m, n}, ctrl::shape_only, "rows"), cols({n, m}, ctrl::shape_only, "columns"),
        done({n, m}, ctrl::shape_only, "columns transformed");

    ctrl::Controller ctl{s.device()};
    s.set_where(ctl.name() + " (" + ctl.description() + ")");
    s.measure([&] {
      ctl.attach(X, F);
      ctl.create_internal(rows, cols, done);
      ctl.launch<f2::FftRows>(ctrl::Threads(m, n), rows, X);
      ctl.launch<f2::Transpose>(ctrl::Threads(n, m), cols, rows);
      ctl.launch<f2::FftRows>(ctrl::Threads(n, m), done, cols);
      ctl.launch<f2::Transpose>(ctrl::Threads(m, n), F, done);
      ctl.detach(X, F);
      ctl.destroy_internal(rows, cols, done);
    });
    s.output("f", std::span<const float>(reinterpret_cast<const float*>(F.data()), static_cast<std::size_t>(2 * m * n)),
             x.shape);
  });
}
