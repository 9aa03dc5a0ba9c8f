// fft2d-whole: the 2-D DFT of an M x N single-precision complex matrix X (forward, unnormalised),
// computed as a distributed 2-D FFT is, in two phases split across the processors:
//
//   1. each processor transforms its x_i rows (N-point FFTs), transposes its block in its own
//      memory (t_i, N x x_i), and sends home the rows of t_i that are the other processors'
//      columns (c_j the share of the N columns in proportion to the rows, consecutive by processor);
//   2. the redistribution, once every block is home: processor j attaches its c_j rows of every
//      other processor's host copy (an H2D copy to a GPU, nothing on CPU kinds) and places them,
//      with its own piece of t_j, into the c_j x M slab it transforms;
//   3. each processor transforms its c_j columns (M-point FFTs): rows of F transposed, brought home.
//
// What ctrl run --output writes is F in natural order (M x N), assembled on the host after the run.
//
// The model (docs/loop.md, "The whole 2-D FFT"): a profile measures each processor alone, doing its
// share of a square transform (M = N; M = x where x > N) whose other rows are zero and held in host
// memory: its phase 1 and transpose, the other processors' columns sent home, the other rows'
// pieces brought in from the host, its phase 2. The same bytes take the same paths as in a run, so
// a processor's time depends on its rows alone. The time of a run is the slowest processor's phase
// 1, the exchange, and the slowest phase 2; a front's max over processors of the sums equals it
// when the slowest processor is the same in both phases, as it is for speeds proportional in both.
#include "catalog/catalog.hpp"
#include "fft2d/fft2d_workload.hpp"

#include <ctrl/loop/barrier.hpp>
#include <ctrl/loop/host_parallel.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>

namespace apps::fft2d {

using namespace ctrl;
using namespace ctrl::loop;

namespace {

using cdouble = std::complex<double>;
using Clock = std::chrono::steady_clock;

// The N columns shared in proportion to the rows (largest remainders; ties to the first).
std::vector<index_t> column_shares(const std::vector<index_t>& rows, index_t n) {
  index_t total = 0;
  for (const index_t r : rows) total += r;
  std::vector<index_t> cols(rows.size(), 0);
  if (total == 0) return cols;
  std::vector<std::pair<double, std::size_t>> rest;
  index_t given = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double exact = static_cast<double>(rows[i]) * static_cast<double>(n) / static_cast<double>(total);
    cols[i] = static_cast<index_t>(std::floor(exact));
    given += cols[i];
    if (rows[i] > 0) rest.emplace_back(exact - static_cast<double>(cols[i]), i);
  }
  std::stable_sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t k = 0; given < n && k < rest.size(); ++k, ++given) ++cols[rest[k].second];
  return cols;
}

// Undoes what a block's run holds on its controller (internal tiles, attached ones) when the run
// fails half-way, in reverse order; never throws. Declared after the tiles it names.
class Held {
 public:
  explicit Held(Controller& c) : c_(c) {}
  Held(const Held&) = delete;
  Held& operator=(const Held&) = delete;
  ~Held() {
    for (auto it = undo_.rbegin(); it != undo_.rend(); ++it) try {
        it->second();
      } catch (...) {
      }
  }
  void internal(Tile<cfloat, 2>& t) {
    c_.create_internal(t);
    undo_.emplace_back(&t, [this, &t] { c_.destroy_internal(t); });
  }
  void attached(Tile<cfloat, 2>& t) {
    c_.attach(t);
    undo_.emplace_back(&t, [this, &t] { c_.detach(t); });
  }
  // Detaches or destroys `t` now, errors surfacing.
  void finish(Tile<cfloat, 2>& t) {
    const auto it = std::find_if(undo_.begin(), undo_.end(), [&](const auto& u) { return u.first == &t; });
    if (it == undo_.end()) return;
    const std::function<void()> undo = std::move(it->second);
    undo_.erase(it);
    undo();
  }
  // The run went through: the rest, in reverse order, errors surfacing.
  void release() {
    while (!undo_.empty()) finish(*undo_.back().first);
  }

 private:
  Controller& c_;
  std::vector<std::pair<Tile<cfloat, 2>*, std::function<void()>>> undo_;
};

class WholeProblem final : public Problem {
 public:
  WholeProblem(index_t rows, index_t cols, std::size_t slots, std::uint64_t seed, index_t first_row)
      : m_(rows), n_(cols), first_(first_row), x_({rows, cols}, "X"), slots_(slots) {
    fill_input(x_, seed, first_row);
  }

  index_t rows() const override { return m_; }
  index_t cols() const override { return n_; }
  index_t first_row() const override { return first_; }
  void prepare_round(const std::vector<Block>& blocks, bool together) override;
  void run_block(Controller& c, Block block, std::size_t slot) override;
  ExchangeTimes exchange_times(std::size_t slot) const override { return slots_.at(slot).times; }
  Check verify(const std::vector<Block>& blocks) const override;
  void perturb_output(index_t row, index_t col, double delta) override;
  std::span<const std::byte> output_bytes(Block b) const override;
  std::string output_dtype() const override { return "<c8"; }

 private:
  struct Slot {
    Block block;                 // window rows
    index_t row0 = 0;            // its rows' first row in the instance of the round
    index_t col0 = 0, cols = 0;  // its columns of F (phase 2)
    index_t length = 0;          // M: the instance's rows, the length of its phase-2 transforms
    // Host: the rows of its transposed block that are the other processors' columns, before and
    // after its own (col0 x x and (N - col0 - cols) x x), sent home for them to take.
    std::optional<Tile<cfloat, 2>> before, after;
    std::optional<Tile<cfloat, 2>> z;      // host: its columns of F, transposed (cols x length)
    std::optional<Tile<cfloat, 2>> zeros;  // alone: the other rows' pieces (cols x (length - x))
    ExchangeTimes times;
  };

  void phase_one(Controller& c, Slot& me, Held& held, Tile<cfloat, 2>& x, Tile<cfloat, 2>& y, Tile<cfloat, 2>& t);
  void gather(Controller& c, std::size_t slot, Held& held, Tile<cfloat, 2>& s, Tile<cfloat, 2>& t);
  void phase_two(Controller& c, Slot& me, Held& held, Tile<cfloat, 2>& s);
  void meet(double& into);
  void prepare_host(Slot& s);
  static Tile<cfloat, 2>& host_tile(std::optional<Tile<cfloat, 2>>& t, index_t rows, index_t cols, const char* name);
  std::vector<std::size_t> active() const;
  double energy(const Slot& s) const;
  void check_columns(const Slot& s, double energy, CheckNotes& notes) const;

  index_t m_, n_, first_;
  Tile<cfloat, 2> x_;
  std::vector<Slot> slots_;
  bool together_ = false;
  Barrier barrier_{"fft2d-whole redistribution"};
  mutable std::vector<cfloat> natural_;  // F in natural order, made for output_bytes
  mutable bool natural_made_ = false;
};

std::vector<std::size_t> WholeProblem::active() const {
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < slots_.size(); ++k)
    if (!slots_[k].block.empty()) out.push_back(k);
  return out;
}

// Together, the blocks' rows in block order are the instance (M rows) and its N columns are
// shared in proportion; alone, each block is its share of a square instance of max(N, x) rows.
void WholeProblem::prepare_round(const std::vector<Block>& blocks, bool together) {
  together_ = together;
  natural_made_ = false;
  std::vector<index_t> rows;
  for (std::size_t k = 0; k < slots_.size(); ++k) {
    const Block b = k < blocks.size() ? blocks[k] : Block{};
    const bool inside = !b.empty() && b.begin >= first_ && b.end <= first_ + m_;  // else run_block refuses it
    slots_[k].block = inside ? Block{b.begin - first_, b.end - first_} : Block{};
    slots_[k].times = {};
    rows.push_back(slots_[k].block.rows());
  }
  const std::vector<index_t> cols = column_shares(rows, n_);
  index_t at = 0, col = 0, total = 0;
  for (const index_t r : rows) total += r;
  for (std::size_t k = 0; k < slots_.size(); ++k) {
    Slot& s = slots_[k];
    const index_t x = s.block.rows();
    if (together) {
      s.row0 = at;
      s.col0 = col;
      s.cols = cols[k];
      s.length = total;
    } else {
      s.row0 = s.col0 = 0;
      s.length = std::max(n_, x);
      s.cols = x == 0 ? 0
                      : std::max<index_t>(
                            1, static_cast<index_t>(std::llround(static_cast<double>(x) * static_cast<double>(n_) /
                                                                 static_cast<double>(s.length))));
    }
    at += x;
    col += s.cols;
    if (x > 0) prepare_host(s);
  }
  barrier_.reset(active().size());
}

// A slot's host tiles, kept while their shapes hold (a tile pinned for a GPU stays pinned), filled
// before the round rather than in the runs it times: its columns of F NaN (a row that never ran
// fails the check), a lone block's other rows zero.
void WholeProblem::prepare_host(Slot& s) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto fill = [](Tile<cfloat, 2>& t, cfloat v) {
    cfloat* d = t.data();
    host_parallel_for(t.extent(0),
                      [&](index_t b, index_t e) { std::fill(d + b * t.extent(1), d + e * t.extent(1), v); });
  };
  if (s.cols > 0) fill(host_tile(s.z, s.cols, s.length, "fft2d-whole: F by columns"), cfloat(nan, nan));
  for (auto [box, rows] : {std::pair{&s.before, s.col0}, std::pair{&s.after, n_ - s.col0 - s.cols}}) {
    if (rows > 0)
      host_tile(*box, rows, s.block.rows(), "fft2d-whole: the other processors' columns");
    else
      box->reset();
  }
  const index_t others = s.length - s.block.rows();
  if (together_ || others <= 0) return;
  const bool fresh = !s.zeros || s.zeros->extent(0) != s.cols || s.zeros->extent(1) != others;
  Tile<cfloat, 2>& zeros = host_tile(s.zeros, s.cols, others, "fft2d-whole: the other rows (zero)");
  if (fresh) fill(zeros, cfloat(0, 0));
}

Tile<cfloat, 2>& WholeProblem::host_tile(std::optional<Tile<cfloat, 2>>& t, index_t rows, index_t cols,
                                         const char* name) {
  if (!t || t->extent(0) != rows || t->extent(1) != cols) t.emplace(Tile<cfloat, 2>({rows, cols}, name));
  return *t;
}

void WholeProblem::run_block(Controller& c, Block block, std::size_t slot) {
  if (block.empty()) return;
  if (slot >= slots_.size())
    throw UsageError(fmt::format("fft2d-whole: slot {} of a problem with {} processor slots", slot, slots_.size()));
  const Block local = local_block(block, "fft2d-whole");
  Slot& me = slots_[slot];
  if (local.begin != me.block.begin || local.end != me.block.end)
    throw UsageError(fmt::format("fft2d-whole: block [{}, {}) of slot {} is not the one its round was prepared with",
                                 block.begin, block.end, slot));
  Tile<cfloat, 2> x = x_.rows(local.begin, local.end);
  Tile<cfloat, 2> y({local.rows(), n_}, shape_only, "fft2d-whole: phase 1's rows");
  Tile<cfloat, 2> t({n_, local.rows()}, shape_only, "fft2d-whole: phase 1's rows transposed");
  Tile<cfloat, 2> s({me.cols, me.length}, shape_only, "fft2d-whole: phase 2's columns");
  try {
    Held held(c);
    phase_one(c, me, held, x, y, t);
    if (me.cols > 0) held.internal(s);
    gather(c, slot, held, s, t);
    if (me.cols > 0) phase_two(c, me, held, s);
    if (together_) meet(me.times.waiting);  // the others may still read this block's columns
    held.release();
  } catch (...) {
    barrier_.break_it();
    throw;
  }
}

void WholeProblem::phase_one(Controller& c, Slot& me, Held& held, Tile<cfloat, 2>& x, Tile<cfloat, 2>& y,
                             Tile<cfloat, 2>& t) {
  held.attached(x);
  held.internal(y);
  c.launch<FftRows>(Threads(x.extent(0), n_), y, x);
  held.internal(t);
  c.launch<Transpose>(Threads(n_, x.extent(0)), t, y);
  // The other processors' columns go home, whether they are there (a run) or stand-ins (alone).
  for (auto [box, row0] : {std::pair{&me.before, index_t{0}}, std::pair{&me.after, me.col0 + me.cols}}) {
    if (!*box) continue;
    held.attached(**box);
    c.launch<Place>(Threads((*box)->extent(0), x.extent(0)), **box, t, row0, 0);
    held.finish(**box);
  }
}

// Waits for every block of the round to reach this point; the time spent waiting for the others
// goes to `into`.
void WholeProblem::meet(double& into) {
  const auto arrived = Clock::now();
  barrier_.wait();
  into += std::chrono::duration<double>(Clock::now() - arrived).count();
}

// The c x M slab of this slot's columns: its own piece from its t; the others' from where their
// processors sent them home (together), or zeros from the host (alone): the same bytes in.
void WholeProblem::gather(Controller& c, std::size_t slot, Held& held, Tile<cfloat, 2>& s, Tile<cfloat, 2>& t) {
  Slot& me = slots_[slot];
  const index_t x = me.block.rows(), cols = me.cols;
  if (!together_) {
    c.launch<Place>(Threads(cols, x), s, t, me.col0, me.row0);
    if (me.length > x) {
      held.attached(*me.zeros);
      c.launch<Place>(Threads(cols, me.length - x), s, *me.zeros, 0, x);
      held.finish(*me.zeros);
    }
    return;
  }
  meet(me.times.waiting);  // every block's columns are home
  const auto released = Clock::now();
  if (cols > 0) {
    std::vector<std::optional<Tile<cfloat, 2>>> pieces(slots_.size());
    Held piece_held(c);
    for (const std::size_t q : active()) {
      const Slot& other = slots_[q];
      if (q == slot) {
        c.launch<Place>(Threads(cols, x), s, t, me.col0, me.row0);
        continue;
      }
      // This slot's columns are all before the other's own, or all after.
      const bool before = me.col0 < other.col0;
      const index_t first = before ? me.col0 : me.col0 - other.col0 - other.cols;
      Tile<cfloat, 2>& p = pieces[q].emplace((before ? *other.before : *other.after).rows(first, first + cols));
      piece_held.attached(p);
      c.launch<Place>(Threads(cols, other.block.rows()), s, p, 0, other.row0);
    }
    piece_held.release();
  }
  me.times.exchanging += std::chrono::duration<double>(Clock::now() - released).count();
}

void WholeProblem::phase_two(Controller& c, Slot& me, Held& held, Tile<cfloat, 2>& s) {
  Tile<cfloat, 2>& z = *me.z;
  held.attached(z);
  c.launch<FftRows>(Threads(me.cols, me.length), z, s);
  held.finish(z);  // home before waiting for the others
}

// ---- checks and output -------------------------------------------------------------------------

// |X|^2 over a slot's rows.
double WholeProblem::energy(const Slot& s) const {
  double e = 0;
  for (index_t i = s.block.begin; i < s.block.end; ++i)
    for (index_t j = 0; j < n_; ++j) e += std::norm(cdouble(x_(i, j)));
  return e;
}

// Columns of F this slot computed (its first, middle and last) against a double-precision
// transform: phase 1 as direct N-point sums over the instance's rows (zero beyond a lone block's),
// phase 2 as reference_dft. The tolerance bounds float FFTs' error in both phases: 10 u (log2 N +
// log2 M + 2) (sqrt(M) |X| + |y|), `energy` = |X|^2 over the rows read.
void WholeProblem::check_columns(const Slot& s, double energy, CheckNotes& notes) const {
  if (s.cols == 0) return;
  const index_t m = s.length;
  const double u = 0x1.0p-24;
  const double c = 10 * u * (std::log2(static_cast<double>(n_)) + std::log2(static_cast<double>(m)) + 2);
  const std::vector<cdouble> twiddle = twiddles(static_cast<std::size_t>(n_));
  // The instance's row r: its block's row, in block order (together), or the lone block's.
  std::vector<index_t> window_row(static_cast<std::size_t>(m), -1);
  auto place = [&](const Slot& q) {
    for (index_t i = 0; i < q.block.rows(); ++i) window_row[static_cast<std::size_t>(q.row0 + i)] = q.block.begin + i;
  };
  if (together_)
    for (const std::size_t q : active()) place(slots_[q]);
  else
    place(s);
  std::vector<index_t> sample{s.col0, s.col0 + s.cols / 2, s.col0 + s.cols - 1};
  sample.erase(std::unique(sample.begin(), sample.end()), sample.end());
  for (const index_t k2 : sample) {
    std::vector<cdouble> y(static_cast<std::size_t>(m), cdouble(0, 0));
    host_parallel_for(m, [&](index_t b, index_t e) {
      for (index_t r = b; r < e; ++r)
        if (const index_t w = window_row[static_cast<std::size_t>(r)]; w >= 0)
          y[static_cast<std::size_t>(r)] = dft_at(x_.data() + static_cast<std::size_t>(w * n_),
                                                  static_cast<std::size_t>(n_), static_cast<std::size_t>(k2), twiddle);
    });
    double ey = 0;
    for (const cdouble& v : y) ey += std::norm(v);
    const std::vector<cdouble> ref = reference_dft(y);
    const double tol =
        c * (std::sqrt(static_cast<double>(m) * energy) + std::sqrt(ey)) + std::numeric_limits<double>::min();
    const cfloat* got = s.z->data() + static_cast<std::size_t>((k2 - s.col0) * m);
    for (index_t k1 = 0; k1 < m; ++k1)
      notes.note(std::abs(cdouble(got[k1]) - ref[static_cast<std::size_t>(k1)]), tol, [&] {
        return fmt::format("F({}, {}) = ({:.7g}, {:.7g}) against ({:.7g}, {:.7g}) (tolerance {:.3g})", k1, k2,
                           got[k1].real(), got[k1].imag(), ref[static_cast<std::size_t>(k1)].real(),
                           ref[static_cast<std::size_t>(k1)].imag(), tol);
      });
  }
}

Check WholeProblem::verify(const std::vector<Block>& blocks) const {
  Check check;
  check.method = together_ ? "every element finite, each processor's first, middle and last columns against a "
                             "double-precision 2-D DFT, and Parseval over the whole transform"
                           : "every element finite, and each block's first, middle and last columns against a "
                             "double-precision 2-D DFT of its rows (the others zero)";
  CheckNotes notes(check);
  // The slots of the blocks asked for (a block not run in the round fails).
  std::vector<const Slot*> mine;
  for (const Block& b : blocks) {
    if (b.empty()) continue;
    const Block local = local_block(b, "fft2d-whole");
    const auto it = std::find_if(slots_.begin(), slots_.end(), [&](const Slot& s) {
      return s.block.begin == local.begin && s.block.end == local.end;
    });
    if (it == slots_.end()) {
      notes.note(std::numeric_limits<double>::infinity(), 1.0,
                 [&] { return fmt::format("rows [{}, {}) were not in the round", b.begin, b.end); });
      continue;
    }
    mine.push_back(&*it);
  }
  // |X|^2 of the rows each slot's columns were computed from: the whole instance's together.
  double ex = 0;
  if (together_)
    for (const std::size_t q : active()) ex += energy(slots_[q]);
  double ef = 0;
  index_t total = 0;
  for (const Slot* s : mine) {
    total += s->block.rows();
    check.rows_checked += static_cast<std::size_t>(s->block.rows());
    if (s->cols == 0) continue;  // a block with no column of its own (its rows went to the others)
    if (!s->z || s->z->extent(0) != s->cols || s->z->extent(1) != s->length) {
      notes.note(std::numeric_limits<double>::infinity(), 1.0, [&] {
        return fmt::format("rows [{}, {}) never ran", first_ + s->block.begin, first_ + s->block.end);
      });
      continue;
    }
    for (const cfloat& v : s->z->elements()) {
      if (!std::isfinite(v.real()) || !std::isfinite(v.imag())) {
        notes.note(std::numeric_limits<double>::quiet_NaN(), 1.0, [&] {
          const auto k = static_cast<index_t>(&v - s->z->data());
          return fmt::format("F({}, {}) is ({}, {}): never computed", k % s->length, s->col0 + k / s->length, v.real(),
                             v.imag());
        });
        break;
      }
      ef += std::norm(cdouble(v));
    }
    check_columns(*s, together_ ? ex : energy(*s), notes);
  }
  // Together, and every block asked for: the whole transform's energy (Parseval), which catches
  // an element of a column no check samples.
  if (together_ && total > 0 && mine.size() == active().size()) {
    const double u = 0x1.0p-24;
    const double want = static_cast<double>(total) * static_cast<double>(n_) * ex;
    const double tol =
        20 * u * (std::log2(static_cast<double>(n_)) + std::log2(static_cast<double>(total)) + 2) * want +
        std::numeric_limits<double>::min();
    notes.note(std::fabs(ef - want), tol, [&] {
      return fmt::format("the transform's energy {} against M N |X|^2 = {} (tolerance {:.3g})", ef, want, tol);
    });
  }
  return check;
}

void WholeProblem::perturb_output(index_t row, index_t col, double delta) {
  const index_t r = local_block({row, row + 1}, "fft2d-whole").begin;
  for (Slot& s : slots_)
    if (s.z && col >= s.col0 && col < s.col0 + s.cols && r < s.length) {
      s.z->data()[static_cast<std::size_t>((col - s.col0) * s.length + r)] += cfloat(static_cast<float>(delta), 0.0F);
      natural_made_ = false;
      return;
    }
  throw UsageError(fmt::format("fft2d-whole: no processor computed F({}, {})", row, col));
}

// F in natural order: made from the processors' columns at the first call after a round.
std::span<const std::byte> WholeProblem::output_bytes(Block block) const {
  const Block b = local_block(block, "fft2d-whole");
  if (!natural_made_) {
    natural_.assign(static_cast<std::size_t>(m_ * n_), cfloat(std::numeric_limits<float>::quiet_NaN(), 0.0F));
    for (const Slot& s : slots_) {
      if (!s.z || s.block.empty()) continue;
      for (index_t k = 0; k < s.cols; ++k)
        for (index_t r = 0; r < s.length && r < m_; ++r)
          natural_[static_cast<std::size_t>(r * n_ + s.col0 + k)] = (*s.z)(k, r);
    }
    natural_made_ = true;
  }
  const auto row = static_cast<std::size_t>(n_) * sizeof(cfloat);
  return {reinterpret_cast<const std::byte*>(natural_.data()) + static_cast<std::size_t>(b.begin) * row,
          static_cast<std::size_t>(b.rows()) * row};
}

class WholeWorkload final : public Workload {
 public:
  std::string name() const override { return "fft2d-whole"; }
  std::string summary(index_t cols) const override {
    return fmt::format(
        "fft2d-whole: the 2-D FFT of an M x {0} complex float matrix, row FFTs, a redistribution, column FFTs, "
        "x rows and their share of the {0} columns per processor",
        cols);
  }
  index_t default_cols() const override { return 4096; }
  // The HEPOPTA paper's 2.5 M N log2(M N) for a 2-D DFT, for a share of x rows of a square one.
  double flops(index_t rows, index_t cols) const override {
    const auto n = static_cast<double>(cols);
    return 2.5 * static_cast<double>(rows) * n * std::log2(n * n);
  }
  bool blocks_meet() const override { return true; }

 protected:
  std::unique_ptr<Problem> make_window(index_t rows, index_t cols, std::size_t slots, std::uint64_t seed,
                                       index_t first_row) const override {
    if (first_row < 0) throw UsageError(fmt::format("fft2d-whole: a window cannot start at row {}", first_row));
    return std::make_unique<WholeProblem>(rows, cols, std::max<std::size_t>(slots, 1), seed, first_row);
  }
  // X, F in natural order, F by columns, and a lone block's zero rows: each at most M x N.
  std::vector<ArrayShape> arrays(index_t rows, index_t cols, std::size_t /*slots*/) const override {
    return {{"X", 1, rows, cols, sizeof(cfloat)},
            {"F", 1, rows, cols, sizeof(cfloat)},
            {"F by columns", 1, rows, cols, sizeof(cfloat)},
            {"the other rows of a lone block", 1, rows, cols, sizeof(cfloat)}};
  }
};

}  // namespace

void Transpose::cpu_library(CpuContext& ctx, Out<cfloat, 2> t, In<cfloat, 2> y) const {
  const index_t rows = y.extent(0), cols = y.extent(1);
  constexpr index_t tile = 32;
  ctx.parallel_for((cols + tile - 1) / tile, [&](index_t begin, index_t end, int) {
    for (index_t jb = begin * tile; jb < std::min(end * tile, cols); jb += tile)
      for (index_t ib = 0; ib < rows; ib += tile)
        for (index_t j = jb; j < std::min(jb + tile, cols); ++j)
          for (index_t i = ib; i < std::min(ib + tile, rows); ++i) t(j, i) = y(i, j);
  });
}

void Place::cpu_library(CpuContext& ctx, InOut<cfloat, 2> s, In<cfloat, 2> piece, index_t row0, index_t col0) const {
  const index_t width = piece.extent(1);
  ctx.parallel_for(s.extent(0), [&](index_t begin, index_t end, int) {
    for (index_t k = begin; k < end; ++k)
      std::memcpy(&s(k, col0), &piece(row0 + k, 0), static_cast<std::size_t>(width) * sizeof(cfloat));
  });
}

}  // namespace apps::fft2d

namespace apps {
std::unique_ptr<ctrl::loop::Workload> fft2d_whole_workload() { return std::make_unique<fft2d::WholeWorkload>(); }
}  // namespace apps
