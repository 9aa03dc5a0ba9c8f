// What CPU-specific kernel variants see. A kernel may define
//   void cpu(const ctrl::CpuBlock&, params...) const;          // one block of the index space per call
//   void cpu_library(ctrl::CpuContext&, params...) const;      // once per launch, e.g. OpenBLAS
// and the runtime prefers them over the generic body on CPU controllers.
#pragma once
#include <ctrl/threads.hpp>

#include <functional>
#include <vector>

namespace ctrl {

// The half-open range [lo, hi) of one dimension's indexes; `for (index_t i : r)` walks it.
struct IndexRange {
  index_t lo = 0, hi = 0;

  constexpr index_t size() const { return hi > lo ? hi - lo : 0; }
  constexpr bool empty() const { return hi <= lo; }
  constexpr bool contains(index_t i) const { return lo <= i && i < hi; }

  struct iterator {
    index_t i;
    constexpr index_t operator*() const { return i; }
    constexpr iterator& operator++() {
      ++i;
      return *this;
    }
    constexpr bool operator!=(const iterator& o) const { return i < o.i; }  // `<`: an empty range ends at once
    constexpr bool operator==(const iterator& o) const { return !(*this != o); }
  };
  constexpr iterator begin() const { return {lo}; }
  constexpr iterator end() const { return {hi}; }
};

// A box of the launch's index space that one call of a native CPU variant runs: the indexes in
// x × y × z, in the row-major meaning of Thread (x slowest). Dimensions the space does not have
// are [0, 1). The runtime cuts the space along whichever dimensions have the work, so a block may
// be a range of rows, of columns, or both; a native variant must walk all three ranges:
//
//   struct Scale {
//     void cpu(const ctrl::CpuBlock& b, ctrl::InOut<float, 2> a, float k) const {
//       for (ctrl::index_t i : b.x)
//         for (ctrl::index_t j : b.y) a(i, j) *= k;
//     }
//   };
//
// A regular kernel gets at most one block per worker per launch; an irregular one
// (Traits::work == cost::irregular) gets many smaller blocks, taken by whichever worker is free,
// so one call must not assume it sees all of its worker's share.
struct CpuBlock {
  IndexRange x, y{0, 1}, z{0, 1};
  Threads space{0};  // the whole launch's space
  int worker = 0;    // which of the controller's workers runs this block
  int workers = 1;

  constexpr index_t size() const { return x.size() * y.size() * z.size(); }
  constexpr const IndexRange& range(int d) const { return d == 0 ? x : d == 1 ? y : z; }
  constexpr bool contains(const Thread& t) const { return x.contains(t.x) && y.contains(t.y) && z.contains(t.z); }
};

// The controller's pinned workers, for library wrappers that split their own work.
class CpuContext {
 public:
  virtual ~CpuContext() = default;
  virtual int workers() const = 0;
  virtual const std::vector<int>& cores() const = 0;
  // Runs fn(begin, end, worker) over [0, n) split into one contiguous range per worker, on the
  // controller's pinned workers, and returns when all have finished.
  virtual void parallel_for(index_t n, const std::function<void(index_t, index_t, int)>& fn) = 0;
};

// The contiguous range of [0, n) that worker w of `workers` takes: sizes differ by at most one.
constexpr void split_range(index_t n, int workers, int w, index_t& begin, index_t& end) {
  const index_t base = n / workers, extra = n % workers;
  begin = w * base + (w < extra ? w : extra);
  end = begin + base + (w < extra ? 1 : 0);
}

}  // namespace ctrl
