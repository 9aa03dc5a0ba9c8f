// Helpers shared by `ctrl profile` and `ctrl run`: number formatting for tables, and the CUDA
// device order that makes CUDA device i the same GPU as NVML's i.
#pragma once
#include <optional>
#include <string>

namespace ctrl::tool {

std::string format_seconds(double s);                 // "12.3 ms", "1.234 s"
std::string format_joules(double j);                  // "12.3 J", "456 mJ"
std::string format_percent(std::optional<double> r);  // "+3.2 %", "—" when absent

// Sets CUDA_DEVICE_ORDER=PCI_BUS_ID unless the user set it: NVML numbers GPUs in PCI order, CUDA
// by default fastest first, and a processor "cuda:i" must be metered by NVML's GPU i.
void prefer_pci_order_for_cuda();

}  // namespace ctrl::tool
