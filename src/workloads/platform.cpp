#include "workloads/platform.hpp"

#include "workloads/team.hpp"

#include <ctrl/io/npy.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace ctrl::workloads {

std::vector<ProcessorInfo> Platform::processors() const {
  std::vector<ProcessorInfo> out;
  for (std::size_t i = 0; i < size(); ++i) out.push_back(info(i));
  return out;
}

bool Platform::any_energy() const {
  for (std::size_t i = 0; i < size(); ++i)
    if (info(i).has_energy()) return true;
  return false;
}

index_t rows_spanned(const std::vector<Block>& blocks) {
  index_t end = 0;
  for (const Block& b : blocks) end = std::max(end, b.end);
  return end;
}

void save_rows(const std::string& path, const std::string& dtype, index_t rows, index_t cols,
               std::span<const std::byte> data) {
  const std::size_t shape[2] = {static_cast<std::size_t>(rows), static_cast<std::size_t>(cols)};
  npy::detail::save_bytes(path, dtype, data, shape, npy::Version::automatic);
}

std::unique_ptr<Problem> Team::make_problem(const Workload& app, const std::vector<Block>& extent, index_t cols,
                                            std::uint64_t seed) {
  return app.make_problem(rows_spanned(extent), cols, size(), seed);
}

Check Team::verify(const Problem& problem, const std::vector<Block>& blocks) { return problem.verify(blocks); }

void Team::write_output(const Problem& problem, const std::vector<Block>& blocks, const std::string& path) {
  // The blocks in order, gathered into one buffer: they need not be contiguous in the problem.
  std::vector<std::byte> data;
  index_t rows = 0;
  for (const Block& b : blocks) {
    if (b.empty()) continue;
    const auto bytes = problem.output_bytes(b);
    data.insert(data.end(), bytes.begin(), bytes.end());
    rows += b.rows();
  }
  save_rows(path, problem.output_dtype(), rows, problem.cols(), data);
}

}  // namespace ctrl::workloads
