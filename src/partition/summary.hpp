// Private: what the exact sweep keeps of the levels past its memory limit (pareto_dp.cpp):
// checkpoints of a level's points, and summaries of a finished segment's paths.
#pragma once
#include "buffer.hpp"
#include "pool.hpp"
#include "sweeper.hpp"

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

namespace ctrl::partition::detail {

// Unsigned values of 1, 2 or 4 bytes each, the fewest that hold the largest: a summary's parts
// and places. Not rounded up to huge pages: tens are held at once.
class Packed {
 public:
  Packed() = default;
  Packed(std::size_t count, std::uint32_t most)
      : width_(width_for(most)),
        data_(static_cast<std::uint8_t*>(big_alloc(count * width_, false)),
              FreeBlock<std::uint8_t>{count * width_, false}),
        count_(count) {}
  static std::size_t bytes_for(std::size_t count, std::uint32_t most) { return count * width_for(most); }
  std::size_t bytes() const { return count_ * width_; }
  static unsigned width_for(std::uint32_t most) { return most < 256 ? 1 : most < 65536 ? 2 : 4; }
  void set(std::size_t i, std::uint32_t v) {
    std::uint8_t* at = data_.get() + i * width_;
    if (width_ == 1) {
      *at = static_cast<std::uint8_t>(v);
    } else if (width_ == 2) {
      const auto h = static_cast<std::uint16_t>(v);
      std::memcpy(at, &h, sizeof h);
    } else {
      std::memcpy(at, &v, sizeof v);
    }
  }
  std::uint32_t get(std::size_t i) const {
    const std::uint8_t* at = data_.get() + i * width_;
    if (width_ == 1) return *at;
    if (width_ == 2) {
      std::uint16_t h = 0;
      std::memcpy(&h, at, sizeof h);
      return h;
    }
    std::uint32_t v = 0;
    std::memcpy(&v, at, sizeof v);
    return v;
  }

 private:
  unsigned width_ = 1;
  std::unique_ptr<std::uint8_t, FreeBlock<std::uint8_t>> data_;
  std::size_t count_ = 0;
};

// A finished segment's paths, kept in place of sweeping it again: for every point of its last
// level, the part each of its levels gave (a byte each where sizes stay below 256) and its
// ancestor at the level before them, by its place in its workload's front (two bytes where fronts
// stay below 65,536 points; the workload is the point's less the parts). About a byte a point of
// the segment, against eight for the parent pointers; the walk back reads one row a front point.
struct Summary {
  int first = 0, last = -1;  // the levels summarised
  std::size_t points = 0;    // of level `last`
  Packed parts;              // [level - first][point]: written a level at a time
  Packed place;              // [point]

  std::size_t levels() const { return static_cast<std::size_t>(last - first + 1); }
  std::size_t bytes() const { return parts.bytes() + place.bytes(); }
  std::int32_t part(std::size_t point, int k) const {
    return static_cast<std::int32_t>(parts.get(static_cast<std::size_t>(k - first) * points + point));
  }
};

// A level's points, kept so that the levels after it can be swept again: 12 bytes a point and
// its offsets, against 8 bytes a point for every level's parent pointers. Once the segment after
// it is summarised, its points are dropped (only the offsets stay, for the walk back); the summary
// of the segment before it, if any, is kept with it (its rows are this level's points).
struct Checkpoint {
  int level = -1;  // the last processor merged; -1: the start (one point, of workload 0)
  std::vector<std::uint32_t> offset;
  UninitVector<std::uint32_t> rank;
  UninitVector<double> energy;

  // Copied by the pool's threads (tens of MiB at p = 1000, and fresh pages to fault in).
  Checkpoint(const Level& from, int k, Pool& pool)
      : level(k), offset(from.offset), rank(from.size()), energy(from.size()) {
    copy(pool, from.rank.data(), from.energy.data(), rank.data(), energy.data());
  }
  // What a checkpoint of `from` holds, its summary aside.
  static std::size_t bytes_for(const Level& from) {
    return from.offset.size() * sizeof(std::uint32_t) + from.size() * (sizeof(std::uint32_t) + sizeof(double));
  }
  std::size_t bytes() const {
    return offset.size() * sizeof(std::uint32_t) + point_bytes() + (summary ? summary->bytes() : 0);
  }
  std::size_t point_bytes() const { return rank.size() * (sizeof(std::uint32_t) + sizeof(double)); }
  void drop_points() {  // and their storage (assigning {} would keep it)
    decltype(rank)().swap(rank);
    decltype(energy)().swap(energy);
  }
  std::optional<Summary> summary;  // of the segment that ends at this level
  void restore(Level& to, Pool& pool) const {
    to.offset = offset;
    to.rank.reserve_discard(rank.size());
    to.energy.reserve_discard(rank.size());
    copy(pool, rank.data(), energy.data(), to.rank.data(), to.energy.data());
  }

 private:
  void copy(Pool& pool, const std::uint32_t* r, const double* e, std::uint32_t* r_to, double* e_to) const {
    pool.slices(pool.size(), rank.size(), [&](std::size_t lo, std::size_t hi) {
      std::copy(r + lo, r + hi, r_to + lo);
      std::copy(e + lo, e + hi, e_to + lo);
    });
  }
};

}  // namespace ctrl::partition::detail
