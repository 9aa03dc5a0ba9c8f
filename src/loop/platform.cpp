#include <ctrl/loop/platform.hpp>

#include <ctrl/loop/team.hpp>  // ProcessorInfo

#include <ctrl/io/npy.hpp>

#include <algorithm>

namespace ctrl::loop {

std::vector<ProcessorInfo> Platform::processors() const {
  std::vector<ProcessorInfo> out;
  for (std::size_t i = 0; i < size(); ++i) out.push_back(info(i));
  return out;
}

std::vector<DeviceSpec> Platform::local_devices() const {
  std::vector<DeviceSpec> out;
  for (std::size_t i = 0; i < size(); ++i) out.push_back(info(i).spec);
  return out;
}

bool Platform::any_energy() const {
  for (std::size_t i = 0; i < size(); ++i)
    if (info(i).has_energy()) return true;
  return false;
}

std::vector<std::string> settle_held_power(Platform& platform, Problem& problem, const std::vector<Block>& blocks) {
  bool need = false;
  for (std::size_t i = 0; i < platform.size(); ++i)
    need |= platform.info(i).has_energy() && platform.info(i).base_power_w && !platform.info(i).held_power_w;
  if (!need) return {};
  platform.fill(problem, blocks, platform.round_seconds());
  return platform.measure_held_power(platform.round_seconds());
}

index_t rows_spanned(const std::vector<Block>& blocks) {
  index_t end = 0;
  for (const Block& b : blocks) end = std::max(end, b.end);
  return end;
}

void save_rows(const std::string& path, const Problem& problem, const std::vector<Block>& blocks, index_t rows,
               std::span<const std::byte> data) {
  const std::size_t shape[2] = {static_cast<std::size_t>(rows), static_cast<std::size_t>(problem.cols())};
  std::vector<std::byte> ordered;
  if (problem.dealing() > 0 && rows > 0) {
    std::vector<index_t> sizes;
    for (const Block& b : blocks) sizes.push_back(b.rows());
    ordered =
        in_instance_order(data, data.size() / static_cast<std::size_t>(rows), dealt_rows(sizes, problem.dealing()));
    data = ordered;
  }
  npy::detail::save_bytes(path, problem.output_dtype(), data, shape, npy::Version::automatic);
}

}  // namespace ctrl::loop
