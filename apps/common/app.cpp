#include "common/app.hpp"

#include <ctrl/config.hpp>
#include <ctrl/io/files.hpp>
#include <ctrl/sizes.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <cmath>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <new>
#include <set>

namespace apps {

namespace fs = std::filesystem;

// ---- Inputs ------------------------------------------------------------------------------------

void Inputs::add(std::string name, std::string origin, Array array) {
  entries_.push_back({std::move(name), std::move(origin), std::move(array)});
}

const Inputs::Entry& Inputs::find(std::string_view name) const {
  for (const auto& e : entries_)
    if (e.name == name) return e;
  throw std::logic_error(fmt::format("no input named '{}'", name));
}

const Array& Inputs::operator[](std::string_view name) const { return find(name).array; }
const std::string& Inputs::origin(std::string_view name) const { return find(name).origin; }

std::string shape_str(const Shape& shape) {
  if (shape.empty()) return "scalar";
  std::string s;
  for (std::size_t d = 0; d < shape.size(); ++d) s += fmt::format("{}{}", d ? "x" : "", shape[d]);
  return s;
}

std::string number(double v) {
  for (int digits = 1; digits < 17; ++digits) {
    const std::string s = fmt::format("{:.{}g}", v, digits);
    // strtod, not stod: a subnormal reads back (with ERANGE, ignored) where stod would throw.
    if (std::strtod(s.c_str(), nullptr) == v) return s;
  }
  return fmt::format("{:.17g}", v);
}

namespace {
std::string shape_repr(const Shape& shape) { return ctrl::npy::detail::shape_repr(shape); }
}  // namespace

void require_rank(const Inputs& in, std::string_view name, std::size_t rank) {
  const Shape& s = in.shape(name);
  if (s.size() != rank) {
    throw BadInput(fmt::format("{}: input '{}' must be a {}-D array, but its shape is {}", in.origin(name), name, rank,
                               shape_repr(s)));
  }
  if (std::find(s.begin(), s.end(), std::size_t{0}) != s.end()) {
    throw BadInput(fmt::format("{}: input '{}' is empty (shape {})", in.origin(name), name, shape_repr(s)));
  }
}

void require_same_shape(const Inputs& in, std::string_view name, std::string_view like) {
  if (in.shape(name) != in.shape(like)) {
    throw BadInput(fmt::format("{}: input '{}' has shape {}, but input '{}' ({}) has shape {}; they must be equal",
                               in.origin(name), name, shape_repr(in.shape(name)), like, in.origin(like),
                               shape_repr(in.shape(like))));
  }
}

void require_positive(const Inputs& in, std::string_view name, std::string_view what) {
  const auto& data = in[name].data;
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (!(std::isfinite(data[i]) && data[i] > 0)) {
      throw BadInput(fmt::format("{}: input '{}' holds {}, which must be finite and positive, but element {} is {}",
                                 in.origin(name), name, what, i, data[i]));
    }
  }
}

void require_fits(const Shape& shape, std::string_view what) {
  // An extent beyond index_t turns negative here, which checked_elements refuses too.
  const std::vector<ctrl::index_t> ext(shape.begin(), shape.end());
  try {
    ctrl::checked_elements(ext, sizeof(float));
  } catch (const ctrl::UsageError& e) {
    throw BadInput(fmt::format("{}: {}", what, e.what()));
  }
}

void require_int_extents(const Inputs& in, std::string_view name, std::string_view library_takes) {
  for (const std::size_t e : in.shape(name))
    if (e > static_cast<std::size_t>(INT_MAX))
      throw BadInput(fmt::format("{}: input '{}' has an extent beyond what {} ({})", in.origin(name), name,
                                 library_takes, INT_MAX));
}

void require_int_size(const std::vector<std::int64_t>& size, std::string_view library_takes) {
  for (const std::int64_t e : size)
    if (e > INT_MAX) throw BadInput(fmt::format("--size: extent {} is beyond what {} ({})", e, library_takes, INT_MAX));
}

Shape rows_cols(const std::vector<std::int64_t>& size) {
  const auto rows = static_cast<std::size_t>(size.at(0));
  return {rows, size.size() > 1 ? static_cast<std::size_t>(size[1]) : rows};
}

// ---- --check -----------------------------------------------------------------------------------

namespace {
Verdict compare_impl(std::string_view name, std::span<const float> out, std::span<const double> ref,
                     const std::function<double(std::size_t)>& bound) {
  Verdict v;
  if (out.size() != ref.size()) {
    v.ok = false;
    v.max_error = std::numeric_limits<double>::infinity();
    v.detail = fmt::format("output '{}' has {} elements, the reference {}", name, out.size(), ref.size());
    return v;
  }
  std::size_t worst = 0, bad = out.size();
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double err = std::abs(static_cast<double>(out[i]) - ref[i]);
    if (!(err <= bound(i))) {  // NaN fails
      if (bad == out.size()) bad = i;
    }
    if (std::isnan(err)) {
      v.max_error = std::numeric_limits<double>::quiet_NaN();
      worst = i;
    } else if (!std::isnan(v.max_error) && err > v.max_error) {
      v.max_error = err;
      worst = i;
    }
  }
  v.ok = bad == out.size();
  const std::size_t at = v.ok ? worst : bad;
  if (!out.empty()) {
    v.detail =
        fmt::format("output '{}' element {}: {} against {} (tolerance {:.3g})", name, at, out[at], ref[at], bound(at));
  }
  return v;
}
}  // namespace

Verdict compare(std::string_view name, std::span<const float> out, std::span<const double> ref, double atol,
                double rtol) {
  return compare_impl(name, out, ref, [&](std::size_t i) { return atol + rtol * std::abs(ref[i]); });
}

Verdict compare_bounded(std::string_view name, std::span<const float> out, std::span<const double> ref,
                        std::span<const double> bound) {
  return compare_impl(name, out, ref, [&](std::size_t i) { return i < bound.size() ? bound[i] : 0.0; });
}

Verdict combine(const std::vector<Verdict>& verdicts) {
  Verdict all;
  bool first_failure = true;
  for (const auto& v : verdicts) {
    if (std::isnan(v.max_error) || v.max_error > all.max_error) all.max_error = v.max_error;
    if (!v.ok && first_failure) {
      all.ok = false;
      all.detail = v.detail;
      first_failure = false;
    }
    if (all.ok && all.detail.empty()) all.detail = v.detail;
  }
  return all;
}

// ---- random inputs -----------------------------------------------------------------------------

namespace {
constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}
}  // namespace

void fill_uniform(std::span<float> out, std::uint64_t seed, std::uint64_t stream, float lo, float hi) {
  const std::uint64_t key = splitmix64(seed ^ splitmix64(stream + 0x632BE59BD9B4E019ULL));
  const float width = hi - lo;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const float u = static_cast<float>(splitmix64(key + i) >> 40) * 0x1p-24F;  // [0, 1), 24 bits
    const float v = lo + width * u;
    out[i] = v < hi ? v : lo;  // rounding may reach hi
  }
}

Array uniform_array(Shape shape, std::uint64_t seed, std::uint64_t stream, float lo, float hi) {
  Array a;
  require_fits(shape, fmt::format("random input of shape {}", shape_str(shape)));
  std::size_t n = 1;
  for (std::size_t e : shape) n *= e;
  a.shape = std::move(shape);
  try {
    a.data.resize(n);
  } catch (const std::bad_alloc&) {
    ctrl::throw_cannot_allocate(n * sizeof(float), fmt::format("a random input of shape {}", shape_str(a.shape)));
  }
  fill_uniform(a.data, seed, stream, lo, hi);
  return a;
}

// ---- Session -----------------------------------------------------------------------------------

Session::Session(const Problem& problem, Flavor flavor, Options options, ctrl::DeviceSpec device,
                 std::vector<int> cores, Inputs inputs)
    : problem_(problem),
      flavor_(flavor),
      options_(std::move(options)),
      device_(std::move(device)),
      cores_(std::move(cores)),
      inputs_(std::move(inputs)),
      outputs_(problem.outputs.size()),
      have_output_(problem.outputs.size(), false) {}

void Session::measure(const std::function<void()>& setup, const std::function<void()>& body) {
  for (int r = 0; r < options_.repeat; ++r) {
    if (setup) setup();
    const auto t0 = std::chrono::steady_clock::now();
    body();
    const auto t1 = std::chrono::steady_clock::now();
    times_.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
}

void Session::output(std::string_view name, std::span<const float> data, Shape shape) {
  const auto it = std::find(problem_.outputs.begin(), problem_.outputs.end(), name);
  if (it == problem_.outputs.end()) throw std::logic_error(fmt::format("no output named '{}'", name));
  const auto i = static_cast<std::size_t>(it - problem_.outputs.begin());
  outputs_[i].shape = std::move(shape);
  outputs_[i].data.assign(data.begin(), data.end());
  have_output_[i] = true;
}

std::vector<Array> Session::take_outputs() {
  for (std::size_t i = 0; i < outputs_.size(); ++i) {
    if (!have_output_[i])
      throw std::logic_error(fmt::format("the program produced no output '{}'", problem_.outputs[i]));
  }
  return std::move(outputs_);
}

double checksum(const std::vector<Array>& outputs) {
  double sum = 0;
  for (const auto& a : outputs)
    for (float v : a.data) sum += v;
  return sum;
}

// ---- cores for native twins --------------------------------------------------------------------

namespace {
struct ProcessCores {
  int existing = 1;
  std::vector<int> usable;
};
ProcessCores read_process_cores() {
  ProcessCores p;
  const long configured = sysconf(_SC_NPROCESSORS_CONF);
  p.existing = configured > 0 ? static_cast<int>(configured) : 1;
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &mask)) p.usable.push_back(c);
  } else {
    for (int c = 0; c < p.existing; ++c) p.usable.push_back(c);
  }
  return p;
}
// The affinity mask as the process started: pinning a thread later (the OpenMP team's thread 0
// is the main thread) must not shrink what "cpu" means. Read when the program loads.
const ProcessCores& process_cores() {
  static const ProcessCores p = read_process_cores();
  return p;
}
[[maybe_unused]] const bool process_cores_read_at_load = (process_cores(), true);
}  // namespace

std::vector<int> native_cores(const ctrl::DeviceSpec& device, std::string* note) {
  const std::vector<int>& usable = process_cores().usable;
  const int existing = process_cores().existing;
  if (!device.on_cores()) {
    if (note) {
      *note = fmt::format("the OpenMP twin runs on CPU cores: ignoring device '{}', using cores {}", device.str(),
                          ctrl::format_cores(usable));
    }
    return usable;
  }
  if (device.cores.empty()) {
    if (device.count == 0) return usable;
    if (static_cast<std::size_t>(device.count) > usable.size()) {
      throw BadInput(fmt::format("--device {}: asks for {} cores but this process may use {} ({})", device.str(),
                                 device.count, usable.size(), ctrl::format_cores(usable)));
    }
    return {usable.begin(), usable.begin() + device.count};
  }
  std::vector<int> missing, forbidden;
  for (int c : device.cores) {
    if (c >= existing)
      missing.push_back(c);
    else if (std::find(usable.begin(), usable.end(), c) == usable.end())
      forbidden.push_back(c);
  }
  if (!missing.empty()) {
    throw BadInput(fmt::format("--device {}: {} {} not exist on this machine (it has cores 0-{})", device.str(),
                               missing.size() == 1 ? "core" : "cores",
                               ctrl::format_cores(missing) + (missing.size() == 1 ? " does" : " do"), existing - 1));
  }
  if (!forbidden.empty()) {
    throw BadInput(fmt::format("--device {}: {} {} not available to this process (its affinity allows {})",
                               device.str(), forbidden.size() == 1 ? "core" : "cores",
                               ctrl::format_cores(forbidden) + (forbidden.size() == 1 ? " is" : " are"),
                               ctrl::format_cores(usable)));
  }
  return device.cores;
}

// ---- run ---------------------------------------------------------------------------------------

namespace {

class CliOptions final : public OptionSink {
 public:
  explicit CliOptions(CLI::App& app) : app_(app) {}
  void add(const std::string& flag, int& value, const std::string& help, int min_value) override {
    app_.add_option(flag, value, help)
        ->capture_default_str()
        ->check(CLI::Range(min_value, std::numeric_limits<int>::max()));
  }
  void add(const std::string& flag, double& value, const std::string& help) override {
    app_.add_option(flag, value, help)->capture_default_str();
  }
  void add_choice(const std::string& flag, std::string& value, const std::vector<std::string>& choices,
                  const std::string& help) override {
    app_.add_option(flag, value, help)->capture_default_str()->check(CLI::IsMember(choices));
  }

 private:
  CLI::App& app_;
};

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& e : v) s += (s.empty() ? "" : ", ") + e;
  return s;
}

// NAME=PATH pairs, checked against the problem's names.
std::vector<std::pair<std::string, std::string>> name_paths(const std::vector<std::string>& args, const char* flag,
                                                            const std::vector<std::string>& names,
                                                            const std::string& program) {
  std::vector<std::pair<std::string, std::string>> pairs;
  std::set<std::string> seen;
  for (const auto& a : args) {
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == a.size()) {
      throw BadInput(fmt::format("{} '{}': expected NAME=PATH ({}'s names: {})", flag, a, program, join(names)));
    }
    std::string name = a.substr(0, eq), path = a.substr(eq + 1);
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      throw BadInput(fmt::format("{} {}: {} has no {} named '{}' (it has: {})", flag, a, program,
                                 std::string_view(flag) == "--in" ? "input" : "output", name, join(names)));
    }
    if (!seen.insert(name).second) throw BadInput(fmt::format("{} {}: '{}' is given twice", flag, a, name));
    pairs.emplace_back(std::move(name), std::move(path));
  }
  return pairs;
}

// An output goes to a regular file or a new one, in a directory that exists (io::check_output);
// `what` names it in the message ("output 'c'", "--png").
void check_output_path(const std::string& path, const std::string& what) {
  try {
    ctrl::io::check_output(path);
  } catch (const ctrl::Error& e) {
    throw BadInput(fmt::format("{} ({})", e.what(), what));
  }
}

// No output may overwrite an input, or another output, of the same run.
void check_distinct_files(const Problem& problem, const Options& opt) {
  std::vector<ctrl::io::FileArgument> files;
  for (const auto& [name, path] : opt.in) files.push_back({"--in " + name, path, false});
  for (const auto& [name, path] : opt.out) files.push_back({"--out " + name, path, true});
  for (std::size_t r = 0; r < problem.renders.size(); ++r) {
    if (!opt.renders[r].empty()) files.push_back({problem.renders[r].flag, opt.renders[r], true});
  }
  ctrl::io::check_distinct_files(files);  // a UsageError: BadInput
}

// A render's path: refused where this build cannot write it, then checked as an output.
void check_render_paths(const Problem& problem, const Options& opt) {
  for (std::size_t r = 0; r < problem.renders.size(); ++r) {
    const Render& render = problem.renders[r];
    if (opt.renders[r].empty()) continue;
    if (!render.unavailable.empty()) throw BadInput(fmt::format("{}: {}", render.flag, render.unavailable));
    check_output_path(opt.renders[r], render.flag);
  }
}

// Every output is written and synced beside its target first, and only then are all put in place:
// a failure while writing any of them leaves no output at all.
void write_outputs(const Problem& problem, const Options& opt, const std::vector<Array>& outputs) {
  std::vector<ctrl::io::AtomicFile> files;
  files.reserve(opt.out.size() + problem.renders.size());
  for (const auto& [name, path] : opt.out) {
    const auto i = static_cast<std::size_t>(std::find(problem.outputs.begin(), problem.outputs.end(), name) -
                                            problem.outputs.begin());
    files.emplace_back(path);
    ctrl::npy::write<float>(files.back(), std::span<const float>(outputs[i].data),
                            std::span<const std::size_t>(outputs[i].shape));
    files.back().sync();
  }
  for (std::size_t r = 0; r < problem.renders.size(); ++r) {
    if (opt.renders[r].empty()) continue;
    files.emplace_back(opt.renders[r]);
    problem.renders[r].write(files.back(), outputs);
    files.back().sync();
  }
  for (auto& f : files) f.commit();
}

Array load_input(const std::string& name, const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw BadInput(fmt::format("{}: no such file (input '{}')", path, name));
  if (fs::is_directory(path, ec))
    throw BadInput(fmt::format("{}: is a directory, not a .npy file (input '{}')", path, name));
  try {
    return ctrl::npy::load<float>(path);
  } catch (const ctrl::UsageError& e) {
    throw BadInput(fmt::format("{} (input '{}'; the case studies read float32 arrays in C order)", e.what(), name));
  } catch (const ctrl::Error& e) {
    throw BadInput(fmt::format("{} (input '{}')", e.what(), name));
  } catch (const std::bad_alloc&) {
    // A valid file bigger than this machine's memory: exit 1, with what and how much.
    ctrl::throw_cannot_allocate(static_cast<std::size_t>(fs::file_size(path, ec)),
                                fmt::format("input '{}' ({})", name, path));
  }
}

std::string ms(double seconds) { return fmt::format("{:.3f} ms", seconds * 1e3); }

// NaN and infinity in an input file are bad input (exit 2) for every program: no case study has
// a meaning for them, and letting them through would turn into a failed --check (exit 1) for
// some programs and a silent NaN output for others.
void require_finite(const Inputs& in, const std::string& name) {
  const Array& a = in[name];
  for (std::size_t i = 0; i < a.data.size(); ++i) {
    if (std::isfinite(a.data[i])) continue;
    std::string at;  // the element's indexes, for arrays of more than one dimension
    if (a.shape.size() > 1) {
      std::size_t rest = i;
      std::vector<std::size_t> idx(a.shape.size());
      for (std::size_t d = a.shape.size(); d-- > 0;) {
        idx[d] = rest % a.shape[d];
        rest /= a.shape[d];
      }
      for (std::size_t d = 0; d < idx.size(); ++d) at += fmt::format("{}{}", d ? ", " : " (", idx[d]);
      at += ")";
    }
    throw BadInput(fmt::format("{}: input '{}' element {}{} is {}: inputs must be finite numbers", in.origin(name),
                               name, i, at, a.data[i]));
  }
}

// --size, checked before anything is allocated: the count of every array the run makes.
std::vector<std::int64_t> checked_size(const Problem& problem, const Options& opt) {
  std::vector<std::int64_t> size = opt.size.empty() ? problem.default_size : opt.size;
  if (size.size() < problem.min_size_args || size.size() > problem.max_size_args) {
    throw BadInput(fmt::format("--size takes {} to {} numbers for {}: {}", problem.min_size_args, problem.max_size_args,
                               problem.name, problem.size_help));
  }
  std::string text;
  for (auto s : size) {
    if (s < 1) throw BadInput(fmt::format("--size: {} is not a positive size", s));
    text += fmt::format(" {}", s);
  }
  for (const Shape& shape : problem.size_shapes(size)) require_fits(shape, "--size" + text);
  if (problem.check_size) problem.check_size(size);
  return size;
}

// The bytes the inputs hold, for a message when the computation's own arrays cannot be had.
std::size_t input_bytes(const Inputs& in, const Problem& problem) {
  std::size_t bytes = 0;
  for (const auto& name : problem.inputs) bytes += in[name].data.size() * sizeof(float);
  return bytes;
}

// What a program says about itself in --help: the ctrl program's summary, a twin's says which.
std::string description(const Problem& problem, Flavor flavor) {
  switch (flavor) {
    case Flavor::ctrl:
      return problem.summary;
    case Flavor::native:
      return problem.summary + " (the plain-OpenMP twin of the ctrl program " + problem.name + ")";
    case Flavor::native_cuda:
      return problem.summary + " (the plain-CUDA twin of the ctrl program " + problem.name + ")";
  }
  return problem.summary;
}

const char* device_help(Flavor flavor) {
  switch (flavor) {
    case Flavor::ctrl:
      return "the device: cpu (all cores), cpu:0-3 (those cores), cuda:0";
    case Flavor::native:
      return "the cores to run on: cpu (all cores), cpu:0-3; other devices are ignored";
    case Flavor::native_cuda:
      return "the GPU to run on: cuda:0, cuda:1, ...; other devices are ignored (cuda:0)";
  }
  return "";
}

// The result line's flavor= field.
const char* flavor_field(Flavor flavor) {
  switch (flavor) {
    case Flavor::ctrl:
      return "ctrl";
    case Flavor::native:
      return "native";
    case Flavor::native_cuda:
      return "native_cuda";
  }
  return "";
}

// A twin's own device from --device: the OpenMP twin's cores (`cores`), the CUDA twin's GPU; a
// device of another kind is ignored with a `note`, as the twin cannot run there.
ctrl::DeviceSpec twin_device(Flavor flavor, ctrl::DeviceSpec device, std::vector<int>& cores, std::string& note) {
  if (flavor == Flavor::native) cores = native_cores(device, &note);
  if (flavor == Flavor::native_cuda && !device.is_cuda()) {
    note = fmt::format("the CUDA twin runs on a GPU: ignoring device '{}', using cuda:0", device.str());
    device = ctrl::parse_device("cuda:0");
  }
  return device;
}

// CLI11's refusals said as the program's other errors are: "<program>: error: ..." on stderr, exit
// 2, and where to read more. --help and --version print on stdout and exit 0.
int parse_failure(const CLI::App& cli, const CLI::ParseError& e, const std::string& program) {
  if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success))
    return cli.exit(e) == 0 ? exit_ok : exit_bad_input;
  std::fprintf(stderr, "%s: error: %s\nRun '%s --help' for more information.\n", program.c_str(), e.what(),
               program.c_str());
  return exit_bad_input;
}

// The raw --in and --out arguments, before they are checked against the problem's names.
struct FileArgs {
  std::vector<std::string> in, out;
};

// The options every program takes, and the problem's own. A problem without inputs has no --in
// and no --seed, and its --size is the size of what it computes.
void add_options(CLI::App& cli, const Problem& problem, Flavor flavor, const std::string& program, Options& opt,
                 FileArgs& files) {
  cli.set_version_flag("-V,--version", program + " (ctrl " CTRL_VERSION_STRING ")",
                       "print the program and ctrl's version, and exit");
  cli.add_option("--device", opt.device, device_help(flavor))->capture_default_str();
  const bool has_inputs = !problem.inputs.empty();
  if (has_inputs) {
    cli.add_option("--in", files.in, "an input as NAME=PATH to a float32 .npy file (" + join(problem.inputs) + ")")
        ->type_name("NAME=PATH");
  }
  cli.add_option("--out", files.out, "write an output as NAME=PATH (" + join(problem.outputs) + ")")
      ->type_name("NAME=PATH");
  cli.add_option("--size", opt.size,
                 (has_inputs ? "the size of random inputs (without --in): " : "the size: ") + problem.size_help)
      ->expected(static_cast<int>(problem.min_size_args), static_cast<int>(problem.max_size_args));
  if (has_inputs) cli.add_option("--seed", opt.seed, "the seed of random inputs")->capture_default_str();
  cli.add_option("--repeat", opt.repeat, "run the computation this many times; the best time is reported")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cli.add_flag("--check", opt.check, "compare the outputs with a simple reference computation");
  cli.add_flag("--quiet", opt.quiet, "print only the result line");
  opt.renders.assign(problem.renders.size(), {});
  for (std::size_t r = 0; r < problem.renders.size(); ++r) {
    cli.add_option(problem.renders[r].flag, opt.renders[r], problem.renders[r].help)->type_name("PATH");
  }
}

// The inputs of a run: read from every --in file, or generated for the (checked) size.
Inputs read_inputs(const Problem& problem, const Options& opt) {
  Inputs inputs;
  if (opt.in.empty()) {
    auto arrays = problem.generate(opt.size, opt.seed);
    for (std::size_t i = 0; i < problem.inputs.size(); ++i) {
      inputs.add(problem.inputs[i], fmt::format("generated input '{}'", problem.inputs[i]), std::move(arrays.at(i)));
    }
    return inputs;
  }
  if (!opt.size.empty()) throw BadInput("--size makes random inputs and cannot be combined with --in");
  const auto path_of = [&](const std::string& name) {
    const auto it = std::find_if(opt.in.begin(), opt.in.end(), [&](const auto& p) { return p.first == name; });
    if (it == opt.in.end()) {
      throw BadInput(
          fmt::format("no --in {}=PATH: with --in, every input must be given ({})", name, join(problem.inputs)));
    }
    return it->second;
  };
  for (const auto& name : problem.inputs) path_of(name);
  // Read every file before checking any shape, so that a broken file is reported as such.
  for (const auto& name : problem.inputs) {
    inputs.add(name, path_of(name), load_input(name, path_of(name)));
    require_finite(inputs, name);
  }
  return inputs;
}

// Everything up to the computation: arguments, files and inputs. Throws BadInput (exit 2).
std::unique_ptr<Session> prepare(const Problem& problem, Flavor flavor, const std::string& program, Options opt,
                                 const FileArgs& files) {
  if (problem.check_options) problem.check_options();
  ctrl::DeviceSpec device;
  try {
    device = ctrl::parse_device(opt.device);
  } catch (const ctrl::UsageError& e) {
    throw BadInput(fmt::format("--device: {}", e.what()));
  }
  std::vector<int> cores;
  std::string note;
  device = twin_device(flavor, device, cores, note);
  if (!note.empty() && !opt.quiet) std::fprintf(stderr, "%s: note: %s\n", program.c_str(), note.c_str());
  opt.in = name_paths(files.in, "--in", problem.inputs, program);
  opt.out = name_paths(files.out, "--out", problem.outputs, program);
  for (const auto& [name, path] : opt.out) check_output_path(path, "output '" + name + "'");
  check_render_paths(problem, opt);
  check_distinct_files(problem, opt);
  if (opt.in.empty()) opt.size = checked_size(problem, opt);  // the default where not given
  Inputs inputs = read_inputs(problem, opt);
  problem.check_inputs(inputs);
  return std::make_unique<Session>(problem, flavor, opt, device, std::move(cores), std::move(inputs));
}

// "price:33,strike:33,years:33": the inputs' shapes for the result line; a problem without
// inputs gives its outputs' shapes instead (the field is then outputs=).
std::string shapes_field(const Problem& problem, const Inputs& inputs, const std::vector<Array>& outputs) {
  std::string shapes;
  const bool from_inputs = !problem.inputs.empty();
  const auto& names = from_inputs ? problem.inputs : problem.outputs;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const Shape& shape = from_inputs ? inputs.shape(names[i]) : outputs[i].shape;
    shapes += fmt::format("{}{}:{}", shapes.empty() ? "" : ",", names[i], shape_str(shape));
  }
  return (from_inputs ? "inputs=" : "outputs=") + shapes;
}

// The human lines (unless --quiet) and the result line.
void print_results(const Problem& problem, Flavor flavor, const std::string& program, const Session& session,
                   const std::vector<Array>& outputs, const Verdict& verdict) {
  const Options& opt = session.options();
  const auto& times = session.times();
  const double best = *std::min_element(times.begin(), times.end());
  double mean = 0;
  for (double t : times) mean += t;
  mean /= static_cast<double>(times.size());
  const double sum = checksum(outputs);
  const std::string params = problem.parameters ? problem.parameters() : std::string();
  const std::string device_text =
      flavor == Flavor::native ? fmt::format("cpu:{}", ctrl::format_cores(session.cores())) : session.device().str();
  if (!opt.quiet) {
    const std::string where = session.where().empty() ? device_text : session.where();
    const std::string timing =
        opt.repeat == 1 ? ms(best) : fmt::format("{} (best of {}; mean {})", ms(best), opt.repeat, ms(mean));
    const Shape& shape =
        problem.inputs.empty() ? outputs.front().shape : session.inputs().shape(problem.inputs.front());
    std::printf("%s: %s%s%s on %s: %s, checksum %.10g\n", program.c_str(), shape_str(shape).c_str(),
                params.empty() ? "" : " ", params.c_str(), where.c_str(), timing.c_str(), sum);
    if (opt.check) {
      std::printf("%s: check %s: max |error| %.3g against the reference (%s)\n", program.c_str(),
                  verdict.ok ? "passed" : "FAILED", verdict.max_error, verdict.detail.c_str());
    }
  }
  std::printf("time_s=%.9f checksum=%.17g program=%s flavor=%s device=%s %s%s%s repeat=%d time_mean_s=%.9f%s\n", best,
              sum, problem.name.c_str(), flavor_field(flavor), device_text.c_str(),
              shapes_field(problem, session.inputs(), outputs).c_str(), params.empty() ? "" : " ", params.c_str(),
              opt.repeat, mean, opt.check ? (verdict.ok ? " check=passed" : " check=failed") : "");
  std::fflush(stdout);
}

}  // namespace

std::string program_name(const std::string& problem, Flavor flavor) {
  if (flavor == Flavor::native) return problem + "_native";
  if (flavor == Flavor::native_cuda) return problem + "_native_cuda";
  return problem;
}

int run(const Problem& problem, Flavor flavor, int argc, char** argv, const Body& body) {
  const std::string program = program_name(problem.name, flavor);
  Options opt;
  if (flavor == Flavor::native_cuda) opt.device = "cuda:0";
  FileArgs files;
  CLI::App cli{description(problem, flavor), program};
  add_options(cli, problem, flavor, program, opt, files);
  CliOptions extra(cli);
  if (problem.add_options) problem.add_options(extra);
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return parse_failure(cli, e, program);
  }

  const auto fail = [&](const std::exception& e, int code) {
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), e.what());
    std::fflush(stderr);
    return code;
  };

  // Everything up to the body is about arguments and input: failures exit 2.
  std::unique_ptr<Session> session;
  try {
    session = prepare(problem, flavor, program, opt, files);
  } catch (const BadInput& e) {
    return fail(e, exit_bad_input);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: error: not enough memory to read the inputs\n", program.c_str());
    return exit_failure;
  } catch (const std::exception& e) {
    return fail(e, exit_failure);
  }

  // The computation: bad usage found only now (e.g. a --device whose cores do not exist, found
  // by the controller) still exits 2; device and kernel failures exit 1.
  std::vector<Array> outputs;
  try {
    body(*session);
    outputs = session->take_outputs();
    if (session->times().empty()) throw std::logic_error("the program timed nothing");
  } catch (const BadInput& e) {
    return fail(e, exit_bad_input);
  } catch (const std::bad_alloc&) {
    // Tiles name themselves (ctrl::throw_cannot_allocate); a twin's plain buffers cannot.
    std::fprintf(stderr,
                 "%s: error: cannot allocate the outputs and working arrays beside the inputs' %zu bytes: "
                 "not enough memory\n",
                 program.c_str(), input_bytes(session->inputs(), problem));
    return exit_failure;
  } catch (const std::exception& e) {
    return fail(e, exit_failure);
  }

  Verdict verdict;
  if (opt.check) {
    try {
      verdict = problem.verify(session->inputs(), outputs);
    } catch (const std::exception& e) {
      return fail(e, exit_failure);
    }
  }
  print_results(problem, flavor, program, *session, outputs, verdict);
  // A result line that could not be written (a full disk, a closed pipe) is a failure, and then no
  // output is written either: a script reading the line would otherwise see nothing and exit 0.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    const int err = errno;
    std::fprintf(stderr, "%s: error: cannot write to stdout: %s; no output written\n", program.c_str(),
                 std::strerror(err != 0 ? err : EIO));
    return exit_failure;
  }
  if (opt.check && !verdict.ok) {
    std::fprintf(stderr, "%s: error: --check failed: %s; no output written\n", program.c_str(), verdict.detail.c_str());
    return exit_failure;
  }
  try {
    write_outputs(problem, session->options(), outputs);
  } catch (const ctrl::UsageError& e) {
    return fail(e, exit_bad_input);  // a target that became a FIFO or a link since the start
  } catch (const std::exception& e) {
    return fail(e, exit_failure);
  }
  return exit_ok;
}

}  // namespace apps
