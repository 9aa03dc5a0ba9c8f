// Text for messages: index spaces, traits, roles, variants, kernel names.
#include <ctrl/detail/bound_kernel.hpp>
#include <ctrl/errors.hpp>

#include <fmt/format.h>

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace ctrl {

std::string Threads::str() const {
  switch (dims_) {
    case 1:
      return fmt::format("({})", ext_[0]);
    case 2:
      return fmt::format("({}, {})", ext_[0], ext_[1]);
    default:
      return fmt::format("({}, {}, {})", ext_[0], ext_[1], ext_[2]);
  }
}

std::string Traits::str() const {
  const std::string suffix = (inset >= 0 ? fmt::format(", interior {}", inset) : std::string()) +
                             (work == ctrl::cost::irregular ? ", irregular" : "");
  if (block.fixed()) return fmt::format("fixed {}x{}x{}{}", block.x, block.y, block.z, suffix);
  static constexpr const char* c[] = {"default", "full", "medium", "scattered"};
  static constexpr const char* l[] = {"default", "high", "medium", "low"};
  return fmt::format("{}/{}/{}{}", c[static_cast<int>(coal)], l[static_cast<int>(ops)], l[static_cast<int>(share)],
                     suffix);
}

const char* role_name(Role r) {
  switch (r) {
    case Role::in:
      return "In";
    case Role::out:
      return "Out";
    case Role::inout:
      return "InOut";
    default:
      return "value";
  }
}

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::generic:
      return "generic";
    case Variant::native:
      return "native";
    case Variant::library:
      return "library";
    default:
      return "automatic";
  }
}

namespace detail {

std::string demangle(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> s(abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 && s ? std::string(s.get()) : std::string(mangled);
}

void throw_not_compiled_for_cuda(const char* kernel) {
  throw UsageError(
      fmt::format("kernel '{}' was launched on a CUDA controller from a file not compiled by nvcc: "
                  "compile that file as CUDA (and link ctrl::cuda), or give the kernel a "
                  "cuda_library variant",
                  kernel));
}

Variant choose_variant(const LaunchBody& body, Family f, Variant asked, const std::string& controller) {
  if (asked != Variant::automatic) {
    if (body.has(f, asked)) return asked;
    // A generic body that exists for CPUs but not for CUDA was compiled without nvcc.
    if (f == Family::cuda && asked == Variant::generic && body.has(Family::cpu, Variant::generic)) {
      throw_not_compiled_for_cuda(body.kernel_name());
    }
    throw UsageError(
        fmt::format("launch of kernel '{}' on controller {}: the kernel has no {} variant for this "
                    "device",
                    body.kernel_name(), controller, variant_name(asked)));
  }
  for (Variant v : {Variant::library, Variant::native, Variant::generic}) {
    if (body.has(f, v)) return v;
  }
  if (f == Family::cuda && body.has(Family::cpu, Variant::generic)) {
    throw_not_compiled_for_cuda(body.kernel_name());
  }
  throw UsageError(fmt::format("launch of kernel '{}' on controller {}: the kernel has no variant for this device",
                               body.kernel_name(), controller));
}

}  // namespace detail
}  // namespace ctrl
