// Shared helpers of the partition tests: random profiles, the measured DGEMM profile, and front
// comparisons that explain what differs.
#pragma once
#include <ctrl/partition.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ctrl::partition::testing {

// How values are drawn: from a small grid (many exact ties in time and energy), or continuous.
enum class Values { coarse, fine };

// p processors with sizes drawn from 1..max_size; `density` is the chance a size is present.
inline Profile random_profile(std::mt19937_64& rng, int p, int max_size, double density, Values values) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<ProcessorProfile> procs;
  for (int i = 0; i < p; ++i) {
    std::vector<ProfilePoint> pts;
    for (int x = 1; x <= max_size; ++x) {
      if (u(rng) > density) continue;
      const double t = values == Values::coarse ? std::floor(u(rng) * 6) : 0.1 + u(rng) * 10;
      const double e = values == Values::coarse ? std::floor(u(rng) * 6) : u(rng) * 10;
      pts.push_back(ProfilePoint{x, t, e});
    }
    procs.emplace_back("P" + std::to_string(i), std::move(pts));
  }
  return Profile(std::move(procs));
}

inline std::string describe(const Front& f) {
  std::ostringstream os;
  os.precision(17);
  for (const Solution& s : f) {
    os << "  (" << s.time << ", " << s.energy << ") [";
    for (std::size_t i = 0; i < s.distribution.size(); ++i) os << (i ? " " : "") << s.distribution[i];
    os << "]\n";
  }
  return os.str();
}

// Every point is a valid distribution whose recomputed objectives are the point's, the points are
// sorted by time with strictly falling energies, and no point dominates another.
inline ::testing::AssertionResult valid_front(const Profile& profile, Size n, const Front& f,
                                              const EnergyModel& model = {}) {
  for (std::size_t i = 0; i < f.size(); ++i) {
    const auto ev = evaluate(profile, f[i].distribution, n);
    if (!ev) return ::testing::AssertionFailure() << "point " << i << " is not a valid distribution\n" << describe(f);
    if (ev->time != f[i].time || model.energy(ev->time, ev->dynamic_energy) != f[i].energy)
      return ::testing::AssertionFailure() << "point " << i << " does not match its distribution\n" << describe(f);
    if (i > 0 && !(f[i - 1].time < f[i].time && f[i - 1].energy > f[i].energy))
      return ::testing::AssertionFailure() << "points " << i - 1 << ", " << i << " are not in order\n" << describe(f);
    for (std::size_t j = 0; j < f.size(); ++j)
      if (i != j && (dominates(f[i], f[j]) || same_point(f[i], f[j])))
        return ::testing::AssertionFailure() << "point " << i << " dominates or repeats " << j << "\n" << describe(f);
  }
  return ::testing::AssertionSuccess();
}

// p processors with sizes 1..m, times nearly linear in the size (each within `jitter` of a line)
// and energies that jump from size to size (as measured DGEMM energies do): many partial Pareto
// points at every level of the exact programme.
inline Profile jumpy_profile(std::mt19937_64& rng, int p, int m, double jitter) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<ProcessorProfile> procs;
  for (int i = 0; i < p; ++i) {
    const double slow = 0.5 + 2 * u(rng), cost = 0.5 + u(rng);
    std::vector<ProfilePoint> pts;
    for (int x = 1; x <= m; ++x)
      pts.push_back(ProfilePoint{x, slow * x * (1 + jitter * u(rng)), cost * x * (0.6 + 0.8 * u(rng))});
    procs.emplace_back("P" + std::to_string(i), std::move(pts));
  }
  return Profile(std::move(procs));
}

// The same points bit for bit: times, energies and distributions.
inline bool identical(const Front& a, const Front& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].time != b[i].time || a[i].energy != b[i].energy || a[i].distribution != b[i].distribution) return false;
  return true;
}

// The same points (to the relative 1e-12 of the definition), in the same order.
inline ::testing::AssertionResult same_front(const Front& expected, const Front& actual) {
  bool same = expected.size() == actual.size();
  for (std::size_t i = 0; same && i < expected.size(); ++i) same = same_point(expected[i], actual[i]);
  if (same) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << expected.size() << " points:\n"
                                       << describe(expected) << "got " << actual.size() << ":\n"
                                       << describe(actual);
}

// The measured DGEMM profile (data/dgemm-haswell.csv): matrix size, time, dynamic energy.
struct DgemmPoint {
  Size size;
  double time, energy;
};

// A missing or empty file throws, naming the file: a test without its data fails, never passes
// on an empty profile.
inline std::vector<DgemmPoint> dgemm_points() {
  const std::string path = CTRL_DGEMM_CSV;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open the measured DGEMM profile " + path);
  std::vector<DgemmPoint> pts;
  std::string line;
  std::getline(in, line);  // time,ps,energy,rapl,flops
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string t, ps, e;
    std::getline(row, t, ',');
    std::getline(row, ps, ',');
    std::getline(row, e, ',');
    if (!ps.empty()) pts.push_back(DgemmPoint{std::stoll(ps), std::stod(t), std::stod(e)});
  }
  if (pts.empty()) throw std::runtime_error("no measured points in " + path);
  return pts;
}

// One abstract processor made from the DGEMM profile: sizes divided by `unit` (the profile
// steps by 64 from 12000, so units of 16 or 32 keep every size whole), times and energies scaled,
// and only every `stride`-th point kept.
inline ProcessorProfile dgemm_processor(const std::string& name, const std::vector<DgemmPoint>& pts, Size unit,
                                        double time_scale, double energy_scale, std::size_t stride = 1,
                                        std::size_t offset = 0) {
  std::vector<ProfilePoint> out;
  for (std::size_t i = offset; i < pts.size(); i += stride)
    out.push_back(ProfilePoint{pts[i].size / unit, pts[i].time * time_scale, pts[i].energy * energy_scale});
  return ProcessorProfile(name, std::move(out));
}

// The i-th instance of the random families that the balanced solutions' tests check against their
// definitions by enumeration: p = 1..5 processors with 3..10 sizes, sparse sizes every other
// instance (windows whose sizes are not contiguous), coarse values every third (ties).
struct Instance {
  Profile profile;
  Size n;
};
inline Instance small_random_instance(std::mt19937_64& rng, int i) {
  const int p = 1 + i % 5;
  const int m = 3 + static_cast<int>(rng() % 8);
  Profile profile = random_profile(rng, p, m, i % 2 ? 0.5 : 0.9, i % 3 ? Values::fine : Values::coarse);
  const Size n = 1 + static_cast<Size>(rng() % static_cast<std::uint64_t>(p * m));
  return {std::move(profile), n};
}

}  // namespace ctrl::partition::testing
