#include "calibration.hpp"

#include <ctrl/loop/machine.hpp>
#include <ctrl/sizes.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ctrl::loop {

void SizeCalibration::validate() const {
  if (steps < 2 || steps > 1000) throw UsageError(fmt::format("--steps {}: from 2 to 1000 sizes per processor", steps));
  if (!(largest_run_s > 0) || !std::isfinite(largest_run_s) || largest_run_s > 3600)
    throw UsageError(fmt::format("--largest-run {}: a positive number of seconds, at most 3600", largest_run_s));
  if (!(memory_fraction > 0) || !(memory_fraction <= 1))
    throw UsageError(fmt::format("memory fraction {}: a fraction in (0, 1]", memory_fraction));
}

namespace {

index_t round_to(double rows, index_t g) {
  const double k = std::max(1.0, std::round(rows / static_cast<double>(g)));
  return static_cast<index_t>(k) * g;
}

// The size whose time is `tau` on a processor's points: linear between the two around it on the
// running maximum of their times (noise at small sizes must not send a larger time to a smaller
// size); the largest size past them.
double size_at(const std::vector<CalibrationPoint>& pts, double tau) {
  double hi_t = pts.front().seconds;
  if (tau <= hi_t) return static_cast<double>(pts.front().size);
  for (std::size_t k = 1; k < pts.size(); ++k) {
    const double lo_t = hi_t;
    hi_t = std::max(hi_t, pts[k].seconds);
    if (tau > hi_t) continue;
    if (hi_t <= lo_t) return static_cast<double>(pts[k].size);
    const double f = (tau - lo_t) / (hi_t - lo_t);
    return static_cast<double>(pts[k - 1].size) + f * static_cast<double>(pts[k].size - pts[k - 1].size);
  }
  return static_cast<double>(pts.back().size);
}

}  // namespace

std::vector<std::vector<index_t>> sizes_for_times(const std::vector<std::vector<CalibrationPoint>>& points,
                                                  const std::vector<std::string>& names, const SizeCalibration& cal,
                                                  index_t granularity, index_t min_rows) {
  cal.validate();
  const index_t g = std::max<index_t>(granularity, 1);
  const index_t lo = round_to(static_cast<double>(std::max(min_rows, g)), g);
  double t_lo = 0, top = 0;
  for (const auto& pts : points) {
    if (pts.empty()) throw UsageError("sizes_for_times: a processor without calibration points");
    t_lo = std::max(t_lo, pts.front().seconds);
    for (const auto& p : pts) top = std::max(top, p.seconds);
  }
  double t_hi = top < cal.largest_run_s ? top : cal.largest_run_s;
  t_lo = std::max(t_lo, 1e-9);
  if (t_hi <= t_lo) t_hi = 2 * t_lo;
  const auto steps = static_cast<std::size_t>(cal.steps);
  std::vector<std::vector<index_t>> out;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const index_t cap = std::max(lo, points[i].back().size / g * g);
    std::vector<index_t> x(steps);
    for (std::size_t k = 0; k < steps; ++k) {
      const double tau = t_lo * std::pow(t_hi / t_lo, static_cast<double>(k) / static_cast<double>(steps - 1));
      x[k] = std::clamp(round_to(size_at(points[i], tau), g), lo, cap);
    }
    // Strictly rising: up from the smallest, then down from the largest where the cap is reached.
    for (std::size_t k = 1; k < steps; ++k) x[k] = std::max(x[k], x[k - 1] + g);
    if (x.back() > cap) {
      x.back() = cap;
      for (std::size_t k = steps - 1; k-- > 0;) x[k] = std::min(x[k], x[k + 1] - g);
    }
    if (x.front() < lo)
      throw UsageError(
          fmt::format("{} can hold at most {} rows within the memory allowed: fewer than {} sizes of {} "
                      "row{} from {}; give --sizes for it, or fewer --steps",
                      i < names.size() ? names[i] : "a processor", cap, steps, g, g == 1 ? "" : "s", lo));
    out.push_back(std::move(x));
  }
  return out;
}

namespace detail {

namespace {

// The most rows of a calibration problem: its host arrays within the memory share allowed.
std::size_t memory_budget(const SizeCalibration& cal) {
  const auto avail = available_memory();
  const double bytes = static_cast<double>(avail ? *avail : std::uint64_t{4} << 30) * cal.memory_fraction;
  return static_cast<std::size_t>(std::min(bytes, 0x1p62));
}

bool fits(const Workload& app, const std::vector<index_t>& sizes, index_t cols, std::size_t slots, std::size_t budget) {
  try {
    return app.bytes(checked_sum(sizes), cols, slots) <= budget;
  } catch (const UsageError&) {
    return false;  // past what the workload can index
  }
}

}  // namespace

std::vector<std::vector<index_t>> calibrate_sizes(const Workload& app, Platform& team, index_t cols, std::uint64_t seed,
                                                  const SizeCalibration& cal, const StopFlag* stop) {
  cal.validate();
  const std::size_t p = team.size();
  const index_t g = std::max<index_t>(app.granularity(), 1);
  const index_t lo = (std::max(app.min_rows(), g) + g - 1) / g * g;
  const std::size_t budget = memory_budget(cal);
  std::vector<index_t> c(p, lo);
  if (!fits(app, c, cols, p, budget))
    throw AgreedUsageError(
        fmt::format("{}: {} processors of {} row{} each with N = {} do not fit in the memory "
                    "allowed ({} bytes)",
                    app.name(), p, lo, lo == 1 ? "" : "s", cols, budget));
  std::vector<std::vector<CalibrationPoint>> points(p);
  std::vector<bool> growing(p, true);
  for (int round = 0; round < 48; ++round) {
    if (team.any(stop != nullptr && stop->load())) return {};
    // Side by side, as the profile measures them (halo workloads exchange between neighbours).
    const std::vector<Block> blocks = consecutive_blocks(c);
    auto problem = team.make_problem(app, blocks, cols, seed);
    const RoundResult warm = team.run(*problem, blocks, 1);
    double slowest = 0;
    for (const double t : warm.time_s) slowest = std::max(slowest, t);
    const RoundResult r = team.run(*problem, blocks, team.batch_for(slowest));
    for (std::size_t i = 0; i < p; ++i) points[i].push_back({c[i], r.time_s[i]});
    bool any = false;
    // A processor grows until its run takes the largest time, and at least until it can take
    // `steps` distinct sizes (a slow one, or a loaded machine, can pass the time at once).
    const index_t least = lo + (static_cast<index_t>(cal.steps) - 1) * g;
    for (std::size_t i = 0; i < p; ++i) {
      if (!growing[i] || (r.time_s[i] >= cal.largest_run_s && c[i] >= least)) {
        growing[i] = false;
        continue;
      }
      std::vector<index_t> next = c;
      next[i] = c[i] * 2;
      if (!fits(app, next, cols, p, budget)) {
        growing[i] = false;  // capped by memory: its largest size is its last
        continue;
      }
      c = std::move(next);
      any = true;
    }
    if (!any) break;
  }
  std::vector<std::string> names;
  for (std::size_t i = 0; i < p; ++i) names.push_back(team.info(i).name);
  try {
    return sizes_for_times(points, names, cal, g, lo);
  } catch (const UsageError& e) {
    throw AgreedUsageError(e.what());
  }
}

}  // namespace detail

}  // namespace ctrl::loop
