// Your own kernel, split across every processor of this machine: profiled, its Pareto front
// computed, the fastest distribution run and checked. README.md quotes this file.
#include <ctrl/loop.hpp>

#include <cmath>
#include <cstdio>

// y = exp(x) by the first 24 terms of its series: written once, for every device kind.
struct ExpSeries {
  static constexpr const char* name = "exp_series";
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<float, 2> y, ctrl::In<float, 2> x) const {
    float term = 1.0F, sum = 1.0F;
    for (int k = 1; k < 24; ++k) sum += (term *= x(t.x, t.y) / static_cast<float>(k));
    y(t.x, t.y) = sum;
  }
};

int main() {
  using namespace ctrl::loop;
  Divisible work("exp", "y = exp(x) by its series", 4096);
  const auto x = work.input<float>("x", {Rows, N}, random_values<float>(-1, 2));
  const auto y = work.output<float>("y", {Rows, N});
  work.compute([=](BlockRun& r) { r.launch<ExpSeries>(ctrl::Threads(r.rows(), r.cols()), r[y], r[x]); });
  work.verify("every element against std::exp", [=](const Results& res, CheckNotes& notes) {
    for (const Block& b : res.blocks())
      for (auto k = (b.begin - res.first_row()) * res.cols(); k < (b.end - res.first_row()) * res.cols(); ++k)
        notes.note(std::abs(res[y][k] - std::exp(res[x][k])), 1e-5 * std::exp(res[x][k]),
                   [&] { return "element " + std::to_string(k); });
  });

  // A GPU and the cores beside it where there is one; else a CPU group and an offload device.
  const Machine machine = probe_machine();
  const auto devices = machine.gpus.empty() ? std::vector{ctrl::parse_device("cpu:0"), ctrl::parse_device("offload:1")}
                                            : suggested_processors(machine, 1);
  Team team(devices);
  ProfileRequest profile;
  profile.sizes = {64, 128, 192, 256, 320, 384, 448, 512};
  profile.out = "exp-profile.csv";
  ProfileObserver quiet;
  run_profile(work, profile, team, quiet);

  // The fastest distribution `ctrl pareto --time-only` prints (a machine may have no energy meter):
  // any workload up to the processors' largest sizes together, sizes between them interpolated.
  FrontRequest request;
  request.profile = profile.out;
  request.workload = 600;
  request.time_only = true;
  const FrontReport front = compute_front(request);
  RunRequest run;
  run.rows.assign(front.time_optimal().distribution.begin(), front.time_optimal().distribution.end());
  run.predicted = predict(*read_profile(profile.out).file, front.processors, run.rows);
  const RunOutcome outcome = run_distribution(work, run, team);

  for (const auto& p : outcome.processors)
    std::printf("%-12s %5lld rows  %9.3f ms measured  %9.3f ms predicted\n", p.name.c_str(),
                static_cast<long long>(p.rows), 1e3 * p.time.mean, 1e3 * p.predicted.time.value_or(0.0));
  std::printf("%s: %s\n", outcome.check.ok ? "checked" : "WRONG", outcome.check.method.c_str());
  return outcome.check.ok ? 0 : 1;
}
