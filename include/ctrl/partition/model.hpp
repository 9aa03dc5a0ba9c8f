// Between measured sizes: a processor's time and energy at every size a distribution can give it
// (docs/partition.md, "Between measured sizes").
//
// A profile measures each processor at a few sizes. The model defines its time t_i(x) and dynamic
// energy e_i(x) at every x from 0 to its largest measured size:
//   - at a measured size, the measurement;
//   - between two measured sizes a < x < b, the straight line between them (piecewise linear, so
//     monotone between measured points: it never overshoots them);
//   - below the smallest measured size s, the point of s (a smaller block is taken to cost what
//     the smallest measured one does: an upper bound where a run's fixed costs dominate);
//   - 0 at x = 0 (a processor without work takes nothing).
// A processor that can be given the whole workload may have a second curve for that case
// (`alone`): a block without neighbours exchanges no halo.
//
// A workload n (a multiple of the granularity g) is split in K = min(n / g, resolution) equal
// chunks of u = n / K rows; a distribution gives processor i k_i chunks, Σ k_i = K, and its model
// point is the one at k_i u rows. With n / g <= resolution a chunk is g rows and every
// distribution of n in multiples of g is a candidate; above it the front is exact over the
// distributions in K chunks, which rows() turns into whole rows (within g of k_i u each).
//
//   const partition::ProfileModel model(measured, {.granularity = 1});
//   const partition::ModelGrid grid = model.grid(n);          // UsageError above capacity()
//   const partition::Front chunks = partition::hepopta(grid.profile, grid.chunks);
//   const partition::Front front = model.to_rows(grid, chunks); // rows, re-evaluated, filtered
//   model.basis(i, front[0].distribution[i]);                 // measured, interpolated, ...
#pragma once
#include <ctrl/partition/front.hpp>
#include <ctrl/partition/profile.hpp>

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace ctrl::partition {

struct ModelOptions {
  Size granularity = 1;     // parts are multiples of it (a workload's block of rows)
  bool interpolate = true;  // false: measured sizes only (the HEPOPTA paper's discrete model)
  Size resolution = 4096;   // most chunks a workload is cut into (the optimisers' n)
};

// What a model point rests on.
enum class Basis {
  none,          // x = 0: no work
  measured,      // a measured size
  interpolated,  // between two measured sizes
  below,         // below the smallest measured size: the smallest one's point
};
std::string_view to_string(Basis basis) noexcept;

// The optimisers' input for one workload: the model at every whole number of chunks.
struct ModelGrid {
  Size workload = 0;  // n, rows
  Size chunks = 0;    // K: the optimisers' workload
  double unit = 1.0;  // u = n / K rows per chunk
  Profile profile;    // processor i at k = 1, 2, ... chunks (up to its largest size), in chunks
};

class ProfileModel {
 public:
  // `measured`: each processor's measured points. `alone`: empty, or one processor profile per
  // processor (same names, same order) of its points when it has the whole workload. UsageError
  // for a granularity or resolution below 1, an alone profile that does not match, or a
  // processor without points.
  explicit ProfileModel(Profile measured, ModelOptions options = {}, std::optional<Profile> alone = std::nullopt);

  const Profile& measured() const noexcept { return measured_; }
  const ModelOptions& options() const noexcept { return options_; }
  std::size_t size() const noexcept { return measured_.size(); }

  // The largest workload the processors can hold together: Σ of their largest sizes (each rounded
  // down to a multiple of the granularity). With interpolate off, the same sum (whether a given n
  // splits exactly is the optimisers' answer).
  Size capacity() const noexcept;
  // Processor i's point at `rows` (0 <= rows <= its largest size; `whole`: the processor has the
  // whole workload, and its alone curve applies where it has one). nullopt past its largest size,
  // and, with interpolate off, at an unmeasured size.
  std::optional<ProfilePoint> at(std::size_t i, double rows, bool whole = false) const;
  Basis basis(std::size_t i, Size rows) const;
  // Whether every part of x with work rests on a measured size.
  bool all_measured(const Distribution& x) const;

  // The grid of workload n. UsageError naming the capacity when n is above it, and the
  // granularity when n is not a multiple of it.
  ModelGrid grid(Size workload) const;
  // A distribution in chunks as whole rows: the cumulative shares k_0 + ... + k_i chunks rounded
  // to multiples of the granularity, so that the rows sum to n exactly.
  Distribution rows(const ModelGrid& grid, const Distribution& chunks) const;
  // A profile with, for each processor, its model point at its part of x (none where x_i = 0):
  // evaluate(point_profile(x, n), x, n) is the model's (time, energy) of a rows distribution.
  // UsageError when a part is past its processor's largest size (or unmeasured without
  // interpolation).
  Profile point_profile(const Distribution& x, Size workload) const;
  // Solutions in chunks turned into rows, each re-evaluated at its rows under `model`; with a
  // chunk of more than one granule, filtered again (rounding can move a point by part of a row).
  Front to_rows(const ModelGrid& grid, const Front& chunks, const EnergyModel& model = {}) const;
  // The solution of a rows distribution under the model; UsageError as point_profile.
  Solution solution(const Distribution& x, Size workload, const EnergyModel& model = {}) const;

 private:
  Profile measured_;
  ModelOptions options_;
  std::optional<Profile> alone_;
};

}  // namespace ctrl::partition
