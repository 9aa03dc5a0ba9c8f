#include "topology.hpp"

#include <ctrl/errors.hpp>

#include <fmt/format.h>
#include <hwloc.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

namespace ctrl::detail {

namespace {
struct Hwloc {
  hwloc_topology_t topo{};
  Hwloc() {
    if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
      throw DeviceError("hwloc: cannot load this machine's topology");
    }
  }
  ~Hwloc() { hwloc_topology_destroy(topo); }
};

Hwloc& hwloc() {
  static Hwloc h;
  return h;
}

// The process's affinity mask when the library loaded (or nothing where it cannot be read): a
// program that later pins its main thread must not shrink the set of cores its controllers may
// use. Only the mask is read at load: hwloc's topology (and the plugins hwloc loads with it) waits
// for the first controller, so that programs that make none start at once.
struct LoadMask {
  cpu_set_t mask;
  bool known;
  LoadMask() {
    CPU_ZERO(&mask);
    known = sched_getaffinity(0, sizeof mask, &mask) == 0;
  }
};
const LoadMask mask_at_load;

CpuTopology load_topology() {
  CpuTopology t;
  hwloc_topology_t topo = hwloc().topo;
  const int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  for (int i = 0; i < n; ++i)
    t.existing.push_back(
        static_cast<int>(hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, static_cast<unsigned>(i))->os_index));
  std::sort(t.existing.begin(), t.existing.end());
  if (mask_at_load.known) {
    for (int c : t.existing)
      if (c < CPU_SETSIZE && CPU_ISSET(c, &mask_at_load.mask)) t.usable.push_back(c);
  } else {
    t.usable = t.existing;
  }
  t.numa_nodes = std::max(1, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE));
  if (hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0)) {
    if (const char* m = hwloc_obj_get_info_by_name(pkg, "CPUModel")) t.model = m;
  }
  return t;
}
}  // namespace

const CpuTopology& cpu_topology() {
  static const CpuTopology t = load_topology();
  return t;
}

std::vector<int> resolve_cores(const DeviceSpec& spec) {
  const CpuTopology& t = cpu_topology();
  if (spec.cores.empty()) {
    if (spec.count == 0) return t.usable;
    if (static_cast<std::size_t>(spec.count) > t.usable.size()) {
      throw UsageError(fmt::format("device '{}': asks for {} cores but this process may use {} ({})", spec.str(),
                                   spec.count, t.usable.size(), format_cores(t.usable)));
    }
    return {t.usable.begin(), t.usable.begin() + spec.count};
  }
  std::vector<int> missing, forbidden;
  for (int c : spec.cores) {
    if (!std::binary_search(t.existing.begin(), t.existing.end(), c))
      missing.push_back(c);
    else if (std::find(t.usable.begin(), t.usable.end(), c) == t.usable.end())
      forbidden.push_back(c);
  }
  if (!missing.empty()) {
    throw UsageError(fmt::format("device '{}': {} {} not exist on this machine (it has cores {})", spec.str(),
                                 missing.size() == 1 ? "core" : "cores",
                                 format_cores(missing) + (missing.size() == 1 ? " does" : " do"),
                                 format_cores(t.existing)));
  }
  if (!forbidden.empty()) {
    throw UsageError(fmt::format("device '{}': {} {} not available to this process (its affinity allows {})",
                                 spec.str(), forbidden.size() == 1 ? "core" : "cores",
                                 format_cores(forbidden) + (forbidden.size() == 1 ? " is" : " are"),
                                 format_cores(t.usable)));
  }
  return spec.cores;
}

void pin_current_thread(int core) {
  hwloc_topology_t topo = hwloc().topo;
  std::unique_ptr<hwloc_bitmap_s, void (*)(hwloc_bitmap_t)> set(hwloc_bitmap_alloc(), hwloc_bitmap_free);
  hwloc_bitmap_only(set.get(), static_cast<unsigned>(core));
  if (hwloc_set_cpubind(topo, set.get(), HWLOC_CPUBIND_THREAD) != 0) {
    throw DeviceError(fmt::format("cannot pin a worker thread to core {}", core));
  }
}

int numa_node_of(int core) {
  hwloc_topology_t topo = hwloc().topo;
  if (hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE) <= 1) return -1;
  hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, static_cast<unsigned>(core));
  if (!pu) return -1;
  hwloc_obj_t node = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_NUMANODE, pu);
  if (node) return static_cast<int>(node->os_index);
  // hwloc 2: NUMA nodes are memory children; find the first whose cpuset holds the PU.
  for (hwloc_obj_t n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, nullptr); n;
       n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, n)) {
    if (hwloc_bitmap_isset(n->cpuset, static_cast<unsigned>(core))) return static_cast<int>(n->os_index);
  }
  return -1;
}

void* allocate_near(const std::vector<int>& cores, std::size_t bytes) {
  const std::size_t size = bytes == 0 ? 64 : bytes;
  if (cpu_topology().numa_nodes > 1) {
    hwloc_topology_t topo = hwloc().topo;
    std::unique_ptr<hwloc_bitmap_s, void (*)(hwloc_bitmap_t)> set(hwloc_bitmap_alloc(), hwloc_bitmap_free);
    for (int c : cores) hwloc_bitmap_set(set.get(), static_cast<unsigned>(c));
    if (void* p = hwloc_alloc_membind(topo, size, set.get(), HWLOC_MEMBIND_BIND, 0)) return p;
    throw DeviceError(fmt::format("cannot allocate {} bytes near cores {}", bytes, format_cores(cores)));
  }
  void* p = std::aligned_alloc(64, (size + 63) / 64 * 64);
  if (!p) throw DeviceError(fmt::format("cannot allocate {} bytes for cores {}", bytes, format_cores(cores)));
  return p;
}

void free_near(void* p, std::size_t bytes) {
  if (!p) return;
  if (cpu_topology().numa_nodes > 1)
    hwloc_free(hwloc().topo, p, bytes == 0 ? 64 : bytes);
  else
    std::free(p);
}

}  // namespace ctrl::detail

namespace ctrl {
std::vector<int> cores_of(const DeviceSpec& spec) { return detail::resolve_cores(spec); }
}  // namespace ctrl
