// The table of device kinds. Backends register factories; the core looks kinds up by name.
#include "device.hpp"

#include <map>
#include <mutex>

namespace ctrl::detail {

namespace {
struct Registry {
  std::mutex mutex;
  std::map<std::string, KindFactory> kinds;
};
Registry& registry() {
  static Registry r;
  return r;
}
}  // namespace

void register_kind(const std::string& kind, KindFactory factory) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  r.kinds[kind] = factory;
}

KindFactory find_kind(const std::string& kind) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.kinds.find(kind);
  return it == r.kinds.end() ? nullptr : it->second;
}

std::string registered_kinds() {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  std::string s;
  for (const auto& [name, f] : r.kinds) s += (s.empty() ? "" : ", ") + name;
  return s;
}

}  // namespace ctrl::detail
