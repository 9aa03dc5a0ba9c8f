// The type-erased launch: what the templated Controller::launch hands the device-independent
// core. The core resolves every tile argument to the pointer valid on the device and asks the
// execution model to run the body; the body rebuilds the kernel's typed parameters from them.
#pragma once
#include <ctrl/roles.hpp>
#include <ctrl/threads.hpp>
#include <ctrl/traits.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace ctrl {

class CpuContext;
struct CpuBlock;
class CudaContext;

// Which implementation of a kernel to run. automatic: the best one the kernel defines for the
// controller's device (library wrapper, then native, then generic).
enum class Variant : unsigned char { automatic, generic, native, library };
const char* variant_name(Variant v);

namespace detail {

// The families of execution models a kernel body can be compiled for.
enum class Family : unsigned char { cpu, cuda };

// A launch geometry on a CUDA device, x fastest as in dim3. Each CUDA thread of a generic body
// runs `items` logical threads along the space's last index, blockDim.x apart (coarsening), and
// may first prefetch its items' elements of the tiles it reads (0: no, 1: into L1, 2: into L2).
// vector_items > 0: where the tiles' storage allows it (aligned, rows a whole number of 16-byte
// vectors), each CUDA thread instead runs vector_items logical threads in runs of consecutive
// ones, on vector_grid (include/ctrl/cuda/geometry.hpp); otherwise the launch runs as above.
// vector_phase: the runs start vector_phase elements before each multiple of vector_items (the
// kernel's inset), and vector_grid (of vector_block's blocks: as many threads as block, in rows as
// wide as the space's rows of runs allow) covers the space widened by as many.
struct CudaGeometry {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned items = 1;
  unsigned prefetch = 0;
  unsigned vector_items = 0;
  unsigned vector_grid[3] = {1, 1, 1};
  unsigned vector_block[3] = {1, 1, 1};
  unsigned vector_phase = 0;
};

class LaunchBody {
 public:
  virtual ~LaunchBody() = default;
  // Moves the body to the heap, for queues that run the launch after submit returns (the
  // controller keeps it on its stack when the queue runs the launch at once: no allocation).
  virtual std::unique_ptr<LaunchBody> move_to_heap() = 0;

  virtual const char* kernel_name() const = 0;
  virtual Traits traits() const = 0;
  // Bit i set: tile parameter i is indexed by the launch's thread indexes (checked against it).
  virtual std::uint32_t indexed_tiles() const = 0;
  virtual bool has(Family f, Variant v) const = 0;

  // CPU family: one coarse block of a generic or native body, or the whole library variant.
  virtual void run_cpu_block(Variant v, const CpuBlock& block, void* const* ptrs) const = 0;
  virtual void run_cpu_library(CpuContext& ctx, void* const* ptrs) const = 0;
  // CUDA family: a generic or native body as a grid; returns the launch's status (a cudaError_t,
  // 0 for success). The library variant runs on the context's stream.
  virtual int run_cuda(Variant v, CudaContext& ctx, const CudaGeometry& geometry, const Threads& space,
                       void* const* ptrs) const = 0;
  virtual void run_cuda_library(CudaContext& ctx, void* const* ptrs) const = 0;

  // Value arguments bound by ctrl::ref (recorded launches, include/ctrl/graph.hpp): whether the
  // body has any, whether a variable differs from the value the body holds, and taking them again.
  virtual bool binds_values() const { return false; }
  virtual bool values_changed() const { return false; }
  virtual void reload_values() {}
};

// Picks the best variant a body defines for a family, or the one asked for; throws UsageError
// naming the kernel and controller when it does not exist.
Variant choose_variant(const LaunchBody& body, Family f, Variant asked, const std::string& controller);

std::string demangle(const char* mangled);

}  // namespace detail
}  // namespace ctrl
