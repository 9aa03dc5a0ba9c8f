#include "workloads/workload.hpp"

#include "workloads/dgemm.hpp"
#include "workloads/fft2d.hpp"

#include <fmt/format.h>

namespace ctrl::workloads {

std::vector<Block> consecutive_blocks(const std::vector<index_t>& sizes) {
  std::vector<Block> blocks;
  blocks.reserve(sizes.size());
  index_t at = 0;
  for (const index_t x : sizes) {
    if (x < 0) throw UsageError(fmt::format("a block of {} rows: sizes must not be negative", x));
    blocks.push_back({at, at + x});
    at += x;
  }
  return blocks;
}

Block Problem::local_block(Block b, const char* app) const {
  const index_t first = first_row();
  if (b.begin < first || b.end > first + rows() || b.begin > b.end)
    throw UsageError(fmt::format("{}: rows [{}, {}) outside the problem's rows [{}, {})", app, b.begin, b.end, first,
                                 first + rows()));
  return {b.begin - first, b.end - first};
}

const Workload& find_workload(std::string_view name) {
  static const DgemmWorkload dgemm;
  static const Fft2dWorkload fft2d;
  if (name == "dgemm") return dgemm;
  if (name == "fft2d") return fft2d;
  throw UsageError(fmt::format("unknown application '{}': the applications are dgemm and fft2d", name));
}

std::vector<std::string> workload_names() { return {"dgemm", "fft2d"}; }

double uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t i) {
  // splitmix64 over a combination of the three: cheap, stateless, good enough for test data.
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ULL + stream * 0xD1B54A32D192ED03ULL + i * 0x94D049BB133111EBULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0;  // [0, 2) - 1
}

}  // namespace ctrl::workloads
