// Applications for workload distribution (the HEPOPTA paper, the use cases): a matrix of m rows is
// split into row blocks, one block per controller, and every controller computes its block with the
// best library of its device. The workload size x_i given to a processor is its number of rows.
//
//   dgemm   C[m x N] = A[m x N] . B[N x N] in double precision (the paper's 1-D split of DGEMM);
//           OpenBLAS on CPU controllers, cuBLAS on GPUs. Each processor gets a replica of B.
//   fft2d   the row phase of the 2-D FFT of an m x N single-precision complex matrix: every row
//           of the processor's block is transformed by an N-point forward FFT (out of place,
//           X -> Y); FFTW on CPU controllers, cuFFT on GPUs. (A full 2-D FFT is this phase, a
//           transpose, and the same phase again on the transpose: docs/loop.md.)
//
// A Problem holds the host arrays of one instance, or of a window of its rows [first_row(),
// first_row() + rows()) (an MPI rank holds the rows of its own processors). Blocks are always in
// the whole instance's rows, and every element depends only on its position in the whole
// instance, so a window computes exactly what the whole would. run_block() attaches row-block sub-tiles
// (Tile::rows) of those arrays to a controller, launches, detaches: one application run on one
// processor, including the transfers a separate-memory device needs. Distinct blocks may run at
// the same time from different threads, each on its own controller and slot.
#pragma once
#include <ctrl/ctrl.hpp>

#include <cstdint>
#include <cstddef>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ctrl::loop {

// Rows [begin, end) of a problem.
struct Block {
  index_t begin = 0, end = 0;
  index_t rows() const { return end - begin; }
  bool empty() const { return end <= begin; }
};

// Consecutive blocks for a distribution, in processor order: sizes {3, 0, 5} -> [0,3) [3,3) [3,8).
std::vector<Block> consecutive_blocks(const std::vector<index_t>& sizes);

// Rows dealt instead of cut, for work whose cost per row depends on where the row is (Divisible::
// deal): the M rows of an instance (M = the sum of `sizes`) are taken in chunks of `chunk` rows,
// and the chunks are dealt to the processors so that each one's chunks are spread evenly over the
// whole instance (processor p's k-th chunk is the one due at (k + 1/2) / n_p of the way through,
// n_p = sizes[p] / chunk). The result maps each stored row of consecutive_blocks(sizes) to the
// instance row it stands for. UsageError for a size that is negative or not a multiple of `chunk`.
std::vector<index_t> dealt_rows(const std::vector<index_t>& sizes, index_t chunk);

// Stored rows (`row_bytes` each, in stored order) put in instance order: row s goes to places[s].
std::vector<std::byte> in_instance_order(std::span<const std::byte> rows, std::size_t row_bytes,
                                         const std::vector<index_t>& places);

// What verification found.
struct Check {
  bool ok = true;
  double worst = 0.0;  // the largest error divided by its tolerance (ok when <= 1)
  std::size_t rows_checked = 0;
  std::string method;  // how the rows were checked, in words
  std::string detail;  // where the worst (or first failing) element is
};

// Accumulates errors against tolerances for a Check: keeps the worst ratio, and where the worst
// element is while all pass, or where the first failure is. A NaN error fails.
class CheckNotes {
 public:
  explicit CheckNotes(Check& check) : check_(check) {}
  template <class Where>
  void note(double err, double tol, Where&& where) {
    const double ratio = err != err ? std::numeric_limits<double>::infinity() : err / tol;
    const bool bad = !(ratio <= 1.0);
    if (bad && check_.ok) {
      check_.ok = false;
      check_.detail = where();
    } else if (check_.ok && ratio > check_.worst) {
      check_.detail = where();
    }
    if (ratio > check_.worst) check_.worst = ratio;
  }
  void rows_checked(std::size_t rows) { check_.rows_checked += rows; }

 private:
  Check& check_;
};

class Problem {
 public:
  virtual ~Problem() = default;
  virtual index_t rows() const = 0;  // rows held (the window's)
  virtual index_t cols() const = 0;
  virtual index_t first_row() const = 0;  // the instance row of the window's first row
  // One run of rows [b.begin, b.end) on controller c (blocks until done). `slot` names the
  // processor (0 .. slots-1): replicated operands are per slot. An empty block does nothing.
  virtual void run_block(Controller& c, Block b, std::size_t slot) = 0;
  // Before a round: the block of every slot, and whether the blocks run together as one
  // execution of a distribution of the rows they cover (neighbouring blocks exchange halos; the
  // instance ends with the last block) or each alone (fill rounds, in which a processor repeats
  // its block on its own). Default: nothing.
  virtual void prepare_round(const std::vector<Block>& /*blocks*/, bool /*together*/) {}
  // Per slot, since the last prepare_round: seconds its runs waited at halo exchanges for the
  // other blocks to reach them (their kernels: the wait that a front's max over processors
  // models), and seconds spent in the exchanges themselves (copies, and the wait for the
  // neighbours' copies). Zero for a workload without halos.
  struct ExchangeTimes {
    double waiting = 0, exchanging = 0;
  };
  virtual ExchangeTimes exchange_times(std::size_t /*slot*/) const { return {}; }
  // Checks the outputs of these blocks against a reference (see each workload for how).
  virtual Check verify(const std::vector<Block>& blocks) const = 0;
  // For tests of verify(): adds `delta` to output element (row, col) (to its real part for fft2d).
  virtual void perturb_output(index_t row, index_t col, double delta) = 0;
  // The output rows of block b (in the window), row-major, and the .npy dtype of an element.
  virtual std::span<const std::byte> output_bytes(Block b) const = 0;
  // The chunk of a workload whose rows are dealt (dealt_rows): its stored rows are in the order
  // the processors hold them, and an output is put in instance order before it is written. 0 for
  // rows cut into consecutive blocks (the default).
  virtual index_t dealing() const { return 0; }
  virtual std::string output_dtype() const = 0;

 protected:
  // b in the window's own rows; UsageError naming the application when b is outside the window.
  Block local_block(Block b, const char* app) const;
};

// A number an application takes besides its sizes: jacobi's sweeps, blackscholes' rates (the
// tool's `ctrl profile APP --NAME VALUE`). Bounds are inclusive unless min_exclusive.
struct Parameter {
  std::string name;  // as the option is spelled, without dashes: "iterations"
  std::string help;  // one line: what it is
  double value = 0;  // the default
  bool integer = false;
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;
};

// The values of one application's parameters, each at its default until set.
//
//   Settings s = catalog.defaults("jacobi");
//   s.set("iterations", 50);
//   auto jacobi50 = catalog.make("jacobi", s);   // jacobi50->identity() == "jacobi iterations=50"
class Settings {
 public:
  Settings() = default;
  Settings(std::string app, std::vector<Parameter> parameters);
  // UsageError naming the application and the parameter: one it does not take (the message
  // lists those it does), a value that is not finite, outside the bounds, or not an integer.
  Settings& set(std::string_view name, double value);
  // A parameter's value; UsageError when the application has no such parameter.
  double operator[](std::string_view name) const;
  // The same, for an integer parameter, as an int.
  int integer(std::string_view name) const;
  const std::vector<Parameter>& parameters() const { return parameters_; }
  // The values that differ from the defaults, in the parameters' order: "iterations=50" ("" when
  // every one is at its default).
  std::string text() const;

 private:
  const Parameter& find(std::string_view name) const;
  std::string app_;
  std::vector<Parameter> parameters_;
  std::vector<double> values_;
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual std::string name() const = 0;
  // The values of its parameters it was made with (Catalog::make); none for a workload made
  // directly.
  const Settings& settings() const { return settings_; }
  // The name, then the settings that differ from the defaults: "jacobi", "jacobi iterations=50".
  // A profile records what it measured by this (its app column), and a run or a resumed profile
  // must match it.
  std::string identity() const;
  // One line: what is computed, with the fixed dimension N.
  virtual std::string summary(index_t cols) const = 0;
  virtual index_t default_cols() const = 0;
  // Floating-point operations of `rows` rows (for speeds in GFLOP/s, as the paper's figures).
  virtual double flops(index_t rows, index_t cols) const = 0;
  // Whether a block reads rows of its neighbours (halos): profiles run a step's blocks side by
  // side, as one execution.
  virtual bool exchanges_halos() const { return false; }
  // Whether the blocks of a run read each other's data (halos, the redistribution between the
  // phases of fft2d-whole): then they must all be in one process, and a platform of several
  // processes refuses the workload. Default: exchanges_halos().
  virtual bool blocks_meet() const { return exchanges_halos(); }
  // The rows of a block are a multiple of this (a kernel's block of rows); 1 by default. Profiles
  // record it, and fronts split workloads in multiples of it (model.hpp).
  virtual index_t granularity() const { return 1; }
  // The fewest rows a block of a distribution may have: its granularity, or a halo's reach.
  virtual index_t min_rows() const { return granularity(); }
  // Bytes of the host arrays of a problem of `rows` rows (make_problem), after check_size.
  std::size_t bytes(index_t rows, index_t cols, std::size_t slots) const;
  // Host arrays for `rows` rows and N = cols, inputs filled deterministically from `seed`,
  // outputs filled with NaN (so that a row that never ran fails verification), and `slots`
  // replicas of the operands every processor needs whole. Checked first (check_size).
  std::unique_ptr<Problem> make_problem(index_t rows, index_t cols, std::size_t slots, std::uint64_t seed,
                                        index_t first_row = 0) const {
    check_size(rows, cols, slots);
    return make_window(rows, cols, slots, seed, first_row);
  }
  // Whether a problem of `rows` rows, N = cols and `slots` processors can be made, checked before
  // anything is allocated: every array's element count (ctrl::checked_elements), and the int
  // counts BLAS and FFTW take. UsageError naming the array and the limit otherwise; callers put
  // the option at fault in front of the message.
  void check_size(index_t rows, index_t cols, std::size_t slots) const;

 protected:
  // An array a problem allocates: `copies` of rows x cols elements of elem_size bytes.
  struct ArrayShape {
    const char* name;
    index_t copies, rows, cols;
    std::size_t elem_size;
  };
  virtual std::vector<ArrayShape> arrays(index_t rows, index_t cols, std::size_t slots) const = 0;
  // The rows [first_row, first_row + rows) of the instance (make_problem).
  virtual std::unique_ptr<Problem> make_window(index_t rows, index_t cols, std::size_t slots, std::uint64_t seed,
                                               index_t first_row) const = 0;

 private:
  friend class Catalog;
  Settings settings_;
};

// The applications a program offers by name (the ctrl tool's: apps/catalog), in the order added;
// an application with parameters is added as a function that makes it from their values.
//
//   ctrl::loop::Catalog catalog;
//   catalog.add(std::make_unique<MyWorkload>());
//   catalog.add({{"steps", "time steps per run", 10, true, 1}},
//               [](const ctrl::loop::Settings& s) { return make_nbody(s.integer("steps")); });
//   const ctrl::loop::Workload& w = catalog.find("mine");
class Catalog {
 public:
  using Factory = std::function<std::unique_ptr<Workload>(const Settings&)>;
  // UsageError when a workload of the same name is there already.
  void add(std::unique_ptr<Workload> workload);
  // An application with parameters: `make` is called once here with the defaults (for its name
  // and help), and again by make() for other values.
  void add(std::vector<Parameter> parameters, Factory make);
  // The application with its defaults; UsageError naming the known ones when there is none of
  // this name.
  const Workload& find(std::string_view name) const;
  // Its parameters, each at its default, to set() and give to make().
  Settings defaults(std::string_view name) const;
  // The application made with these settings (from defaults(name)): find(name) itself when every
  // value is its default.
  std::shared_ptr<const Workload> make(std::string_view name, const Settings& settings) const;
  bool contains(std::string_view name) const;
  std::vector<std::string> names() const;

 private:
  struct Entry {
    std::shared_ptr<Workload> defaults;
    std::vector<Parameter> parameters;
    Factory make;
  };
  void add_entry(Entry e);
  const Entry& entry(std::string_view name) const;
  std::vector<Entry> entries_;
};

// Deterministic uniform numbers in [-1, 1): element i of stream s depends only on (seed, s, i).
double uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t i);

}  // namespace ctrl::loop
