#include <ctrl/loop/workload.hpp>

#include <ctrl/sizes.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <queue>

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

std::vector<index_t> dealt_rows(const std::vector<index_t>& sizes, index_t chunk) {
  if (chunk < 1) throw UsageError(fmt::format("rows dealt in chunks of {} rows (at least 1)", chunk));
  const index_t total = checked_sum(sizes);
  std::vector<index_t> places(static_cast<std::size_t>(total));
  // Processor p's k-th chunk is due at (2k + 1) / (2 n_p); the chunks of the instance go out in
  // the order they are due (ties to the earlier processor). Compared as fractions, exactly.
  struct Due {
    index_t k, n;
    std::size_t p;
  };
  const auto later = [](const Due& a, const Due& b) {
    __extension__ using wide = __int128;  // (2k + 1) n needs more than 64 bits near index_t's top
    const wide l = static_cast<wide>(2 * a.k + 1) * b.n, r = static_cast<wide>(2 * b.k + 1) * a.n;
    return l != r ? l > r : a.p > b.p;
  };
  std::priority_queue<Due, std::vector<Due>, decltype(later)> queue(later);
  std::vector<index_t> start(sizes.size(), 0);
  index_t at = 0;
  for (std::size_t p = 0; p < sizes.size(); ++p) {
    if (sizes[p] < 0 || sizes[p] % chunk != 0)
      throw UsageError(fmt::format("rows dealt in chunks of {}: a block of {} rows", chunk, sizes[p]));
    start[p] = at;
    at += sizes[p];
    if (sizes[p] > 0) queue.push({0, sizes[p] / chunk, p});
  }
  for (index_t c = 0; !queue.empty(); ++c) {
    const Due d = queue.top();
    queue.pop();
    for (index_t r = 0; r < chunk; ++r) places[static_cast<std::size_t>(start[d.p] + d.k * chunk + r)] = c * chunk + r;
    if (d.k + 1 < d.n) queue.push({d.k + 1, d.n, d.p});
  }
  return places;
}

std::vector<std::byte> in_instance_order(std::span<const std::byte> rows, std::size_t row_bytes,
                                         const std::vector<index_t>& places) {
  if (rows.size() != places.size() * row_bytes)
    throw UsageError(fmt::format("{} bytes of rows for {} places of {} bytes", rows.size(), places.size(), row_bytes));
  std::vector<std::byte> out(rows.size());
  for (std::size_t s = 0; s < places.size(); ++s)
    std::memcpy(out.data() + static_cast<std::size_t>(places[s]) * row_bytes, rows.data() + s * row_bytes, row_bytes);
  return out;
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
    throw UsageError(
        fmt::format("{}: N = {} exceeds {}, the largest N that BLAS and FFTW take", name(), cols, INT_MAX));
  if (rows > INT_MAX)
    throw UsageError(
        fmt::format("{}: {} rows exceed {}, the most rows that BLAS and FFTW take", name(), rows, INT_MAX));
}

std::size_t Workload::bytes(index_t rows, index_t cols, std::size_t slots) const {
  check_size(rows, cols, slots);
  std::size_t sum = 0;
  for (const ArrayShape& a : arrays(rows, cols, slots))
    sum += checked_elements({a.copies, a.rows, a.cols}, a.elem_size) * a.elem_size;
  return sum;
}

Block Problem::local_block(Block b, const char* app) const {
  const index_t first = first_row();
  if (b.begin < first || b.end > first + rows() || b.begin > b.end)
    throw UsageError(fmt::format("{}: rows [{}, {}) outside the problem's rows [{}, {})", app, b.begin, b.end, first,
                                 first + rows()));
  return {b.begin - first, b.end - first};
}

Settings::Settings(std::string app, std::vector<Parameter> parameters)
    : app_(std::move(app)), parameters_(std::move(parameters)) {
  for (const Parameter& p : parameters_) values_.push_back(p.value);
}

const Parameter& Settings::find(std::string_view name) const {
  for (const Parameter& p : parameters_)
    if (p.name == name) return p;
  std::vector<std::string> known;
  for (const Parameter& p : parameters_) known.push_back(p.name);
  throw UsageError(known.empty() ? fmt::format("{} takes no parameter '{}' (it has none)", app_, name)
                                 : fmt::format("{} takes no parameter '{}' (its parameters: {})", app_, name,
                                               fmt::join(known, ", ")));
}

Settings& Settings::set(std::string_view name, double value) {
  const Parameter& p = find(name);
  const auto bad = [&](std::string_view why) {
    return UsageError(fmt::format("{}: {} = {} {}", app_, p.name, value, why));
  };
  if (!std::isfinite(value)) throw bad("is not a finite number");
  if (p.integer && (value != std::floor(value) || std::fabs(value) > INT_MAX)) throw bad("is not an integer");
  if (p.min_exclusive ? !(value > p.min) : !(value >= p.min))
    throw bad(fmt::format("is below the least allowed ({} {})", p.min_exclusive ? "above" : "at least", p.min));
  if (!(value <= p.max)) throw bad(fmt::format("is above the most allowed ({})", p.max));
  values_[static_cast<std::size_t>(&p - parameters_.data())] = value;
  return *this;
}

double Settings::operator[](std::string_view name) const {
  return values_[static_cast<std::size_t>(&find(name) - parameters_.data())];
}

int Settings::integer(std::string_view name) const {
  const Parameter& p = find(name);
  if (!p.integer) throw UsageError(fmt::format("{}: parameter {} is not an integer one", app_, p.name));
  return static_cast<int>((*this)[name]);
}

std::string Settings::text() const {
  std::string out;
  for (std::size_t i = 0; i < parameters_.size(); ++i)
    if (values_[i] != parameters_[i].value)
      out += fmt::format("{}{}={}", out.empty() ? "" : " ", parameters_[i].name, values_[i]);
  return out;
}

std::string Workload::identity() const {
  const std::string s = settings_.text();
  return s.empty() ? name() : name() + " " + s;
}

void Catalog::add(std::unique_ptr<Workload> workload) {
  if (!workload) throw UsageError("Catalog::add: no workload");
  workload->settings_ = Settings(workload->name(), {});
  add_entry({std::move(workload), {}, {}});
}

void Catalog::add(std::vector<Parameter> parameters, Factory make) {
  if (!make) throw UsageError("Catalog::add: no function that makes the workload");
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const Parameter& p = parameters[i];
    if (p.name.empty() || p.name.find_first_of(" =,\"") != std::string::npos)
      throw UsageError(
          fmt::format("Catalog::add: parameter name '{}' is empty or holds a space, '=', ',' or '\"'", p.name));
    for (std::size_t j = 0; j < i; ++j)
      if (parameters[j].name == p.name) throw UsageError(fmt::format("Catalog::add: parameter '{}' twice", p.name));
  }
  std::unique_ptr<Workload> defaults = make(Settings("the application", parameters));
  if (!defaults) throw UsageError("Catalog::add: the function made no workload");
  Settings check(defaults->name(), parameters);
  for (const Parameter& p : parameters) check.set(p.name, p.value);  // a default must be an allowed value
  defaults->settings_ = Settings(defaults->name(), parameters);
  add_entry({std::move(defaults), std::move(parameters), std::move(make)});
}

void Catalog::add_entry(Entry e) {
  if (contains(e.defaults->name()))
    throw UsageError(fmt::format("Catalog::add: an application named '{}' is there already", e.defaults->name()));
  entries_.push_back(std::move(e));
}

const Catalog::Entry& Catalog::entry(std::string_view name) const {
  for (const Entry& e : entries_)
    if (e.defaults->name() == name) return e;
  throw UsageError(fmt::format("unknown application '{}': the applications are {}", name, fmt::join(names(), ", ")));
}

bool Catalog::contains(std::string_view name) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.defaults->name() == name; });
}

const Workload& Catalog::find(std::string_view name) const { return *entry(name).defaults; }

Settings Catalog::defaults(std::string_view name) const {
  const Entry& e = entry(name);
  return Settings(e.defaults->name(), e.parameters);
}

std::shared_ptr<const Workload> Catalog::make(std::string_view name, const Settings& settings) const {
  const Entry& e = entry(name);
  const auto& given = settings.parameters();
  const bool same = given.size() == e.parameters.size() &&
                    std::equal(given.begin(), given.end(), e.parameters.begin(),
                               [](const Parameter& a, const Parameter& b) { return a.name == b.name; });
  if (!same)
    throw UsageError(
        fmt::format("Catalog::make: these settings are not {}'s (start from defaults(\"{}\"))", name, name));
  if (settings.text().empty()) return e.defaults;
  std::unique_ptr<Workload> w = e.make(settings);
  if (!w || w->name() != e.defaults->name())
    throw UsageError(fmt::format("Catalog::make: the function of {} made {}", name, w ? w->name() : "nothing"));
  w->settings_ = settings;
  return w;
}

std::vector<std::string> Catalog::names() const {
  std::vector<std::string> out;
  for (const Entry& e : entries_) out.push_back(e.defaults->name());
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
