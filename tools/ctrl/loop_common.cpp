#include "loop_common.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace ctrl::tool {

std::string format_seconds(double s) {
  if (!std::isfinite(s)) return "?";
  const double a = std::fabs(s);
  if (a != 0 && a < 1e-3) return fmt::format("{:.1f} us", s * 1e6);
  if (a < 1) return fmt::format("{:.3g} ms", s * 1e3);
  return fmt::format("{:.4g} s", s);
}

std::string format_joules(double j) {
  if (!std::isfinite(j)) return "?";
  const double a = std::fabs(j);
  if (a != 0 && a < 1) return fmt::format("{:.3g} mJ", j * 1e3);
  return fmt::format("{:.4g} J", j);
}

std::string format_percent(std::optional<double> r) {
  if (!r || !std::isfinite(*r)) return "—";
  return fmt::format("{:+.1f} %", *r * 100);
}

void prefer_pci_order_for_cuda() { ::setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 0); }

}  // namespace ctrl::tool
