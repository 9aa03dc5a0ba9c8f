#include <ctrl/loop/workload.hpp>


#include <ctrl/sizes.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include <climits>

namespace ctrl::loop {

std::vector<Block> consecutive_blocks(const std::vector<index_t>& sizes) {
  checked_sum(sizes);  // the last block's end must not wrap
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

void Workload::check_size(index_t rows, index_t cols, std::size_t slots) const {
  if (rows < 0 || cols <= 0) throw UsageError(fmt::format("{}: a {} x {} problem is not valid", name(), rows, cols));
  if (slots == 0) throw UsageError(fmt::format("{}: a problem needs at least one processor slot", name()));
  if (slots > static_cast<std::size_t>(INT_MAX))
    throw UsageError(fmt::format("{}: {} processor slots are too many", name(), slots));
  for (const ArrayShape& a : arrays(rows, cols, slots)) {
    try {
      checked_elements({a.copies, a.rows, a.cols}, a.elem_size);
    } catch (const UsageError& e) {
      const std::string copies = a.copies == 1 ? std::string() : fmt::format("{} copies of ", a.copies);
      throw UsageError(fmt::format("{}'s {} ({}{} x {} of {}-byte elements): {}", name(), a.name, copies, a.rows,
                                   a.cols, a.elem_size, e.what()));
    }
  }
  // BLAS and FFTW count rows and columns in int (a larger count would be cut, silently).
  if (cols > INT_MAX)
    throw UsageError(fmt::format("{}: N = {} exceeds {}, the largest N that BLAS and FFTW take", name(), cols, INT_MAX));
  if (rows > INT_MAX)
    throw UsageError(fmt::format("{}: {} rows exceed {}, the most rows that BLAS and FFTW take", name(), rows, INT_MAX));
}

Block Problem::local_block(Block b, const char* app) const {
  const index_t first = first_row();
  if (b.begin < first || b.end > first + rows() || b.begin > b.end)
    throw UsageError(fmt::format("{}: rows [{}, {}) outside the problem's rows [{}, {})", app, b.begin, b.end, first,
                                 first + rows()));
  return {b.begin - first, b.end - first};
}

void Catalog::add(std::unique_ptr<Workload> workload) {
  if (!workload) throw UsageError("Catalog::add: no workload");
  if (contains(workload->name()))
    throw UsageError(fmt::format("Catalog::add: an application named '{}' is there already", workload->name()));
  workloads_.push_back(std::move(workload));
}

bool Catalog::contains(std::string_view name) const {
  return std::any_of(workloads_.begin(), workloads_.end(), [&](const auto& w) { return w->name() == name; });
}

const Workload& Catalog::find(std::string_view name) const {
  for (const auto& w : workloads_)
    if (w->name() == name) return *w;
  throw UsageError(fmt::format("unknown application '{}': the applications are {}", name, fmt::join(names(), ", ")));
}

std::vector<std::string> Catalog::names() const {
  std::vector<std::string> out;
  for (const auto& w : workloads_) out.push_back(w->name());
  return out;
}

double uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t i) {
  // splitmix64 over a combination of the three: cheap, stateless, good enough for test data.
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ULL + stream * 0xD1B54A32D192ED03ULL + i * 0x94D049BB133111EBULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0;  // [0, 2) - 1
}

}  // namespace ctrl::loop
