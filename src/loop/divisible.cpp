// The Problem of a Divisible: its host arrays, the tiles of each block's run, and the halo
// exchange between neighbouring blocks (docs/loop.md, "Your own kernel on the loop" and "Halos").
#include <ctrl/loop/barrier.hpp>
#include <ctrl/loop/divisible.hpp>
#include <ctrl/loop/host_parallel.hpp>

#include <ctrl/sizes.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>

namespace ctrl::loop {

namespace {

std::uint64_t array_seed(std::uint64_t seed, std::size_t id) {
  return seed ^ (0x9E3779B97F4A7C15ULL * (static_cast<std::uint64_t>(id) + 1));
}

}  // namespace

// ---- the description ---------------------------------------------------------------------------

Divisible::Divisible(std::string name, std::string summary, index_t default_cols)
    : name_(std::move(name)), summary_(std::move(summary)), default_cols_(default_cols) {
  if (name_.empty() || name_.find_first_of(" ,=/\"\n") != std::string::npos)
    throw UsageError(fmt::format("Divisible: '{}' is not a valid name (no spaces, commas, '=', '/' or quotes)", name_));
  if (default_cols_ < 1)
    throw UsageError(fmt::format("Divisible '{}': default N = {} must be positive", name_, default_cols_));
}

Divisible::~Divisible() = default;

std::size_t Divisible::add_spec(Spec s) {
  const auto where = [&] { return fmt::format("Divisible '{}', array '{}'", name_, s.name); };
  if (s.name.empty()) throw UsageError(fmt::format("Divisible '{}': an array needs a name", name_));
  for (const Spec& o : specs_)
    if (o.name == s.name) throw UsageError(fmt::format("{}: an array of this name is there already", where()));
  for (std::size_t d = 0; d < s.extents.size(); ++d) {
    const Extent& e = s.extents[d];
    if (e.kind == Extent::Kind::rows && d != 0)
      throw UsageError(fmt::format("{}: Rows (the split dimension) must be the first extent", where()));
    if (e.kind == Extent::Kind::fixed && e.value < 0)
      throw UsageError(fmt::format("{}: extent {} is negative ({})", where(), d, e.value));
  }
  const bool split = s.extents.front().kind == Extent::Kind::rows;
  if (!split && s.part != Part::input)
    throw UsageError(fmt::format("{}: {} arrays are split by rows: give Rows as the first extent", where(),
                                 s.part == Part::output ? "output" : "scratch"));
  specs_.push_back(std::move(s));
  return specs_.size() - 1;
}

Array<std::int64_t, 1> Divisible::deal(std::string name, index_t chunk) {
  if (chunk_ > 0)
    throw UsageError(fmt::format("Divisible '{}': its rows are dealt already ('{}')", name_, specs_[dealt_].name));
  if (chunk < 1)
    throw UsageError(fmt::format("Divisible '{}': rows dealt in chunks of {} rows (at least 1)", name_, chunk));
  for (const Spec& s : specs_)
    if (s.halo > 0)
      throw UsageError(
          fmt::format("Divisible '{}': rows dealt have no neighbours, but '{}' has a halo", name_, s.name));
  const auto places = input<std::int64_t>(std::move(name), {Rows}, Init<std::int64_t>{});  // the problem fills it
  dealt_ = places.id;
  chunk_ = chunk;
  return places;
}

void Divisible::set_halo(std::size_t id, index_t rows) {
  Spec& s = specs_.at(id);
  if (chunk_ > 0 && rows > 0)
    throw UsageError(fmt::format("Divisible '{}': rows dealt have no neighbours: no halo for '{}'", name_, s.name));
  if (s.extents.front().kind != Extent::Kind::rows)
    throw UsageError(
        fmt::format("Divisible '{}': array '{}' is whole (read by every processor): it has no halo", name_, s.name));
  if (rows < 0) throw UsageError(fmt::format("Divisible '{}': a halo of {} rows for '{}'", name_, rows, s.name));
  s.halo = rows;
}

void Divisible::set_saved(std::size_t id) {
  if (specs_.at(id).part != Part::output)
    throw UsageError(fmt::format("Divisible '{}': '{}' is not an output", name_, specs_[id].name));
  saved_ = id;
}

void Divisible::granularity(index_t rows) {
  if (rows < 1) throw UsageError(fmt::format("Divisible '{}': a granularity of {} rows (at least 1)", name_, rows));
  granularity_ = rows;
}

index_t Divisible::min_rows() const {
  index_t halo = 0;
  for (const Spec& s : specs_) halo = std::max(halo, s.halo);
  return std::max(granularity_, (halo + granularity_ - 1) / granularity_ * granularity_);
}

bool Divisible::exchanges_halos() const {
  return std::any_of(specs_.begin(), specs_.end(), [](const Spec& s) { return s.halo > 0; });
}

std::string Divisible::summary(index_t cols) const { return fmt::format("{}: {} (N = {})", name_, summary_, cols); }

std::vector<Workload::ArrayShape> Divisible::arrays(index_t rows, index_t cols, std::size_t slots) const {
  std::vector<ArrayShape> out;
  for (const Spec& s : specs_) {
    if (s.part == Part::scratch) continue;  // device memory, a block at a time
    std::vector<index_t> rest;
    for (std::size_t d = 1; d < s.extents.size(); ++d) rest.push_back(s.extents[d].resolve(rows, cols));
    const index_t row = rest.empty() ? 1 : static_cast<index_t>(checked_elements(rest, s.elem_size));
    const bool split = s.extents.front().kind == Extent::Kind::rows;
    out.push_back({s.name.c_str(), split ? 1 : static_cast<index_t>(slots), s.extents.front().resolve(rows, cols), row,
                   s.elem_size});
  }
  return out;
}

// ---- the problem -------------------------------------------------------------------------------

class DivisibleProblem final : public Problem {
 public:
  DivisibleProblem(const Divisible& w, index_t rows, index_t cols, std::size_t slots, std::uint64_t seed,
                   index_t first_row);

  index_t rows() const override { return rows_; }
  index_t cols() const override { return cols_; }
  index_t first_row() const override { return first_; }
  void prepare_round(const std::vector<Block>& blocks, bool together) override;
  void run_block(Controller& c, Block b, std::size_t slot) override;
  ExchangeTimes exchange_times(std::size_t slot) const override { return times_.at(slot); }
  Check verify(const std::vector<Block>& blocks) const override;
  void perturb_output(index_t row, index_t col, double delta) override;
  std::span<const std::byte> output_bytes(Block b) const override;
  std::string output_dtype() const override;
  index_t dealing() const override { return w_.chunk_; }

 private:
  friend class BlockRun;
  friend class Results;
  using Spec = Divisible::Spec;
  using Part = Divisible::Part;

  // One slot's run in progress: the tiles its compute function sees, and where halo'd arrays'
  // rows sit in their staging tiles.
  struct Staging {
    std::shared_ptr<void> tile;  // host tile of block + halo rows, kept while its shape holds
    index_t rows = -1;
  };
  struct Current {
    Block local;  // the block, in the window's rows
    std::vector<std::shared_ptr<void>> tiles;
    std::vector<index_t> before, after;  // halo rows present, by array
  };

  bool split(const Spec& s) const { return s.extents.front().kind == Extent::Kind::rows; }
  std::vector<index_t> extents(const Spec& s, index_t rows) const;
  std::size_t row_bytes(const Spec& s) const;
  std::byte* host_rows(std::size_t id, index_t row) const;
  std::byte* tile_data(std::size_t id, const std::shared_ptr<void>& t) const {
    return static_cast<std::byte*>(w_.specs_[id].data(t.get()));
  }
  void fill(std::size_t id);
  std::int64_t* places() const;
  void deal_round(const std::vector<Block>& blocks, bool together);
  void set_up(Controller& c, std::size_t slot);
  void tear_down(Controller& c, std::size_t slot, bool keep);
  void exchange(Controller& c, std::size_t slot, std::size_t id);
  void take_halo(Controller& c, std::size_t slot, std::size_t id, index_t b, index_t e, index_t row);
  std::size_t saved() const;

  const Divisible& w_;
  index_t rows_, cols_, first_;
  std::uint64_t seed_;
  std::vector<std::shared_ptr<void>> host_;                   // split arrays: the window's rows
  std::vector<std::vector<std::shared_ptr<void>>> replicas_;  // whole arrays: one per slot
  std::vector<std::vector<Staging>> staging_;                 // [slot][array]
  std::vector<Current> current_;                              // [slot]
  std::vector<Block> round_;                                  // [slot]: the round's blocks, in window rows
  std::vector<ExchangeTimes> times_;                          // [slot]: since prepare_round
  index_t extent_ = 0;                                        // the round's instance: rows [0, extent_)
  std::vector<index_t> instance_rows_;                        // [slot]: BlockRun::instance_rows
  bool together_ = false;
  Barrier barrier_{"halo exchange"};
};

DivisibleProblem::DivisibleProblem(const Divisible& w, index_t rows, index_t cols, std::size_t slots,
                                   std::uint64_t seed, index_t first_row)
    : w_(w), rows_(rows), cols_(cols), first_(first_row), seed_(seed) {
  if (first_row < 0) throw UsageError(fmt::format("{}: a window cannot start at row {}", w.name(), first_row));
  if (!w.compute_) throw UsageError(fmt::format("Divisible '{}': no compute function (call compute())", w.name()));
  if (w.specs_.empty()) throw UsageError(fmt::format("Divisible '{}': no arrays", w.name()));
  if (w.chunk_ > 0 && w.granularity_ % w.chunk_ != 0)
    throw UsageError(
        fmt::format("Divisible '{}': rows dealt in chunks of {} need a granularity that is a multiple of "
                    "it, not {}",
                    w.name(), w.chunk_, w.granularity_));
  const std::size_t n = w.specs_.size();
  host_.resize(n);
  replicas_.resize(n);
  for (std::size_t id = 0; id < n; ++id) {
    const Spec& s = w.specs_[id];
    if (s.part == Part::scratch) continue;
    const std::vector<index_t> ext = extents(s, rows);
    if (split(s)) {
      host_[id] = s.make(ext.data(), true, s.name);
    } else {
      for (std::size_t k = 0; k < slots; ++k)
        replicas_[id].push_back(s.make(ext.data(), true, fmt::format("{} (replica {})", s.name, k)));
    }
    fill(id);
  }
  staging_.assign(slots, std::vector<Staging>(n));
  current_.resize(slots);
  times_.resize(slots);
  extent_ = rows_;
  instance_rows_.assign(slots, first_ + rows_);
  if (w.chunk_ > 0)
    for (index_t i = 0; i < rows_; ++i) places()[i] = first_ + i;  // as the inputs were filled
}

std::vector<index_t> DivisibleProblem::extents(const Spec& s, index_t rows) const {
  std::vector<index_t> e;
  for (const Extent& x : s.extents) e.push_back(x.resolve(rows, cols_));
  return e;
}

std::size_t DivisibleProblem::row_bytes(const Spec& s) const {
  std::size_t b = s.elem_size;
  for (std::size_t d = 1; d < s.extents.size(); ++d) b *= static_cast<std::size_t>(s.extents[d].resolve(rows_, cols_));
  return b;
}

std::byte* DivisibleProblem::host_rows(std::size_t id, index_t row) const {
  return tile_data(id, host_[id]) + static_cast<std::size_t>(row) * row_bytes(w_.specs_[id]);
}

void DivisibleProblem::fill(std::size_t id) {
  const Spec& s = w_.specs_[id];
  if (!s.fill) return;  // an input without values stays as allocated (zero)
  const std::size_t row = row_bytes(s) / s.elem_size;
  const std::uint64_t seed = array_seed(seed_, id);
  if (split(s)) {
    std::byte* base = tile_data(id, host_[id]);
    host_parallel_for(rows_, [&](index_t b, index_t e) {
      for (index_t i = b; i < e; ++i)
        s.fill(base + static_cast<std::size_t>(i) * row * s.elem_size, first_ + i, 0, row, seed);
    });
    return;
  }
  const index_t rows = s.extents.front().resolve(rows_, cols_);
  std::byte* first = tile_data(id, replicas_[id].front());
  host_parallel_for(rows, [&](index_t b, index_t e) {
    for (index_t i = b; i < e; ++i) s.fill(first + static_cast<std::size_t>(i) * row * s.elem_size, i, 0, row, seed);
  });
  const std::size_t bytes = static_cast<std::size_t>(rows) * row * s.elem_size;
  for (std::size_t k = 1; k < replicas_[id].size(); ++k) std::memcpy(tile_data(id, replicas_[id][k]), first, bytes);
}

void DivisibleProblem::prepare_round(const std::vector<Block>& blocks, bool together) {
  together_ = together;
  std::size_t active = 0;
  round_.clear();
  times_.assign(times_.size(), ExchangeTimes{});
  // Blocks together are one execution of the rows they cover: the instance ends after the last
  // (its halo there is the matrix's edge, as in a run of those rows), whatever rows follow.
  extent_ = rows_;
  if (together) {
    extent_ = 0;
    for (const Block& b : blocks)
      if (!b.empty() && b.end <= first_ + rows_) extent_ = std::max(extent_, b.end - first_);
  }
  for (const Block& b : blocks) {
    const bool inside = !b.empty() && b.begin >= first_ && b.end <= first_ + rows_;  // else run_block refuses it
    round_.push_back(inside ? Block{b.begin - first_, b.end - first_} : Block{});
    if (b.empty()) continue;
    ++active;
    for (const Spec& s : w_.specs_)
      if (together && s.halo > b.rows())
        throw UsageError(
            fmt::format("{}: a block of {} row{} is smaller than the halo of '{}' ({} rows): a "
                        "neighbour's halo would reach past it",
                        w_.name(), b.rows(), b.rows() == 1 ? "" : "s", s.name, s.halo));
  }
  // BlockRun::instance_rows: the rows of the blocks together, else each block's own.
  index_t total = 0;
  for (const Block& b : blocks) total += b.rows();
  for (std::size_t k = 0; k < instance_rows_.size() && k < blocks.size(); ++k)
    instance_rows_[k] = together ? total : blocks[k].rows();
  if (w_.chunk_ > 0) deal_round(blocks, together);
  barrier_.reset(active);
}

std::int64_t* DivisibleProblem::places() const {
  return reinterpret_cast<std::int64_t*>(tile_data(w_.dealt_, host_[w_.dealt_]));
}

// The places of this round's rows (dealt_rows over the whole distribution together; each block
// alone is an instance of its own rows, in order), and the other inputs of every row whose place
// changed: a row holds the values of the instance row it stands for.
void DivisibleProblem::deal_round(const std::vector<Block>& blocks, bool together) {
  std::int64_t* place = places();
  const std::vector<std::int64_t> before(place, place + rows_);
  if (together) {
    // The blocks' rows, in block order, are the instance (a profile's warm-up leaves gaps between
    // them); block k's rows are its rows from `compact` on.
    std::vector<index_t> sizes;
    for (const Block& b : blocks) sizes.push_back(b.rows());
    const std::vector<index_t> dealt = dealt_rows(sizes, w_.chunk_);
    index_t compact = 0;
    for (const Block& b : blocks) {
      for (index_t r = std::max(b.begin, first_); r < std::min(b.end, first_ + rows_); ++r)
        place[r - first_] = dealt[static_cast<std::size_t>(compact + r - b.begin)];
      compact += b.rows();
    }
  } else {
    for (const Block& b : round_)
      for (index_t j = 0; j < b.rows(); ++j) place[b.begin + j] = j;
  }
  for (std::size_t id = 0; id < w_.specs_.size(); ++id) {
    const Spec& s = w_.specs_[id];
    if (id == w_.dealt_ || s.part != Part::input || !split(s) || !s.fill) continue;
    const std::size_t row = row_bytes(s) / s.elem_size;
    const std::uint64_t seed = array_seed(seed_, id);
    std::byte* base = tile_data(id, host_[id]);
    host_parallel_for(rows_, [&](index_t b, index_t e) {
      for (index_t i = b; i < e; ++i)
        if (place[i] != before[static_cast<std::size_t>(i)])
          s.fill(base + static_cast<std::size_t>(i) * row * s.elem_size, place[i], 0, row, seed);
    });
  }
}

void DivisibleProblem::set_up(Controller& c, std::size_t slot) {
  Current& cur = current_[slot];
  const std::size_t n = w_.specs_.size();
  cur.tiles.assign(n, nullptr);
  cur.before.assign(n, 0);
  cur.after.assign(n, 0);
  for (std::size_t id = 0; id < n; ++id) {
    const Spec& s = w_.specs_[id];
    const Block b = cur.local;
    if (!split(s)) {
      cur.tiles[id] = replicas_[id].at(slot);
      continue;
    }
    const index_t lo = std::max<index_t>(b.begin - s.halo, 0), hi = std::min(b.end + s.halo, std::max(extent_, b.end));
    cur.before[id] = b.begin - lo;
    cur.after[id] = hi - b.end;
    if (s.part == Part::scratch) {
      cur.tiles[id] = s.make(extents(s, hi - lo).data(), false, s.name);
      continue;
    }
    if (s.halo == 0) {
      cur.tiles[id] = s.rows(host_[id], b.begin, b.end);
      continue;
    }
    // A halo'd block runs on a staging copy of its rows and halo: the halo rows belong to the
    // neighbours' tiles, which may be attached elsewhere at the same time.
    Staging& st = staging_[slot][id];
    if (st.rows != hi - lo) {
      st.tile = s.make(extents(s, hi - lo).data(), true, s.name + " (a block's rows and halo)");
      st.rows = hi - lo;
    }
    // An input's halo rows are read from the host array (no one writes it); an output's own rows
    // only: its halo holds what the kernels write there, or what an exchange brings.
    const std::size_t rb = row_bytes(s);
    if (s.part == Part::input)
      std::memcpy(tile_data(id, st.tile), host_rows(id, lo), static_cast<std::size_t>(hi - lo) * rb);
    else
      std::memcpy(tile_data(id, st.tile) + static_cast<std::size_t>(b.begin - lo) * rb, host_rows(id, b.begin),
                  static_cast<std::size_t>(b.rows()) * rb);
    cur.tiles[id] = st.tile;
  }
  for (std::size_t id = 0; id < n; ++id)
    w_.specs_[id].on(c, cur.tiles[id].get(),
                     w_.specs_[id].part == Part::scratch ? Divisible::create_internal : Divisible::attach);
}

// Detaches (bringing outputs home) and frees scratch; with keep, halo'd outputs' own rows are
// copied from their staging tiles into the host arrays (an input's are unchanged, and its rows are
// a neighbour's halo, read by that neighbour's set-up while this block tears down). Without keep (after a failure) it
// never throws.
void DivisibleProblem::tear_down(Controller& c, std::size_t slot, bool keep) {
  Current& cur = current_[slot];
  for (std::size_t id = 0; id < cur.tiles.size(); ++id) {
    if (!cur.tiles[id]) continue;
    const Spec& s = w_.specs_[id];
    try {
      s.on(c, cur.tiles[id].get(), s.part == Part::scratch ? Divisible::destroy_internal : Divisible::detach);
    } catch (...) {
      if (keep) throw;
    }
    if (keep && s.halo > 0 && s.part == Part::output) {
      const std::size_t rb = row_bytes(s);
      std::memcpy(host_rows(id, cur.local.begin),
                  tile_data(id, cur.tiles[id]) + static_cast<std::size_t>(cur.before[id]) * rb,
                  static_cast<std::size_t>(cur.local.rows()) * rb);
    }
    cur.tiles[id].reset();
  }
}

void DivisibleProblem::run_block(Controller& c, Block block, std::size_t slot) {
  if (block.empty()) return;
  if (slot >= current_.size())
    throw UsageError(fmt::format("{}: slot {} of a problem with {} processor slots", w_.name(), slot, current_.size()));
  current_[slot].local = local_block(block, w_.name_.c_str());
  try {
    set_up(c, slot);
    BlockRun run(c, block, cols_, *this, slot);
    w_.compute_(run);
    tear_down(c, slot, true);
  } catch (...) {
    barrier_.break_it();
    tear_down(c, slot, false);
    throw;
  }
}

// Halo rows of array `id` for one slot. Together: all wait until every block's launches up to
// this exchange are queued, then each block copies the rows around it from its neighbours' tiles
// into its own (Controller::copy_rows, which waits for the neighbour's launches and takes the
// shortest path between the two memories); all wait again, so that no block writes its next rows
// before every neighbour has read these. Alone: the halo's rows go home and back, as many as a
// run with neighbours moves, and keep their values (no neighbour writes them).
void DivisibleProblem::exchange(Controller& c, std::size_t slot, std::size_t id) {
  const Spec& s = w_.specs_.at(id);
  Current& cur = current_[slot];
  if (s.part != Part::output)
    throw UsageError(
        fmt::format("{}: exchange of '{}': only outputs exchange halos (an input's halo is read "
                    "once, a scratch array has no host rows)",
                    w_.name(), s.name));
  if (s.halo == 0) return;
  void* tile = cur.tiles[id].get();
  const index_t own_b = cur.before[id], own_e = own_b + cur.local.rows(), after = cur.after[id];
  auto rows = [&](bool to_host, index_t b, index_t e) {
    if (b < e) s.move_rows(c, tile, to_host, b, e);
  };
  if (!together_) {
    rows(true, 0, own_b);
    rows(true, own_e, own_e + after);
    rows(false, 0, own_b);
    rows(false, own_e, own_e + after);
    return;
  }
  // Each block's launches finish before the barrier, all blocks at once: copy_rows then finds
  // both controllers idle instead of waiting for one neighbour at a time under their locks. The
  // wait at the first barrier is for the others' kernels (a slower neighbour); from there on, the
  // exchange itself (exchange_times).
  using clock = std::chrono::steady_clock;
  c.wait();
  const auto arrived = clock::now();
  barrier_.wait();
  const auto released = clock::now();
  take_halo(c, slot, id, 0, own_b, cur.local.begin - own_b);
  take_halo(c, slot, id, own_e, own_e + after, cur.local.end);
  barrier_.wait();
  ExchangeTimes& t = times_[slot];
  t.waiting += std::chrono::duration<double>(released - arrived).count();
  t.exchanging += std::chrono::duration<double>(clock::now() - released).count();
}

// Rows [b, e) of the slot's tile of array `id`, which hold instance rows from `row` (window rows):
// from the tile of the neighbour whose block holds them, or, where no block of the round does
// (a gap), from the host array. The slot's launches have finished (exchange waited for them).
void DivisibleProblem::take_halo(Controller& c, std::size_t slot, std::size_t id, index_t b, index_t e, index_t row) {
  if (b == e) return;
  const Spec& s = w_.specs_[id];
  void* tile = current_[slot].tiles[id].get();
  for (std::size_t k = 0; k < round_.size(); ++k) {
    const Block nb = round_[k];
    if (k == slot || nb.empty() || row < nb.begin || row + (e - b) > nb.end) continue;
    // The staging tile, not current_'s pointer: the neighbour resets that after a failure.
    const Staging& st = staging_[k][id];
    const index_t before = std::min(s.halo, nb.begin);  // that tile's halo rows before its block
    s.copy_rows(c, tile, b, e, st.tile.get(), before + (row - nb.begin));
    return;
  }
  const std::size_t rb = row_bytes(s);
  std::memcpy(tile_data(id, current_[slot].tiles[id]) + static_cast<std::size_t>(b) * rb, host_rows(id, row),
              static_cast<std::size_t>(e - b) * rb);
  s.move_rows(c, tile, false, b, e);
}

Check DivisibleProblem::verify(const std::vector<Block>& blocks) const {
  Check check;
  if (!w_.verify_) {
    check.method = "not checked: the workload gives no check";
    return check;
  }
  check.method = w_.verify_method_;
  std::vector<Block> mine;
  for (const Block& b : blocks)
    if (!b.empty()) {
      local_block(b, w_.name_.c_str());  // within the window
      mine.push_back(b);
    }
  CheckNotes notes(check);
  w_.verify_(Results(*this, std::move(mine), !together_), notes);
  return check;
}

std::size_t DivisibleProblem::saved() const {
  if (w_.saved_ != static_cast<std::size_t>(-1)) return w_.saved_;
  for (std::size_t id = 0; id < w_.specs_.size(); ++id)
    if (w_.specs_[id].part == Part::output) return id;
  throw UsageError(fmt::format("{}: the workload has no output array", w_.name()));
}

void DivisibleProblem::perturb_output(index_t row, index_t col, double delta) {
  const std::size_t id = saved();
  const Spec& s = w_.specs_[id];
  const Block b = local_block({row, row + 1}, w_.name_.c_str());
  const std::size_t n = row_bytes(s) / s.elem_size;
  if (col < 0 || static_cast<std::size_t>(col) >= n)
    throw UsageError(fmt::format("{}: element {} of a row of {} elements", w_.name(), col, n));
  std::byte* p = host_rows(id, b.begin) + static_cast<std::size_t>(col) * s.elem_size;
  if (s.dtype == "<f4") {
    float v;
    std::memcpy(&v, p, sizeof v);
    v += static_cast<float>(delta);
    std::memcpy(p, &v, sizeof v);
  } else if (s.dtype == "<f8") {
    double v;
    std::memcpy(&v, p, sizeof v);
    v += delta;
    std::memcpy(p, &v, sizeof v);
  } else {
    throw UsageError(fmt::format("{}: output '{}' is not floating point", w_.name(), s.name));
  }
}

std::span<const std::byte> DivisibleProblem::output_bytes(Block block) const {
  const std::size_t id = saved();
  const Block b = local_block(block, w_.name_.c_str());
  const std::size_t rb = row_bytes(w_.specs_[id]);
  return {host_rows(id, b.begin), static_cast<std::size_t>(b.rows()) * rb};
}

std::string DivisibleProblem::output_dtype() const {
  const Spec& s = w_.specs_[saved()];
  if (s.dtype.empty()) throw UsageError(fmt::format("{}: output '{}' has no .npy element type", w_.name(), s.name));
  return s.dtype;
}

std::unique_ptr<Problem> Divisible::make_window(index_t rows, index_t cols, std::size_t slots, std::uint64_t seed,
                                                index_t first_row) const {
  return std::make_unique<DivisibleProblem>(*this, rows, cols, slots, seed, first_row);
}

// ---- what a block's run and a check see ----------------------------------------------------------

void* BlockRun::tile(std::size_t id, std::size_t elem_size, std::size_t rank) const {
  const auto& specs = problem_.w_.specs_;
  if (id >= specs.size() || specs[id].elem_size != elem_size || specs[id].rank != rank)
    throw UsageError(fmt::format("{}: an array handle that is not one of this workload's", problem_.w_.name()));
  return problem_.current_[slot_].tiles[id].get();
}

index_t BlockRun::halo_rows(std::size_t id, bool before) const {
  const auto& cur = problem_.current_[slot_];
  return before ? cur.before.at(id) : cur.after.at(id);
}

void BlockRun::exchange(std::size_t id) const { problem_.exchange(controller_, slot_, id); }

index_t BlockRun::instance_rows() const { return problem_.instance_rows_.at(slot_); }

Results::Results(const DivisibleProblem& p, std::vector<Block> blocks, bool standalone)
    : problem_(p),
      blocks_(std::move(blocks)),
      first_row_(p.first_),
      rows_(standalone ? p.rows_ : p.extent_),
      cols_(p.cols_),
      standalone_(standalone) {}

std::span<const std::byte> Results::data(std::size_t id, std::size_t elem_size, std::size_t rank) const {
  const auto& specs = problem_.w_.specs_;
  if (id >= specs.size() || specs[id].elem_size != elem_size || specs[id].rank != rank)
    throw UsageError(fmt::format("{}: an array handle that is not one of this workload's", problem_.w_.name()));
  const auto& s = specs[id];
  if (s.part == Divisible::Part::scratch)
    throw UsageError(fmt::format("{}: scratch array '{}' has no host data", problem_.w_.name(), s.name));
  const bool split = problem_.split(s);
  const auto& t = split ? problem_.host_[id] : problem_.replicas_[id].front();
  const index_t rows = split ? problem_.rows_ : s.extents.front().resolve(problem_.rows_, problem_.cols_);
  return {problem_.tile_data(id, t), static_cast<std::size_t>(rows) * problem_.row_bytes(s)};
}

index_t Results::instance_rows(const Block& b) const {
  if (standalone_) return b.rows();
  index_t total = 0;
  for (const index_t m : problem_.instance_rows_) total = std::max(total, m);
  return total;
}

std::size_t Results::row_elements(std::size_t id) const {
  const auto& s = problem_.w_.specs_.at(id);
  return problem_.row_bytes(s) / s.elem_size;
}

}  // namespace ctrl::loop
