#include <ctrl/loop/machine.hpp>

#include <fmt/format.h>
#include <hwloc.h>
#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <set>

namespace ctrl::loop {

namespace {

struct Topology {
  hwloc_topology_t t = nullptr;
  Topology() {
    if (hwloc_topology_init(&t) != 0 || hwloc_topology_load(t) != 0)
      throw DeviceError("hwloc could not read this machine's topology");
  }
  ~Topology() { hwloc_topology_destroy(t); }
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
};

std::vector<int> cores_of(hwloc_const_cpuset_t set) {
  std::vector<int> out;
  for (int i = hwloc_bitmap_first(set); i != -1; i = hwloc_bitmap_next(set, i)) out.push_back(i);
  return out;
}

std::vector<int> affinity(const std::vector<int>& existing) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) return existing;
  std::vector<int> usable;
  for (const int c : existing)
    if (c < CPU_SETSIZE && CPU_ISSET(c, &mask)) usable.push_back(c);
  return usable.empty() ? existing : usable;
}

// Packages of every logical core, read once.
const std::map<int, int>& package_map() {
  static const std::map<int, int> map = [] {
    std::map<int, int> m;
    Topology topo;
    const int n = hwloc_get_nbobjs_by_type(topo.t, HWLOC_OBJ_PACKAGE);
    for (int i = 0; i < n; ++i) {
      hwloc_obj_t p = hwloc_get_obj_by_type(topo.t, HWLOC_OBJ_PACKAGE, static_cast<unsigned>(i));
      const int id = p->os_index == HWLOC_UNKNOWN_INDEX ? i : static_cast<int>(p->os_index);
      for (const int c : cores_of(p->cpuset)) m[c] = id;
    }
    return m;
  }();
  return map;
}

}  // namespace

Machine probe_machine() {
  Machine m;
  {
    Topology topo;
    hwloc_const_cpuset_t all = hwloc_topology_get_topology_cpuset(topo.t);
    m.cores = cores_of(all);
    m.usable = affinity(m.cores);
    m.physical_cores = hwloc_get_nbobjs_by_type(topo.t, HWLOC_OBJ_CORE);
    const int np = hwloc_get_nbobjs_by_type(topo.t, HWLOC_OBJ_PACKAGE);
    for (int i = 0; i < np; ++i) {
      hwloc_obj_t p = hwloc_get_obj_by_type(topo.t, HWLOC_OBJ_PACKAGE, static_cast<unsigned>(i));
      const int id = p->os_index == HWLOC_UNKNOWN_INDEX ? i : static_cast<int>(p->os_index);
      m.packages.push_back({id, cores_of(p->cpuset)});
      if (m.cpu_model.empty())
        if (const char* model = hwloc_obj_get_info_by_name(p, "CPUModel")) m.cpu_model = model;
    }
    if (m.packages.empty()) m.packages.push_back({0, m.cores});
    const int nn = hwloc_get_nbobjs_by_type(topo.t, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < nn; ++i) {
      hwloc_obj_t node = hwloc_get_obj_by_type(topo.t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
      m.numa_nodes.push_back({static_cast<int>(node->os_index), cores_of(node->cpuset)});
    }
    if (m.numa_nodes.empty()) m.numa_nodes.push_back({0, m.cores});
  }
  if (m.cpu_model.empty()) m.cpu_model = "unknown processor";
  m.cuda_backend = CTRL_HAVE_CUDA_BACKEND;
  m.gpus = cuda_gpus(&m.gpu_note);
  if (!m.cuda_backend) {
    const energy::NvmlProbe nvml = energy::probe_nvml();
    if (nvml.present() && !nvml.gpus.empty())
      m.gpu_note += fmt::format("; NVML sees {} GPU{} that cuda:N controllers could use", nvml.gpus.size(),
                                nvml.gpus.size() == 1 ? "" : "s");
  }
  m.meters = energy::list_meters();
  return m;
}

std::vector<int> packages_of(const std::vector<int>& cores) {
  const auto& map = package_map();
  std::set<int> out;
  for (const int c : cores) {
    const auto it = map.find(c);
    out.insert(it == map.end() ? 0 : it->second);
  }
  return {out.begin(), out.end()};
}

namespace {

// The first number of a file, or nullopt (a missing file, "max").
std::optional<std::uint64_t> number_in(const char* path) {
  std::ifstream in(path);
  std::uint64_t v = 0;
  if (!(in >> v)) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> mem_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> available_memory() {
  std::optional<std::uint64_t> least = mem_available();
  const auto take = [&](std::optional<std::uint64_t> v) {
    if (v && (!least || *v < *least)) least = v;
  };
  const auto max = number_in("/sys/fs/cgroup/memory.max"), current = number_in("/sys/fs/cgroup/memory.current");
  if (max && current) take(*max > *current ? *max - *current : 0);
  rlimit as{};
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) take(static_cast<std::uint64_t>(as.rlim_cur));
  return least;
}

std::vector<DeviceSpec> suggested_processors(const Machine& m, int cpu_groups) {
  std::vector<int> cores = m.usable;
  // One core per GPU for its controller's host thread, as the paper's abstract processors do,
  // when at least two cores per CPU group remain.
  const std::size_t reserve = m.gpus.size();
  if (reserve > 0 && cores.size() >= reserve + 2 * static_cast<std::size_t>(std::max(cpu_groups, 1)))
    cores.resize(cores.size() - reserve);
  std::vector<DeviceSpec> out;
  const auto groups = static_cast<std::size_t>(std::clamp<int>(cpu_groups, 1, static_cast<int>(cores.size())));
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t b = cores.size() * g / groups, e = cores.size() * (g + 1) / groups;
    out.push_back(cpu(std::vector<int>(cores.begin() + static_cast<std::ptrdiff_t>(b),
                                       cores.begin() + static_cast<std::ptrdiff_t>(e))));
  }
  for (const auto& gpu : m.gpus) out.push_back(cuda(gpu.index));
  return out;
}

energy::DeviceSpec energy_device(const DeviceSpec& spec) {
  if (spec.is_cuda()) {
    // Matched to NVML by PCI bus id where CUDA gives one, so that CUDA's numbering (fastest GPU
    // first unless CUDA_DEVICE_ORDER=PCI_BUS_ID) cannot pair a GPU with another's meter.
    const auto index = static_cast<unsigned>(std::max(spec.index, 0));
    for (const GpuInfo& g : cuda_gpus()) {
      if (g.index == spec.index && !g.pci_bus_id.empty()) return energy::DeviceSpec::nvidia(index, g.pci_bus_id);
    }
    return energy::DeviceSpec::nvidia(index);
  }
  if (spec.on_cores()) {
    std::vector<int> cores = spec.cores;
    if (cores.empty()) {
      std::vector<int> all;
      for (const auto& [core, pkg] : package_map()) all.push_back(core);
      cores = affinity(all);
      if (spec.count > 0 && static_cast<std::size_t>(spec.count) < cores.size())
        cores.resize(static_cast<std::size_t>(spec.count));
    }
    auto d = energy::DeviceSpec::cpu(packages_of(cores), true, cores);
    d.label = spec.str();
    return d;
  }
  return energy::DeviceSpec::none(spec.str());
}

}  // namespace ctrl::loop
