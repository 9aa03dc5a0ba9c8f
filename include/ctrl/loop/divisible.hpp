// A workload divisible by rows, described in a few lines: its arrays, the kernels that compute one
// block of rows on one controller, and (optionally) how to check the result. ctrl does the rest:
// the host arrays of an instance, a row-block sub-tile of every split array for each processor,
// one controller per processor, all processors started together, transfers as the kernels' roles
// demand, halos between neighbouring blocks, and the profile -> front -> run loop (docs/loop.md).
//
//   struct Saxpy {                       // y = a x + y, written once for every device kind
//     static constexpr const char* name = "saxpy";
//     CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::InOut<float, 1> y, ctrl::In<float, 1> x,
//                                      float a) const { y(t.x) += a * x(t.x); }
//   };
//   using namespace ctrl::loop;
//   Divisible saxpy("saxpy", "y = 2 x + y");
//   auto x = saxpy.input<float>("x", {Rows}, random_values(-1, 1));
//   auto y = saxpy.output<float>("y", {Rows}, random_values(-1, 1));
//   saxpy.compute([=](BlockRun& r) { r.launch<Saxpy>(ctrl::Threads(r.rows()), r[y], r[x], 2.0F); });
//
// Extents are numbers, `Rows` (the split dimension: the rows a processor is given; first only)
// and `N` (the workload's fixed dimension, --cols of the tool). An array with `Rows` is split:
// a processor attaches the rows of its block. An array without is whole: every processor gets a
// replica of its own, read only (the B of C = A B). Inputs are filled from the instance's seed,
// element by element, so that any window or block of rows holds what the whole instance holds.
// Outputs start as NaN (zero for integers) unless given initial values: a row that never ran
// fails its check. Scratch arrays live only in the device's memory (internal tiles).
#pragma once
#include <ctrl/loop/workload.hpp>

#include <ctrl/ctrl.hpp>
#include <ctrl/io/npy.hpp>

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ctrl::loop {

// One extent of an array: a number, the split rows, or N.
struct Extent {
  enum class Kind { fixed, rows, n };
  Kind kind = Kind::fixed;
  index_t value = 0;
  constexpr Extent(index_t v) : value(v) {}  // NOLINT: implicit, so that {Rows, 3} reads as extents
  constexpr explicit Extent(Kind k) : kind(k) {}
  // The extent for an instance of `rows` rows and fixed dimension `cols`.
  constexpr index_t resolve(index_t rows, index_t cols) const {
    return kind == Kind::rows ? rows : kind == Kind::n ? cols : value;
  }
};
inline constexpr Extent Rows{Extent::Kind::rows};
inline constexpr Extent N{Extent::Kind::n};

// A handle to an array of a Divisible, for BlockRun::operator[] and Results.
template <class T, std::size_t R>
struct Array {
  std::size_t id = 0;
};

// Initial values: element k (row-major within its row) of instance row `row`; `seed` is the
// instance's seed mixed with the array's position, so that two arrays given the same function
// differ. Must depend on nothing else (any window of rows must hold what the whole instance holds).
template <class T>
using Init = std::function<T(index_t row, index_t k, std::uint64_t seed)>;

// Uniform values in [lo, hi): deterministic in (seed, row, k).
template <class T>
Init<T> random_values(double lo, double hi) {
  return [lo, hi](index_t row, index_t k, std::uint64_t seed) {
    const double u = 0.5 * (uniform(seed, static_cast<std::uint64_t>(row), static_cast<std::uint64_t>(k)) + 1.0);
    return static_cast<T>(lo + (hi - lo) * u);
  };
}

class Divisible;
class DivisibleProblem;

// What the compute function of a Divisible sees for one run of one block on one controller: the
// block's tiles, already attached (split arrays: the block's rows, plus halo rows; whole arrays:
// this processor's replica; scratch: internal tiles of the block's shape).
class BlockRun {
 public:
  Controller& controller() const { return controller_; }
  Block block() const { return block_; }  // the instance's rows this processor computes
  index_t rows() const { return block_.rows(); }
  // The rows of the instance this run is part of: a run's whole distribution, or the block's own
  // rows when it runs alone (a profile's rounds). What a dealt workload's places are rows of.
  index_t instance_rows() const;
  index_t cols() const { return cols_; }  // N
  // Rows of halo present before and after the block in `a`'s tile (0 at the instance's edges).
  template <class T, std::size_t R>
  index_t halo_before(Array<T, R> a) const {
    return halo_rows(a.id, true);
  }
  template <class T, std::size_t R>
  index_t halo_after(Array<T, R> a) const {
    return halo_rows(a.id, false);
  }

  template <class T, std::size_t R>
  Tile<T, R>& operator[](Array<T, R> a) const {
    return *static_cast<Tile<T, R>*>(tile(a.id, sizeof(T), R));
  }
  // controller().launch<K>(...), compiled where this call is (a .cu file for GPU controllers).
  template <class K, bool Nvcc = detail::compiled_by_nvcc, class... A>
  void launch(const Threads& space, A&&... args) const {
    controller_.launch<K, Nvcc>(space, std::forward<A>(args)...);
  }
  // Brings the halo rows of `a` up to date: the neighbours' first and last rows come into this
  // block's halo, straight from their controllers' memories where this one's reaches them
  // (Controller::copy_rows), through host memory otherwise. Every processor of a run calls it the
  // same number of times; while the profile measures processors alone, the halo moves but keeps
  // its values.
  template <class T, std::size_t R>
  void exchange(Array<T, R> a) const {
    exchange(a.id);
  }

 private:
  friend class DivisibleProblem;
  BlockRun(Controller& c, Block b, index_t cols, DivisibleProblem& p, std::size_t slot)
      : controller_(c), block_(b), cols_(cols), problem_(p), slot_(slot) {}
  void* tile(std::size_t id, std::size_t elem_size, std::size_t rank) const;
  index_t halo_rows(std::size_t id, bool before) const;
  void exchange(std::size_t id) const;

  Controller& controller_;
  Block block_;
  index_t cols_;
  DivisibleProblem& problem_;
  std::size_t slot_;
};

// The host arrays after a round, for the check: inputs as generated, outputs as computed.
class Results {
 public:
  const std::vector<Block>& blocks() const { return blocks_; }  // the blocks to check (non-empty ones)
  index_t first_row() const { return first_row_; }              // instance row of the arrays' row 0
  index_t rows() const { return rows_; }                        // rows of the instance held
  index_t cols() const { return cols_; }
  // True when each block ran alone (the profile's rounds): its halo rows kept their initial values.
  bool standalone() const { return standalone_; }
  // The rows of the instance block `b` was run in (BlockRun::instance_rows).
  index_t instance_rows(const Block& b) const;
  // Every element held of a split array (rows() rows), or a whole array, row-major.
  template <class T, std::size_t R>
  std::span<const T> operator[](Array<T, R> a) const {
    auto bytes = data(a.id, sizeof(T), R);
    return {reinterpret_cast<const T*>(bytes.data()), bytes.size() / sizeof(T)};
  }
  // Elements in one row of a split array (the product of its extents after the first).
  template <class T, std::size_t R>
  std::size_t row_length(Array<T, R> a) const {
    return row_elements(a.id);
  }

 private:
  friend class DivisibleProblem;
  Results(const DivisibleProblem& p, std::vector<Block> blocks, bool standalone);
  std::span<const std::byte> data(std::size_t id, std::size_t elem_size, std::size_t rank) const;
  std::size_t row_elements(std::size_t id) const;
  const DivisibleProblem& problem_;
  std::vector<Block> blocks_;
  index_t first_row_, rows_, cols_;
  bool standalone_;
};

class Divisible final : public Workload {
 public:
  using Compute = std::function<void(BlockRun&)>;
  using Verify = std::function<void(const Results&, CheckNotes&)>;

  // `name` as the tool and profiles know it; `summary` one line of what it computes.
  Divisible(std::string name, std::string summary, index_t default_cols = 1);
  ~Divisible() override;

  // An array the kernels read. Whole arrays (no `Rows`) are read only: a replica per processor.
  template <class T, std::size_t R>
  Array<T, R> input(std::string name, const Extent (&extents)[R], Init<T> init = random_values<T>(-1, 1)) {
    return add<T, R>(std::move(name), extents, Part::input, std::move(init));
  }
  // An array the kernels write; split by rows. `init`: initial values (for InOut kernels).
  template <class T, std::size_t R>
  Array<T, R> output(std::string name, const Extent (&extents)[R], Init<T> init = {}) {
    return add<T, R>(std::move(name), extents, Part::output, std::move(init));
  }
  // An array in the device's memory only (an internal tile per block); split by rows.
  template <class T, std::size_t R>
  Array<T, R> scratch(std::string name, const Extent (&extents)[R]) {
    return add<T, R>(std::move(name), extents, Part::scratch, {});
  }
  // `rows` rows of halo on either side of a block of split array `a` (a stencil's reach): the
  // block's tile holds them, read from the neighbouring blocks, and BlockRun::exchange refreshes
  // them. The halo's values at the start are the array's (its initial values, or for an output
  // what the first kernel writes into them).
  template <class T, std::size_t R>
  void halo(Array<T, R> a, index_t rows) {
    set_halo(a.id, rows);
  }

  // Rows dealt, not cut: for work whose cost per row depends on where the row is (the Mandelbrot
  // set). A processor given x rows of an instance of M computes x rows spread evenly over all M,
  // dealt in chunks of `chunk` rows (dealt_rows), so that its time depends on x alone and a
  // profile of x rows (an instance of x rows, each processor alone) predicts its share of any M.
  // The array returned is an input the library fills: for each row a block holds, the instance
  // row it stands for, below BlockRun::instance_rows(). Kernels compute row place(i) where they
  // would compute row i; other inputs hold the values of the row they stand for; outputs are in
  // the processors' order on the host and put in instance order when written (`ctrl run
  // --output`). The granularity must be a multiple of `chunk`; no halos (rows dealt have no
  // neighbours). UsageError otherwise, or when called twice.
  //
  //   const auto place = w.deal("place");
  //   w.compute([=](BlockRun& r) {
  //     r.launch<Escape>(ctrl::Threads(r.rows(), r.cols()), r[iterations], r[place], r.instance_rows());
  //   });
  Array<std::int64_t, 1> deal(std::string name, index_t chunk = 1);

  // The kernels of one block (required).
  void compute(Compute fn) { compute_ = std::move(fn); }
  // The check of a round's outputs; `method` says in words how they are checked.
  void verify(std::string method, Verify fn) {
    verify_method_ = std::move(method);
    verify_ = std::move(fn);
  }
  // Blocks of a multiple of `rows` rows only (kernels that work on blocks of rows): profiles,
  // fronts and runs give each processor a multiple of it. Default 1. UsageError below 1.
  void granularity(index_t rows);
  // Floating-point operations of `rows` rows (for GFLOP/s in profiles); default 0.
  void flops(std::function<double(index_t rows, index_t cols)> fn) { flops_ = std::move(fn); }
  // The output written by `ctrl run --output` (default: the first output).
  template <class T, std::size_t R>
  void saved_output(Array<T, R> a) {
    set_saved(a.id);
  }

  std::string name() const override { return name_; }
  std::string summary(index_t cols) const override;
  index_t default_cols() const override { return default_cols_; }
  double flops(index_t rows, index_t cols) const override { return flops_ ? flops_(rows, cols) : 0.0; }
  bool exchanges_halos() const override;
  index_t granularity() const override { return granularity_; }
  index_t min_rows() const override;

 protected:
  std::vector<ArrayShape> arrays(index_t rows, index_t cols, std::size_t slots) const override;
  std::unique_ptr<Problem> make_window(index_t rows, index_t cols, std::size_t slots, std::uint64_t seed,
                                       index_t first_row) const override;

 private:
  friend class DivisibleProblem;
  friend class BlockRun;
  friend class Results;
  enum class Part { input, output, scratch };
  // What the problem needs of an array, its element type erased.
  struct Spec {
    std::string name;
    Part part;
    std::size_t elem_size, rank;
    std::vector<Extent> extents;
    index_t halo = 0;
    std::string dtype;  // .npy dtype of an element, "" when it has none
    // Fills `count` elements starting at element `k0` of instance row `row`.
    std::function<void(void* out, index_t row, index_t k0, std::size_t count, std::uint64_t seed)> fill;
    // A tile of these extents: host-allocated, or by shape only (scratch); its row block; the
    // controller operations on it. `tile` points at a Tile<T, R>.
    // A tile of these extents, named as the user's array in every message about it.
    std::function<std::shared_ptr<void>(const index_t* ext, bool host, std::string name)> make;
    std::function<std::shared_ptr<void>(const std::shared_ptr<void>& tile, index_t begin, index_t end)> rows;
    std::function<void(Controller&, void* tile, int op)> on;  // op: Op below
    std::function<void*(void* tile)> data;
    std::function<void(Controller&, void* tile, bool to_host, index_t begin, index_t end)> move_rows;
    // Controller::copy_rows: rows [begin, end) of `tile` from rows of `source` from row `from`.
    std::function<void(Controller&, void* tile, index_t begin, index_t end, const void* source, index_t from)>
        copy_rows;
  };
  enum Op : int { attach = 0, detach = 1, create_internal = 2, destroy_internal = 3 };

  template <class T, std::size_t R>
  Array<T, R> add(std::string name, const Extent (&extents)[R], Part part, Init<T> init);
  std::size_t add_spec(Spec spec);
  void set_halo(std::size_t id, index_t rows);
  void set_saved(std::size_t id);

  std::string name_, summary_;
  index_t default_cols_;
  std::vector<Spec> specs_;
  Compute compute_;
  Verify verify_;
  std::string verify_method_;
  std::function<double(index_t, index_t)> flops_;
  std::size_t saved_ = static_cast<std::size_t>(-1);
  index_t granularity_ = 1;
  std::size_t dealt_ = static_cast<std::size_t>(-1);  // the places array of a dealt workload
  index_t chunk_ = 0;                                 // its chunk; 0: rows are cut into blocks
};

template <class T, std::size_t R>
Array<T, R> Divisible::add(std::string name, const Extent (&extents)[R], Part part, Init<T> init) {
  static_assert(R >= 1 && R <= max_tile_rank, "a Divisible's arrays have 1 to 4 dimensions");
  Spec s;
  s.name = std::move(name);
  s.part = part;
  s.elem_size = sizeof(T);
  s.rank = R;
  s.extents.assign(extents, extents + R);
  if constexpr (requires { npy::dtype_of<T>::value; }) s.dtype = npy::dtype_of<T>::value;
  if (init) {
    s.fill = [init = std::move(init)](void* out, index_t row, index_t k0, std::size_t count, std::uint64_t seed) {
      T* o = static_cast<T*>(out);
      for (std::size_t i = 0; i < count; ++i) o[i] = init(row, k0 + static_cast<index_t>(i), seed);
    };
  } else if (part == Part::output) {
    s.fill = [](void* out, index_t, index_t, std::size_t count, std::uint64_t) {
      T* o = static_cast<T*>(out);
      const T v = std::numeric_limits<T>::has_quiet_NaN ? std::numeric_limits<T>::quiet_NaN() : T{};
      for (std::size_t i = 0; i < count; ++i) o[i] = v;
    };
  }
  s.make = [](const index_t* ext, bool host, std::string tile_name) -> std::shared_ptr<void> {
    index_t e[R];
    for (std::size_t d = 0; d < R; ++d) e[d] = ext[d];
    return host ? std::make_shared<Tile<T, R>>(e, std::move(tile_name))
                : std::make_shared<Tile<T, R>>(e, shape_only, std::move(tile_name));
  };
  s.rows = [](const std::shared_ptr<void>& t, index_t begin, index_t end) -> std::shared_ptr<void> {
    return std::make_shared<Tile<T, R>>(static_cast<Tile<T, R>*>(t.get())->rows(begin, end));
  };
  s.on = [](Controller& c, void* t, int op) {
    auto& tile = *static_cast<Tile<T, R>*>(t);
    switch (op) {
      case attach:
        c.attach(tile);
        break;
      case detach:
        c.detach(tile);
        break;
      case create_internal:
        c.create_internal(tile);
        break;
      default:
        c.destroy_internal(tile);
        break;
    }
  };
  s.data = [](void* t) -> void* { return static_cast<Tile<T, R>*>(t)->data(); };
  s.move_rows = [](Controller& c, void* t, bool to_host, index_t begin, index_t end) {
    auto& tile = *static_cast<Tile<T, R>*>(t);
    if (to_host) {
      c.update_host(tile, begin, end);
    } else {
      c.update_device(tile, begin, end);
    }
  };
  s.copy_rows = [](Controller& c, void* t, index_t begin, index_t end, const void* source, index_t from) {
    c.copy_rows(*static_cast<Tile<T, R>*>(t), begin, end, *static_cast<const Tile<T, R>*>(source), from);
  };
  return Array<T, R>{add_spec(std::move(s))};
}

}  // namespace ctrl::loop
