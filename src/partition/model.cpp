#include <ctrl/errors.hpp>
#include <ctrl/partition/model.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace ctrl::partition {

namespace {

std::string text(Size v) { return std::to_string(v); }

// The largest multiple of g not above x.
Size floor_to(Size x, Size g) { return x / g * g; }

}  // namespace

std::string_view to_string(Basis basis) noexcept {
  switch (basis) {
    case Basis::none:
      return "none";
    case Basis::measured:
      return "measured";
    case Basis::interpolated:
      return "interpolated";
    case Basis::below:
      return "below";
  }
  return "none";
}

ProfileModel::ProfileModel(Profile measured, ModelOptions options, std::optional<Profile> alone)
    : measured_(std::move(measured)), options_(options), alone_(std::move(alone)) {
  if (options_.granularity < 1)
    throw UsageError("a model's granularity must be at least 1 (got " + text(options_.granularity) + ")");
  if (options_.resolution < 1)
    throw UsageError("a model's resolution must be at least 1 chunk (got " + text(options_.resolution) + ")");
  for (const ProcessorProfile& p : measured_)
    if (p.empty()) throw UsageError("processor '" + p.name() + "' has no measured size");
  if (!alone_) return;
  if (alone_->names() != measured_.names())
    throw UsageError("the profile of processors alone must name the same processors in the same order");
  for (std::size_t i = 0; i < measured_.size(); ++i) {
    const auto a = (*alone_)[i].points(), m = measured_[i].points();
    if (a.size() != m.size() ||
        !std::equal(a.begin(), a.end(), m.begin(),
                    [](const ProfilePoint& x, const ProfilePoint& y) { return x.size == y.size; }))
      throw UsageError("processor '" + measured_[i].name() + "': its points alone must be at its measured sizes");
  }
}

Size ProfileModel::capacity() const noexcept {
  Size sum = 0;
  for (const ProcessorProfile& p : measured_)
    sum += options_.interpolate ? floor_to(p.max_size(), options_.granularity) : p.max_size();
  return sum;
}

std::optional<ProfilePoint> ProfileModel::at(std::size_t i, double rows, bool whole) const {
  if (rows <= 0) return ProfilePoint{0, 0.0, 0.0};
  const auto pts = (whole && alone_ ? (*alone_)[i] : measured_[i]).points();
  const Size size = static_cast<Size>(std::llround(rows));
  if (rows > static_cast<double>(pts.back().size) * (1 + 1e-12)) return std::nullopt;
  if (!options_.interpolate) {
    const auto it = std::find_if(pts.begin(), pts.end(), [&](const ProfilePoint& p) { return p.size == size; });
    if (it == pts.end() || std::abs(rows - static_cast<double>(size)) > 1e-9) return std::nullopt;
    return *it;
  }
  if (rows <= static_cast<double>(pts.front().size)) return ProfilePoint{size, pts.front().time, pts.front().energy};
  const auto hi = std::lower_bound(pts.begin(), pts.end(), rows,
                                   [](const ProfilePoint& p, double r) { return static_cast<double>(p.size) < r; });
  if (hi == pts.end()) return ProfilePoint{size, pts.back().time, pts.back().energy};
  if (static_cast<double>(hi->size) == rows) return *hi;
  const ProfilePoint& lo = *(hi - 1);
  const double f = (rows - static_cast<double>(lo.size)) / static_cast<double>(hi->size - lo.size);
  // Written as a blend of the two ends so that neither is overshot by rounding.
  return ProfilePoint{size, (1 - f) * lo.time + f * hi->time, (1 - f) * lo.energy + f * hi->energy};
}

Basis ProfileModel::basis(std::size_t i, Size rows) const {
  if (rows <= 0) return Basis::none;
  const ProcessorProfile& p = measured_[i];
  if (p.find(rows) != nullptr) return Basis::measured;
  return rows < p.points().front().size ? Basis::below : Basis::interpolated;
}

bool ProfileModel::all_measured(const Distribution& x) const {
  for (std::size_t i = 0; i < x.size() && i < size(); ++i)
    if (x[i] > 0 && basis(i, x[i]) != Basis::measured) return false;
  return true;
}

ModelGrid ProfileModel::grid(Size workload) const {
  if (workload <= 0) throw UsageError("the workload " + text(workload) + " is not positive");
  const Size cap = capacity();
  if (workload > cap)
    throw UsageError("the workload " + text(workload) + " is above the capacity of the profile, " + text(cap) +
                     " (the sum of the processors' largest sizes): profile larger sizes to split it");
  ModelGrid g;
  g.workload = workload;
  if (!options_.interpolate) {
    // The measured sizes only; the point at n of a processor that can take it all is its alone one.
    g.chunks = workload;
    for (std::size_t i = 0; i < size(); ++i) {
      std::vector<ProfilePoint> pts(measured_[i].points().begin(), measured_[i].points().end());
      if (alone_)
        for (auto& p : pts)
          if (p.size == workload) p = *at(i, static_cast<double>(workload), true);
      g.profile.add(ProcessorProfile(measured_[i].name(), std::move(pts)));
    }
    return g;
  }
  const Size gran = options_.granularity;
  if (workload % gran != 0)
    throw UsageError("the workload " + text(workload) + " is not a multiple of the workload's granularity, " +
                     text(gran) + " rows: try " + text(std::max(gran, floor_to(workload, gran))));
  g.chunks = std::min(workload / gran, options_.resolution);
  g.unit = static_cast<double>(workload) / static_cast<double>(g.chunks);
  for (std::size_t i = 0; i < size(); ++i) {
    const double reach = static_cast<double>(floor_to(measured_[i].max_size(), gran));
    const auto most = std::min(g.chunks, static_cast<Size>(std::floor(reach / g.unit * (1 + 1e-12))));
    std::vector<ProfilePoint> pts;
    pts.reserve(static_cast<std::size_t>(std::max<Size>(most, 0)));
    for (Size k = 1; k <= most; ++k) {
      const auto p = at(i, static_cast<double>(k) * g.unit, k == g.chunks);
      pts.push_back({k, p->time, p->energy});
    }
    g.profile.add(ProcessorProfile(measured_[i].name(), std::move(pts)));
  }
  return g;
}

Distribution ProfileModel::rows(const ModelGrid& grid, const Distribution& chunks) const {
  if (!options_.interpolate) return chunks;
  const double gran = static_cast<double>(options_.granularity);
  Distribution out(chunks.size(), 0);
  Size sum = 0, before = 0;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    sum += chunks[i];
    const Size end = sum == grid.chunks ? grid.workload
                                        : static_cast<Size>(std::llround(static_cast<double>(sum) * grid.unit / gran)) *
                                              options_.granularity;
    out[i] = end - before;
    before = end;
  }
  return out;
}

Profile ProfileModel::point_profile(const Distribution& x, Size workload) const {
  if (x.size() != size())
    throw UsageError("a distribution of " + text(static_cast<Size>(x.size())) + " parts for " +
                     text(static_cast<Size>(size())) + " processors");
  Profile out;
  for (std::size_t i = 0; i < size(); ++i) {
    std::vector<ProfilePoint> pts;
    if (x[i] > 0) {
      const auto p = at(i, static_cast<double>(x[i]), x[i] == workload);
      if (!p)
        throw UsageError("processor '" + measured_[i].name() + "': " + text(x[i]) + " rows " +
                         (x[i] > measured_[i].max_size()
                              ? "are past its largest measured size, " + text(measured_[i].max_size())
                              : std::string("is not a measured size (the model does not interpolate)")));
      pts.push_back({x[i], p->time, p->energy});
    }
    out.add(ProcessorProfile(measured_[i].name(), std::move(pts)));
  }
  return out;
}

Solution ProfileModel::solution(const Distribution& x, Size workload, const EnergyModel& model) const {
  return make_solution(point_profile(x, workload), x, workload, model);
}

Front ProfileModel::to_rows(const ModelGrid& grid, const Front& chunks, const EnergyModel& model) const {
  std::vector<Solution> out;
  out.reserve(chunks.size());
  for (const Solution& s : chunks) out.push_back(solution(rows(grid, s.distribution), grid.workload, model));
  return pareto_filter(std::move(out));
}

}  // namespace ctrl::partition
