// End to end: the built case-study programs and their native twins, run as processes on .npy files.
// Correct outputs; and for a missing input, a malformed .npy, a float64 file, mismatched shapes
// and a --device with cores that do not exist: exit code 2, a message naming the file (or the
// cores), and no output file written.
#include "blackscholes/blackscholes_problem.hpp"
#include "common/app.hpp"
#include "fft2d/fft2d_problem.hpp"
#include "jacobi/jacobi_problem.hpp"
#include "matadd/matadd_problem.hpp"
#include "matmul/matmul_problem.hpp"
#include "recurrence/recurrence_problem.hpp"

#include <ctrl/config.hpp>
#include <ctrl/io/npy.hpp>

#include "scratch_dir.hpp"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct AppCase {
  std::string name;
  std::string ctrl_path, native_path;
  std::vector<std::int64_t> size;          // small random inputs of this size
  std::vector<std::string> extra;          // program options
  std::function<apps::Problem()> problem;  // with the parameters `extra` sets
  std::string bad_input;                   // for the mismatched-shape case: this input gets...
  apps::Shape bad_shape;                   // ...this shape
};

apps::JacobiParams jacobi_params{5};
apps::RecurrenceParams recurrence_params{20};
apps::BlackScholesParams blackscholes_params{0.03, 0.25};
apps::MatMulParams matmul_blas{"blas"}, matmul_generic{"generic"};

const std::vector<AppCase>& cases() {
  static const std::vector<AppCase> all = {
      {"matadd",
       CTRL_APP_MATADD,
       CTRL_APP_MATADD_NATIVE,
       {7, 5},
       {},
       [] { return apps::matadd_problem(); },
       "b",
       {7, 6}},
      {"blackscholes",
       CTRL_APP_BLACKSCHOLES,
       CTRL_APP_BLACKSCHOLES_NATIVE,
       {33},
       {"--riskfree", "0.03", "--volatility", "0.25"},
       [] { return apps::blackscholes_problem(blackscholes_params); },
       "strike",
       {32}},
      {"jacobi",
       CTRL_APP_JACOBI,
       CTRL_APP_JACOBI_NATIVE,
       {9, 13},
       {"--iterations", "5"},
       [] { return apps::jacobi_problem(jacobi_params); },
       "m",
       {13}},
      {"matmul_blas",
       CTRL_APP_MATMUL,
       CTRL_APP_MATMUL_NATIVE,
       {7, 5, 3},
       {"--variant", "blas"},
       [] { return apps::matmul_problem(matmul_blas); },
       "b",
       {4, 3}},
      {"matmul_generic",
       CTRL_APP_MATMUL,
       CTRL_APP_MATMUL_NATIVE,
       {7, 5, 3},
       {"--variant", "generic"},
       [] { return apps::matmul_problem(matmul_generic); },
       "b",
       {6, 3}},
      {"recurrence",
       CTRL_APP_RECURRENCE,
       CTRL_APP_RECURRENCE_NATIVE,
       {6, 11},
       {"--iterations", "20"},
       [] { return apps::recurrence_problem(recurrence_params); },
       "x",
       {2, 3, 4}},
      {"fft2d",
       CTRL_APP_FFT2D,
       CTRL_APP_FFT2D_NATIVE,
       {6, 10},
       {},
       [] { return apps::fft2d_problem(); },
       "x",
       {6, 10, 3}},
  };
  return all;
}

struct Result {
  int rc = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

class AppCli : public ::testing::TestWithParam<std::tuple<std::size_t, bool>> {
 protected:
  const AppCase& app() const { return cases()[std::get<0>(GetParam())]; }
  bool native() const { return std::get<1>(GetParam()); }
  const std::string& program() const { return native() ? app().native_path : app().ctrl_path; }
  fs::path path(const std::string& file) const { return dir_ / file; }

  // `stdout_to`: where the program's stdout goes (a file read back into Result::out by default).
  Result run(const std::vector<std::string>& args, const std::string& stdout_to = {}) const {
    std::string cmd = quote(program());
    for (const auto& a : app().extra) cmd += " " + quote(a);
    for (const auto& a : args) cmd += " " + quote(a);
    const fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    const std::string to = stdout_to.empty() ? quote(out) : stdout_to;
    const int status = std::system((cmd + " >" + to + " 2>" + quote(err)).c_str());
    Result r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (stdout_to.empty()) r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }

  // Valid inputs written as .npy files; returns the --in arguments.
  std::vector<std::string> write_inputs(const apps::Problem& p) {
    auto arrays = p.generate(app().size, 42);
    std::vector<std::string> args;
    for (std::size_t i = 0; i < p.inputs.size(); ++i) {
      const fs::path file = path(p.inputs[i] + ".npy");
      ctrl::npy::save<float>(file, arrays[i]);
      inputs_.add(p.inputs[i], file.string(), std::move(arrays[i]));
      args.push_back("--in");
      args.push_back(p.inputs[i] + "=" + file.string());
    }
    return args;
  }

  std::vector<std::string> out_args(const apps::Problem& p) const {
    std::vector<std::string> args;
    for (const auto& o : p.outputs) {
      args.push_back("--out");
      args.push_back(o + "=" + path("out_" + o + ".npy").string());
    }
    return args;
  }

  void expect_no_outputs(const apps::Problem& p) const {
    for (const auto& o : p.outputs) EXPECT_FALSE(fs::exists(path("out_" + o + ".npy"))) << o;
    for (const auto& entry : fs::directory_iterator(dir_)) {  // nor a leftover temporary file
      EXPECT_EQ(entry.path().filename().string().find("out_"), std::string::npos) << entry.path();
    }
  }

  // Runs with one input replaced (by `file`), expecting exit 2 and a message naming the file.
  void expect_bad_input(const std::string& input, const fs::path& file, const std::string& also_in_message = {}) {
    const apps::Problem p = app().problem();
    auto args = write_inputs(p);
    for (std::size_t i = 0; i + 1 < args.size(); i += 2) {
      if (args[i + 1].rfind(input + "=", 0) == 0) args[i + 1] = input + "=" + file.string();
    }
    const auto outs = out_args(p);
    args.insert(args.end(), outs.begin(), outs.end());
    const Result r = run(args);
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find(file.string()), std::string::npos) << "the message does not name the file: " << r.err;
    if (!also_in_message.empty()) {
      EXPECT_NE(r.err.find(also_in_message), std::string::npos) << r.err;
    }
    EXPECT_EQ(r.out.find("time_s="), std::string::npos) << "it computed: " << r.out;
    expect_no_outputs(p);
  }

  ctrl::test::ScratchDir dir_{"ctrl-apps-cli"};
  apps::Inputs inputs_;
};

TEST_P(AppCli, WritesCorrectOutputs) {
  const apps::Problem p = app().problem();
  auto args = write_inputs(p);
  const auto outs = out_args(p);
  args.insert(args.end(), outs.begin(), outs.end());
  args.push_back("--check");
  const Result r = run(args);
  ASSERT_EQ(r.rc, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("check=passed"), std::string::npos) << r.out;
  std::vector<apps::Array> outputs;
  for (const auto& o : p.outputs) outputs.push_back(ctrl::npy::load<float>(path("out_" + o + ".npy")));
  const apps::Verdict v = p.verify(inputs_, outputs);
  EXPECT_TRUE(v.ok) << v.detail;
  // The result line's checksum is the sum of the outputs written.
  const auto at = r.out.find("checksum=");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_DOUBLE_EQ(std::stod(r.out.substr(at + 9)), apps::checksum(outputs));
}

TEST_P(AppCli, MissingInputExits2NamingTheFile) {
  expect_bad_input(app().problem().inputs.back(), path("does_not_exist.npy"), "no such file");
}

TEST_P(AppCli, MalformedNpyExits2NamingTheFile) {
  const fs::path bad = path("malformed.npy");
  std::ofstream(bad) << "this is not a NumPy file at all, just text that goes on for a while";
  expect_bad_input(app().problem().inputs.front(), bad);
}

TEST_P(AppCli, TruncatedNpyExits2NamingTheFile) {
  const apps::Problem p = app().problem();
  const fs::path bad = path("truncated.npy");
  const auto arrays = p.generate(app().size, 1);
  ctrl::npy::save<float>(bad, arrays.front());
  fs::resize_file(bad, fs::file_size(bad) - 4);
  expect_bad_input(p.inputs.front(), bad);
}

TEST_P(AppCli, Float64InputExits2NamingTheFile) {
  const apps::Problem p = app().problem();
  const fs::path bad = path("double.npy");
  const auto arrays = p.generate(app().size, 1);
  std::vector<double> data(arrays.back().data.begin(), arrays.back().data.end());
  ctrl::npy::save<double>(bad, std::span<const double>(data), std::span<const std::size_t>(arrays.back().shape));
  expect_bad_input(p.inputs.back(), bad, "float64");
}

TEST_P(AppCli, MismatchedShapeExits2NamingTheFile) {
  const fs::path bad = path("bad_shape.npy");
  apps::Array a = apps::uniform_array(app().bad_shape, 1, 9, 1, 2);
  ctrl::npy::save<float>(bad, a);
  expect_bad_input(app().bad_input, bad);
}

TEST_P(AppCli, CoresThatDoNotExistExit2NamingThem) {
  const apps::Problem p = app().problem();
  auto args = write_inputs(p);
  const auto outs = out_args(p);
  args.insert(args.end(), outs.begin(), outs.end());
  args.insert(args.end(), {"--device", "cpu:0-999"});
  const Result r = run(args);
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("cpu:0-999"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("-999"), std::string::npos) << "the message does not name the missing cores: " << r.err;
  expect_no_outputs(p);
}

TEST_P(AppCli, AFailedRunLeavesAnExistingOutputAlone) {
  const apps::Problem p = app().problem();
  for (const auto& o : p.outputs) std::ofstream(path("out_" + o + ".npy")) << "old";
  const fs::path bad = path("malformed.npy");
  std::ofstream(bad) << "garbage";
  auto args = write_inputs(p);
  args[1] = p.inputs.front() + "=" + bad.string();
  const auto outs = out_args(p);
  args.insert(args.end(), outs.begin(), outs.end());
  EXPECT_EQ(run(args).rc, 2);
  for (const auto& o : p.outputs) EXPECT_EQ(slurp(path("out_" + o + ".npy")), "old") << o;
}

// Outputs go to regular files only (docs/case-studies.md): a FIFO or a symbolic link as --out is
// refused before the run, and a FIFO as --in is refused instead of waited on.
TEST_P(AppCli, OutputsAreRegularFilesAndAFifoInputDoesNotBlock) {
  const apps::Problem p = app().problem();
  const auto in = write_inputs(p);
  const fs::path fifo = path("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const fs::path kept = path("kept.npy");
  std::ofstream(kept) << "kept";
  fs::create_symlink(kept, path("link.npy"));
  for (const fs::path& out : {fifo, path("link.npy")}) {
    auto args = in;
    args.insert(args.end(), {"--out", p.outputs.front() + "=" + out.string()});
    const Result r = run(args);
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find(out.string() + ": a "), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("time_s="), std::string::npos) << "it computed: " << r.out;
  }
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(path("link.npy"))));
  EXPECT_EQ(slurp(kept), "kept");
  expect_bad_input(p.inputs.front(), fifo, "a FIFO, not a regular file");
}

TEST_P(AppCli, AnOutputThatIsAnInputIsRefused) {
  const apps::Problem p = app().problem();
  auto args = write_inputs(p);
  const fs::path input = path(p.inputs.back() + ".npy");
  const std::string before = slurp(input);
  args.insert(args.end(), {"--out", p.outputs.front() + "=" + input.string()});
  const Result r = run(args);
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("an output may not overwrite an input"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("time_s="), std::string::npos) << "it computed: " << r.out;
  EXPECT_EQ(slurp(input), before);
}

// A run that fails writing its last output leaves none of them (blackscholes left call.npy): every
// output is written beside its target before any is put in place. /proc takes no new file, even
// from root, who passes the directory check before the run.
// A result line that cannot be written (a full disk) is exit 1 naming stdout, and no output is
// written: a script reading the line would otherwise see nothing and take exit 0 for success.
TEST_P(AppCli, AFullStdoutExits1AndWritesNoOutput) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  const apps::Problem p = app().problem();
  auto args = write_inputs(p);
  const auto outs = out_args(p);
  args.insert(args.end(), outs.begin(), outs.end());
  const Result r = run(args, "/dev/full");
  EXPECT_EQ(r.rc, 1) << r.err;
  EXPECT_NE(r.err.find("cannot write to stdout"), std::string::npos) << r.err;
  expect_no_outputs(p);
}

TEST_P(AppCli, AFailedSaveLeavesNoOutput) {
  const apps::Problem p = app().problem();
  if (p.outputs.size() < 2) GTEST_SKIP() << "one output";
  auto args = write_inputs(p);
  for (std::size_t i = 0; i + 1 < p.outputs.size(); ++i)
    args.insert(args.end(), {"--out", p.outputs[i] + "=" + path("out_" + p.outputs[i] + ".npy").string()});
  args.insert(args.end(), {"--out", p.outputs.back() + "=/proc/ctrl-no-such-output.npy"});
  const Result r = run(args);
  EXPECT_NE(r.rc, 0) << r.out;
  EXPECT_NE(r.err.find("/proc/ctrl-no-such-output.npy"), std::string::npos) << r.err;
  expect_no_outputs(p);
}

TEST_P(AppCli, BadArgumentsExit2) {
  const apps::Problem p = app().problem();
  const auto in = write_inputs(p);
  struct Bad {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Bad> bad = {
      {{"--in", "nosuchname=" + path("x.npy").string()}, "nosuchname"},
      {{"--in", "noequals"}, "NAME=PATH"},
      {{"--out", p.outputs.front() + "=" + path("no_dir/out.npy").string()}, "no_dir"},
      {{"--out", p.outputs.front() + "=" + dir_.string()}, dir_.string()},
      {{in[0], in[1], "--size", "4"}, "--size"},
      {{"--size", "0"}, "--size"},
      {{"--repeat", "0"}, "--repeat"},
      {{"--device", "gpu:zero"}, "gpu:zero"},
      {{"--no-such-flag"}, "--no-such-flag"},
  };
  for (const auto& b : bad) {
    SCOPED_TRACE(b.args.front() + " " + (b.args.size() > 1 ? b.args[1] : ""));
    const Result r = run(b.args);
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find(b.says), std::string::npos) << r.err;
  }
  if (p.inputs.size() > 1) {  // with --in, every input must be given
    const Result r = run({in[0], in[1]});
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find(p.inputs[1]), std::string::npos) << r.err;
  }
  EXPECT_EQ(run({"--help"}).rc, 0);
}

TEST_P(AppCli, RandomInputsPrintTimeAndChecksum) {
  std::vector<std::string> args{"--seed", "5", "--repeat", "2", "--size"};
  for (auto s : app().size) args.push_back(std::to_string(s));
  const Result r = run(args);
  ASSERT_EQ(r.rc, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line, result;
  int count = 0;
  while (std::getline(lines, line)) {
    ++count;
    if (line.rfind("time_s=", 0) == 0) result = line;
  }
  EXPECT_EQ(count, 2) << "a human line and the result line: " << r.out;
  ASSERT_FALSE(result.empty()) << r.out;
  EXPECT_NE(result.find(" checksum="), std::string::npos);
  EXPECT_NE(result.find(" repeat=2"), std::string::npos);
  EXPECT_NE(result.find(std::string(" flavor=") + (native() ? "native" : "ctrl")), std::string::npos);
  EXPECT_GT(std::stod(result.substr(7)), 0.0);
  const Result quiet = run([&] {
    auto a = args;
    a.push_back("--quiet");
    return a;
  }());
  EXPECT_EQ(quiet.out.rfind("time_s=", 0), 0U) << quiet.out;
  EXPECT_EQ(std::count(quiet.out.begin(), quiet.out.end(), '\n'), 1) << quiet.out;
}

// Sizes whose element count wraps used to allocate a small buffer and write past it (SIGSEGV,
// SIGFPE), or to compute on nothing and pass --check with checksum 0. Every program and twin
// refuses them before allocating, naming --size and the limit.
TEST_P(AppCli, SizesBeyondTheLimitExit2BeforeAllocating) {
  std::vector<std::vector<std::string>> sizes;
  std::vector<std::string> top{"9223372036854775807"};  // the brief's matadd case, as many numbers as the app takes
  for (std::size_t i = 1; i < app().size.size(); ++i) top.push_back("4");
  sizes.push_back(top);
  if (app().size.size() >= 2) sizes.push_back({"4294967296", "4294967296"});  // 2^64 elements wrap to 0
  if (app().name.rfind("matmul", 0) == 0) sizes.push_back({"2147483648", "1", "2147483648"});  // c = a . b wraps
  for (const auto& size : sizes) {
    std::vector<std::string> args{"--check", "--size"};
    args.insert(args.end(), size.begin(), size.end());
    SCOPED_TRACE(size.front());
    const Result r = run(args);
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("--size " + size.front()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("exceed the limit of"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("time_s="), std::string::npos) << "it computed: " << r.out;
  }
}

// matmul's extents go to BLAS as int: one beyond INT_MAX whose arrays would still fit (3e9 x 1
// floats) is refused before any input is generated, not after 12 GB of them.
TEST_P(AppCli, MatmulExtentsBeyondBlasExit2BeforeGenerating) {
  if (app().name.rfind("matmul", 0) != 0) GTEST_SKIP() << "not matmul";
  const Result r = run({"--check", "--size", "3000000000", "1", "1"});
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--size: extent 3000000000 is beyond what BLAS takes"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("time_s="), std::string::npos) << "it computed: " << r.out;
}

// NaN and infinity in an input file are bad input for every program and twin (exit 2, naming the
// file and the element), not a failed check for some and an accepted input for others.
TEST_P(AppCli, NanOrInfinityInAnInputFileExit2NamingTheElement) {
  const apps::Problem p = app().problem();
  for (const float bad : {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::infinity()}) {
    apps::Array a = p.generate(app().size, 3).back();
    a.data[3] = bad;
    const fs::path file = path("not_finite.npy");
    ctrl::npy::save<float>(file, a);
    expect_bad_input(p.inputs.back(), file, "element 3");
  }
}

std::string case_name(const ::testing::TestParamInfo<AppCli::ParamType>& info) {
  return cases()[std::get<0>(info.param)].name + (std::get<1>(info.param) ? "_native" : "_ctrl");
}

INSTANTIATE_TEST_SUITE_P(Programs, AppCli,
                         ::testing::Combine(::testing::Range(std::size_t{0}, std::size_t{7}), ::testing::Bool()),
                         case_name);

// The twin does the same work as the ctrl program: the same checksum, digit for digit. Not fft2d:
// FFTW's own 2-D plan and the ctrl program's phases round differently, and a 2-D FFT's checksum
// (M N x(0, 0), a sum that cancels) shows it; both pass --check (WritesCorrectOutputs).
TEST(AppCliTwins, SameChecksumAsTheCtrlProgram) {
  const ctrl::test::ScratchDir dir("ctrl-apps-twins");
  for (const auto& c : cases()) {
    if (c.name == "fft2d") continue;
    SCOPED_TRACE(c.name);
    std::string checksums[2];
    for (int native = 0; native < 2; ++native) {
      std::string cmd = quote(native ? c.native_path : c.ctrl_path) + " --quiet --seed 9 --size";
      for (auto s : c.size) cmd += " " + std::to_string(s * 3);
      for (const auto& a : c.extra) cmd += " " + quote(a);
      const fs::path out = dir / "out.txt";
      ASSERT_EQ(std::system((cmd + " >" + quote(out)).c_str()), 0) << cmd;
      const std::string text = slurp(out);
      const auto at = text.find("checksum=");
      ASSERT_NE(at, std::string::npos) << text;
      checksums[native] = text.substr(at, text.find(' ', at) - at);
    }
    EXPECT_EQ(checksums[0], checksums[1]);
  }
}

// Every program, twins included, names itself in its help, its --version, and its errors; the CUDA
// twin is not the OpenMP twin (it printed the OpenMP twin's text).
TEST(AppCliPrograms, EachNamesItselfInHelpVersionAndErrors) {
  const ctrl::test::ScratchDir dir("ctrl-apps-names");
  auto run_program = [&](const std::string& program, const std::string& args) {
    const fs::path out = dir / "out.txt", err = dir / "err.txt";
    const int status = std::system((quote(program) + " " + args + " >" + quote(out) + " 2>" + quote(err)).c_str());
    return Result{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  };
  const std::string cuda_twins[] = {CTRL_APP_MATADD_NATIVE_CUDA,     CTRL_APP_BLACKSCHOLES_NATIVE_CUDA,
                                    CTRL_APP_JACOBI_NATIVE_CUDA,     CTRL_APP_MATMUL_NATIVE_CUDA,
                                    CTRL_APP_RECURRENCE_NATIVE_CUDA, CTRL_APP_FFT2D_NATIVE_CUDA};
  std::size_t twin = 0;
  for (const auto& c : cases()) {
    if (c.name == "matmul_generic") continue;  // the same programs as matmul_blas
    const apps::Problem p = c.problem();
    const std::pair<apps::Flavor, std::string> programs[] = {{apps::Flavor::ctrl, c.ctrl_path},
                                                             {apps::Flavor::native, c.native_path},
                                                             {apps::Flavor::native_cuda, cuda_twins[twin++]}};
    for (const auto& [flavor, path] : programs) {
      if (path.empty()) continue;  // a CUDA twin where the CUDA backend is not built
      const std::string name = apps::program_name(p.name, flavor);
      SCOPED_TRACE(name);
      EXPECT_EQ(fs::path(path).filename().string(), name);
      const Result help = run_program(path, "--help");
      EXPECT_EQ(help.rc, 0) << help.err;
      EXPECT_NE(help.out.find(p.summary), std::string::npos) << help.out;
      EXPECT_NE(help.out.find("Usage: " + name + " "), std::string::npos) << help.out;
      const char* twin_words = flavor == apps::Flavor::native        ? "plain-OpenMP twin"
                               : flavor == apps::Flavor::native_cuda ? "plain-CUDA twin"
                                                                     : "twin";
      EXPECT_EQ(help.out.find(twin_words) != std::string::npos, flavor != apps::Flavor::ctrl) << help.out;

      const Result version = run_program(path, "--version");
      EXPECT_EQ(version.rc, 0) << version.err;
      EXPECT_EQ(version.out, name + " (ctrl " CTRL_VERSION_STRING ")\n");

      const Result bad = run_program(path, "--no-such-flag");
      EXPECT_EQ(bad.rc, 2);
      EXPECT_EQ(bad.err.rfind(name + ": error: ", 0), 0U) << bad.err;
      EXPECT_NE(bad.err.find("--no-such-flag"), std::string::npos) << bad.err;
      EXPECT_NE(bad.err.find("Run '" + name + " --help' for more information."), std::string::npos) << bad.err;
      const Result input = run_program(path, "--in nosuchname=x.npy");
      EXPECT_EQ(input.rc, 2);
      EXPECT_EQ(input.err.rfind(name + ": error: ", 0), 0U) << input.err;
    }
  }
}

// The CUDA twin runs on a GPU: where none answers, it fails (exit 1) naming the device and why in
// ctrl's words: with no driver at all, that there is none, not that it is too old.
TEST(AppCliPrograms, TheCudaTwinSaysWhyNoGpuAnswers) {
  const std::string twin = CTRL_APP_MATADD_NATIVE_CUDA;
  if (twin.empty()) GTEST_SKIP() << "no CUDA twin in this build";
  void* driver = ::dlopen("libcuda.so.1", RTLD_LAZY);
  if (driver != nullptr) {
    ::dlclose(driver);
    GTEST_SKIP() << "an NVIDIA driver is installed here";
  }
  const ctrl::test::ScratchDir dir("ctrl-apps-cuda-twin");
  const int status = std::system((quote(twin) + " --size 4 4 >/dev/null 2>" + quote(dir / "err.txt")).c_str());
  const std::string err = slurp(dir / "err.txt");
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 1) << err;
  EXPECT_EQ(err, "matadd_native_cuda: error: cuda:0: no NVIDIA driver on this machine (libcuda.so.1 not found)\n");
}

}  // namespace
