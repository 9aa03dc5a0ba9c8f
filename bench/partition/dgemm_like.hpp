// Benchmark profiles derived from the measured DGEMM profile (data/dgemm-haswell.csv).
//
// Processor i gets sizes 1..m (units of rows, as the paper's 64-row steps) with
//   t_i(x) = slow_i * x * tau(j)       tau: DGEMM time per flop at the measured point j
//   e_i(x) = cost_i * x * eps(j)       eps: DGEMM dynamic energy per flop at j (jumps of 40-60 %)
// where j walks the 200 measured points once over 1..m, shifted by a different offset for each
// processor so that the jumps fall in different places. Time and energy factors are spread over a
// factor of 4 and 3 (a CPU, GPUs, coprocessors), with a fixed seed.
#pragma once
#include <ctrl/partition/profile.hpp>

#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ctrl::partition::bench {

struct Measured {
  std::vector<double> tau, eps;  // per measured point, normalised to mean 1
};

inline Measured measured_dgemm(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  Measured m;
  std::string line;
  std::getline(in, line);  // time,ps,energy,rapl,flops
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string t, ps, e;
    std::getline(row, t, ',');
    std::getline(row, ps, ',');
    std::getline(row, e, ',');
    if (ps.empty()) continue;
    const double n = std::stod(ps), flops = 2 * n * n * n;
    m.tau.push_back(std::stod(t) / flops);
    m.eps.push_back(std::stod(e) / flops);
  }
  const auto normalise = [](std::vector<double>& v) {
    double s = 0;
    for (const double x : v) s += x;
    for (double& x : v) x *= static_cast<double>(v.size()) / s;
  };
  normalise(m.tau);
  normalise(m.eps);
  return m;
}

inline Profile dgemm_like(const Measured& measured, int p, int m, unsigned seed = 42) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const std::size_t points = measured.tau.size();
  std::vector<ProcessorProfile> procs;
  for (int i = 0; i < p; ++i) {
    const double slowness = 0.25 + 0.75 * u(rng), cost = 0.5 + u(rng);
    const auto offset = static_cast<std::size_t>(u(rng) * static_cast<double>(points));
    std::vector<ProfilePoint> pts;
    for (int x = 1; x <= m; ++x) {
      const std::size_t j = (static_cast<std::size_t>(x - 1) * points / static_cast<std::size_t>(m) + offset) % points;
      pts.push_back(ProfilePoint{x, slowness * x * measured.tau[j], cost * x * measured.eps[j]});
    }
    procs.emplace_back("p" + std::to_string(i), std::move(pts));
  }
  return Profile(std::move(procs));
}

}  // namespace ctrl::partition::bench
