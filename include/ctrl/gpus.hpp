// The NVIDIA GPUs of this node, as cuda:N controllers see them.
//
// Asking loads ctrl's CUDA backend (and with it the CUDA libraries), as making the first cuda:N
// controller does: a program that neither asks nor makes a GPU controller loads no CUDA library,
// and runs on nodes that have none.
//
//   std::string why;
//   for (const ctrl::GpuInfo& g : ctrl::cuda_gpus(&why)) std::cout << "cuda:" << g.index << ' ' << g.name << '\n';
//   if (!why.empty()) std::cout << "no GPU: " << why << '\n';
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ctrl {

struct GpuInfo {
  int index = 0;  // CUDA device number, as in "cuda:0"
  std::string name;
  std::uint64_t memory_bytes = 0;
  int cc_major = 0, cc_minor = 0;
  int multiprocessors = 0;
  std::string pci_bus_id;  // "0000:17:00.0" where known
};

// Every GPU the CUDA runtime sees, in CUDA's order. Empty when there is none, when this build has
// no CUDA backend, or when the backend or the CUDA libraries cannot be loaded on this node; then
// *why_none (when given) says which, in words. Never throws for a missing GPU.
std::vector<GpuInfo> cuda_gpus(std::string* why_none = nullptr);

}  // namespace ctrl
