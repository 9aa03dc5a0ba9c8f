// fft2d's native twin: FFTW's own 2-D transform (fftwf_plan_dft_2d, planned with FFTW_ESTIMATE as
// the ctrl program's row plans are) on FFTW's OpenMP threads, pinned one per core of --device; no
// ctrl runtime (only the shared command-line contract). See docs/case-studies.md.
#include "common/app.hpp"
#include "common/native.hpp"
#include "fft2d/fft2d_problem.hpp"

#include <fftw3.h>

#include <complex>
#include <vector>

int main(int argc, char** argv) {
  const apps::Problem problem = apps::fft2d_problem();
  return apps::run(problem, apps::Flavor::native, argc, argv, [](apps::Session& s) {
    const apps::Array& x = s.input("x");
    const int m = static_cast<int>(x.shape[0]), n = static_cast<int>(x.shape[1]);
    std::vector<float> f(x.data.size());
    apps::native::pin_openmp(s.cores());
    if (fftwf_init_threads() == 0) throw ctrl::DeviceError("FFTW could not start its threads");
    fftwf_plan_with_nthreads(static_cast<int>(s.cores().size()));
    // FFTW_ESTIMATE does not touch the arrays; an out-of-place complex transform keeps its input.
    auto* in = reinterpret_cast<fftwf_complex*>(const_cast<float*>(x.data.data()));  // NOLINT: FFTW is not const
    fftwf_plan plan =
        fftwf_plan_dft_2d(m, n, in, reinterpret_cast<fftwf_complex*>(f.data()), FFTW_FORWARD, FFTW_ESTIMATE);
    if (plan == nullptr) throw ctrl::DeviceError("FFTW could not plan the 2-D transform");
    s.measure([&] { fftwf_execute(plan); });
    fftwf_destroy_plan(plan);
    s.output("f", f, x.shape);
  });
}
