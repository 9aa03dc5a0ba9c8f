// What CPU-specific kernel variants see. A kernel may define
//   void cpu(const ctrl::CpuBlock&, params...) const;          // one coarse block per worker
//   void cpu_library(ctrl::CpuContext&, params...) const;      // once per launch, e.g. OpenBLAS
// and the runtime prefers them over the generic body on CPU controllers.
#pragma once
#include <ctrl/threads.hpp>

#include <functional>
#include <vector>

namespace ctrl {

// The coarse block of the index space that one worker runs: rows [x_begin, x_end) of the launch
// space, all of its y and z.
struct CpuBlock {
  index_t x_begin = 0, x_end = 0;
  Threads space{0};
  int worker = 0;
  int workers = 1;
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
