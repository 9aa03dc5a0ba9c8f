// The command-line contract shared by every case-study program and its native twin
// (docs/case-studies.md):
//
//   <program> [--device cpu|cpu:0-3|cuda:0] [--in NAME=PATH]... [--out NAME=PATH]...
//             [--size N...] [--seed S] [--repeat R] [--check] [--quiet] [program options]
//
// A case study describes itself once as a Problem (inputs, outputs, shape rules, input
// generation, the --check comparison); the ctrl program and the OpenMP twin each hand run() a
// body that computes the outputs, timing only the compute part with Session::measure. Everything
// else is done here, the same way for both: arguments, reading and validating every input before
// any computing, random inputs, timing, checksum, the result lines, writing outputs atomically
// and only after success, and the exit codes:
//   0  success
//   1  a device or runtime failure (or --check found wrong results, or memory that cannot be
//      had: the message says for what and how much, or result lines that stdout cannot take);
//      no output is written
//   2  bad arguments or bad input (missing, malformed, wrong dtype, mismatched shapes, a NaN or
//      infinity in an input file, a --size beyond what can be indexed, a bad --device); the
//      message names the file and element or the argument, and no output is written
//
// Host-only and free of CLI11 and fmt, so that a program compiled as CUDA can include it.
#pragma once
#include <ctrl/device_spec.hpp>
#include <ctrl/errors.hpp>
#include <ctrl/io/files.hpp>
#include <ctrl/io/npy.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace apps {

inline constexpr int exit_ok = 0;
inline constexpr int exit_failure = 1;
inline constexpr int exit_bad_input = 2;

using Array = ctrl::npy::Array<float>;
using Shape = std::vector<std::size_t>;

// Bad arguments or input: exit code 2. The message must name the file or argument at fault.
using BadInput = ctrl::UsageError;

// Which program is running: the ctrl program <name>, its OpenMP twin <name>_native, or its CUDA
// twin <name>_native_cuda. It names the program in its help, messages and result line.
enum class Flavor { ctrl, native, native_cuda };
// "matadd", "matadd_native", "matadd_native_cuda".
std::string program_name(const std::string& problem, Flavor flavor);

// The common options, after parsing.
struct Options {
  std::string device = "cpu";
  std::vector<std::pair<std::string, std::string>> in, out;  // NAME, PATH
  std::vector<std::string> renders;                          // a path per Problem::renders entry, empty where not asked
  // --size; once the session starts, the problem's default size where neither --size nor --in
  // was given (so a problem without inputs reads its size here).
  std::vector<std::int64_t> size;
  std::uint64_t seed = 1;
  int repeat = 1;
  bool check = false;
  bool quiet = false;
};

// The inputs of one run, in the problem's order, each with where it came from.
class Inputs {
 public:
  void add(std::string name, std::string origin, Array array);
  const Array& operator[](std::string_view name) const;
  const Shape& shape(std::string_view name) const { return (*this)[name].shape; }
  // The file an input was read from, or "generated input '<name>'", for messages.
  const std::string& origin(std::string_view name) const;
  bool from_files() const { return from_files_; }
  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::string name, origin;
    Array array;
  };
  const Entry& find(std::string_view name) const;
  std::vector<Entry> entries_;
  bool from_files_ = false;
};

// Shape rules for Problem::check_inputs; each throws BadInput naming the file.
void require_rank(const Inputs& in, std::string_view name, std::size_t rank);
void require_same_shape(const Inputs& in, std::string_view name, std::string_view like);
// Every element finite and > 0 (e.g. prices); `what` says what the values are.
void require_positive(const Inputs& in, std::string_view name, std::string_view what);
// An array of this shape of float32 can be had: its element count and bytes fit
// (ctrl::checked_elements), checked before it is allocated; BadInput "WHAT: ... exceed the limit".
void require_fits(const Shape& shape, std::string_view what);

// Extents a library counts as int (BLAS, FFTW, cuFFT): every extent of input `name`, or of a
// --size, at most INT_MAX; BadInput naming the file or --size, and `library_takes` ("BLAS takes").
// A --size is checked before its inputs are made, not after gigabytes of them were generated.
void require_int_extents(const Inputs& in, std::string_view name, std::string_view library_takes);
void require_int_size(const std::vector<std::int64_t>& size, std::string_view library_takes);

// "ROWS [COLS]" sizes (COLS defaults to ROWS) as a shape.
Shape rows_cols(const std::vector<std::int64_t>& size);

// "37x53" for messages and the result line.
std::string shape_str(const Shape& shape);
// A parameter for the result line: the shortest text that reads back as the same double.
std::string number(double v);

// What --check found.
struct Verdict {
  bool ok = true;
  double max_error = 0;  // the largest |output - reference|
  std::string detail;    // where the worst or first bad element is, in words
};
// Element-wise |out - ref| <= atol + rtol * |ref| (a NaN fails); `name` names the output.
Verdict compare(std::string_view name, std::span<const float> out, std::span<const double> ref, double atol,
                double rtol);
// The same with a per-element bound: |out - ref| <= bound[i].
Verdict compare_bounded(std::string_view name, std::span<const float> out, std::span<const double> ref,
                        std::span<const double> bound);
// All must pass; keeps the worst error and the first failure's detail.
Verdict combine(const std::vector<Verdict>& verdicts);

// Deterministic uniform numbers in [lo, hi): element i of stream `stream` depends only on
// (seed, stream, i), so inputs are the same whatever generates them.
void fill_uniform(std::span<float> out, std::uint64_t seed, std::uint64_t stream, float lo, float hi);
Array uniform_array(Shape shape, std::uint64_t seed, std::uint64_t stream, float lo, float hi);

// Program-specific options (the same for a ctrl program and its twin).
class OptionSink {
 public:
  virtual ~OptionSink() = default;
  virtual void add(const std::string& flag, int& value, const std::string& help, int min_value) = 0;
  virtual void add(const std::string& flag, double& value, const std::string& help) = 0;
  virtual void add_choice(const std::string& flag, std::string& value, const std::vector<std::string>& choices,
                          const std::string& help) = 0;
};

// A file made from the outputs for people to look at (mandelbrot's --png picture): its option
// takes a path, checked as an output before any work and written only after success, together
// with the .npy outputs (all written and synced, then all put in place).
struct Render {
  std::string flag;  // "--png"
  std::string help;
  // Writes the file from the outputs (in Problem::outputs order).
  std::function<void(ctrl::io::AtomicFile&, const std::vector<Array>&)> write;
  // Why this build cannot write it (e.g. built without libpng), or empty: the option is then
  // refused with exit 2 before any work.
  std::string unavailable;
};

// A case study, described once for the ctrl program, its twin, the tests and the benchmarks.
// A problem without inputs (mandelbrot) computes from its size and options alone.
struct Problem {
  std::string name;     // "matadd"
  std::string summary;  // one line for --help
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::string size_help;  // "ROWS [COLS]"
  std::size_t min_size_args = 1, max_size_args = 1;
  std::vector<std::int64_t> default_size;
  std::function<void(OptionSink&)> add_options;  // may be empty
  // Checks the options after parsing (throw BadInput); may be empty.
  std::function<void()> check_options;
  // Ranks, shapes and values of the inputs (throw BadInput naming the file).
  std::function<void(const Inputs&)> check_inputs;
  // The shapes of every array a run of this --size makes (inputs, outputs, scratch), so that
  // run() checks them all (require_fits) before it allocates any.
  std::function<std::vector<Shape>(const std::vector<std::int64_t>& size)> size_shapes;
  // Limits of --size other than the arrays' sizes (matmul: BLAS's int extents), checked after
  // size_shapes and before any allocation (throw BadInput); may be empty.
  std::function<void(const std::vector<std::int64_t>& size)> check_size;
  // Random inputs for --size (already checked: min..max positive numbers, and size_shapes), in
  // `inputs` order.
  std::function<std::vector<Array>(const std::vector<std::int64_t>& size, std::uint64_t seed)> generate;
  // The --check comparison of the outputs (in `outputs` order) against a reference.
  std::function<Verdict(const Inputs&, const std::vector<Array>&)> verify;
  // Extra "key=value" fields for the result line, e.g. "iterations=100"; may be empty.
  std::function<std::string()> parameters;
  // Files made from the outputs, each with its own option; may be empty.
  std::vector<Render> renders;
};

// What a program's body sees: the parsed options and validated inputs. It computes the outputs,
// timing the compute part with measure().
class Session {
 public:
  Session(const Problem& problem, Flavor flavor, Options options, ctrl::DeviceSpec device, std::vector<int> cores,
          Inputs inputs);

  const Problem& problem() const { return problem_; }
  Flavor flavor() const { return flavor_; }
  const Options& options() const { return options_; }
  const ctrl::DeviceSpec& device() const { return device_; }
  // The OpenMP twin: the cores to pin the OpenMP threads to (from --device).
  const std::vector<int>& cores() const { return cores_; }
  const Inputs& inputs() const { return inputs_; }
  const Array& input(std::string_view name) const { return inputs_[name]; }

  // Runs body() --repeat times, each after an untimed setup(), and records the wall times
  // (steady_clock). Only the compute goes inside body: no file I/O, no input preparation.
  void measure(const std::function<void()>& setup, const std::function<void()>& body);
  void measure(const std::function<void()>& body) { measure({}, body); }

  // Records an output (copied) in C order.
  void output(std::string_view name, std::span<const float> data, Shape shape);
  // Where it ran, in words, for the human line (e.g. the controller's description).
  void set_where(std::string where) { where_ = std::move(where); }

  // For run(): the results.
  const std::vector<double>& times() const { return times_; }
  const std::string& where() const { return where_; }
  std::vector<Array> take_outputs();

 private:
  const Problem& problem_;
  Flavor flavor_;
  Options options_;
  ctrl::DeviceSpec device_;
  std::vector<int> cores_;
  Inputs inputs_;
  std::vector<double> times_;
  std::vector<Array> outputs_;
  std::vector<bool> have_output_;
  std::string where_;
};

using Body = std::function<void(Session&)>;

// The whole program: parse, validate, load or generate, run the body, check, print, write.
// Returns the exit code.
int run(const Problem& problem, Flavor flavor, int argc, char** argv, const Body& body);

// The cores a native twin uses for a --device text: the listed cores for CPU-style kinds, all
// the cores this process may use for "cpu" (its affinity mask when it started, whatever threads
// were pinned since); other kinds (cuda) are ignored with a note and give all usable cores. Throws BadInput naming
// cores that do not exist or are not allowed.
std::vector<int> native_cores(const ctrl::DeviceSpec& device, std::string* note = nullptr);

// The result line's checksum: the sum of every element of every output, in double.
double checksum(const std::vector<Array>& outputs);

}  // namespace apps
