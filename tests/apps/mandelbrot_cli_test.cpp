// mandelbrot end to end, as a user runs it: the picture's escape times (--out) and the picture
// itself (--png) on every test device, the twins' pictures beside the ctrl program's, and the
// refusals (a program without inputs: no --in or --seed; region, limit and zoom checked before
// any work; nothing written on any failure).
#include "common/app.hpp"
#include "mandelbrot/mandelbrot_problem.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"
#include "test_devices.hpp"

#include <ctrl/io/npy.hpp>

#include <gtest/gtest.h>
#if CTRL_TEST_HAVE_PNG
#include <png.h>
#endif

#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using ctrl::test::CommandResult;

const std::string kCtrl = CTRL_APP_MANDELBROT, kNative = CTRL_APP_MANDELBROT_NATIVE,
                  kNativeCuda = CTRL_APP_MANDELBROT_NATIVE_CUDA;

class MandelbrotCli : public ::testing::Test {
 protected:
  CommandResult run(const std::string& program, std::vector<std::string> args) const {
    args.insert(args.begin(), program);
    return ctrl::test::run_command(args, dir_);
  }
  fs::path path(const std::string& name) const { return dir_ / name; }
  // Nothing but the captured stdout and stderr in the scratch folder: no output, no temporary file.
  void expect_nothing_written() const {
    for (const auto& e : fs::directory_iterator(dir_)) {
      const auto name = e.path().filename().string();
      EXPECT_TRUE(name == "stdout" || name == "stderr") << "left behind: " << name;
    }
  }
  ctrl::test::ScratchDir dir_{"ctrl-mandelbrot-cli"};
};

// The region of a case: the seahorse valley, where most pixels lie near the boundary.
const std::vector<std::string> kZoom = {"--center-re", "-0.7435", "--center-im",  "0.1314",
                                        "--width",     "0.02",    "--iterations", "400"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST_F(MandelbrotCli, ChecksOnEveryDeviceAndWritesTheEscapeTimes) {
  for (const auto& device : apps::testing::test_devices()) {
    SCOPED_TRACE(device);
    const fs::path out = path("it.npy");
    const auto r =
        run(kCtrl,
            with({"--device", device, "--size", "45", "71", "--check", "--out", "iterations=" + out.string()}, kZoom));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("check=passed"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("outputs=iterations:45x71"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("center_re=-0.7435 center_im=0.1314 width=0.02 iterations=400"), std::string::npos) << r.out;
    const auto a = ctrl::npy::load<float>(out);
    ASSERT_EQ(a.shape, (apps::Shape{45, 71}));
    const auto v = apps::mandel::view(-0.7435, 0.1314, 0.02, 45, 71);
    const auto ref = apps::reference::mandelbrot(v, 45, 71, 400);
    EXPECT_EQ(apps::reference::judge_mandelbrot(a.data, ref, v, 71, 400).unexplained, 0U);
    fs::remove(out);
  }
}

// The ctrl program (dynamic chunks) and the OpenMP twin (dynamic rows) compute the same doubles:
// the same file, byte for byte, whatever the twin's schedule.
TEST_F(MandelbrotCli, TheTwinWritesTheSamePicture) {
  const auto a =
      run(kCtrl, with({"--size", "50", "30", "--quiet", "--out", "iterations=" + path("c.npy").string()}, kZoom));
  ASSERT_EQ(a.code, 0) << a.err;
  const auto b =
      run(kNative, with({"--size", "50", "30", "--quiet", "--out", "iterations=" + path("n.npy").string()}, kZoom));
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(ctrl::test::read_file(path("c.npy")), ctrl::test::read_file(path("n.npy")));
  const auto checksum = [](const std::string& line) {
    const auto at = line.find("checksum=");
    return line.substr(at, line.find(' ', at) - at);
  };
  EXPECT_EQ(checksum(a.out), checksum(b.out));
}

#if CTRL_TEST_HAVE_PNG
// The picture is a PNG of the --size, black exactly where the escape time reaches the limit.
TEST_F(MandelbrotCli, ThePngIsThePicture) {
  const auto r = run(kCtrl, {"--size", "40", "60", "--png", path("m.png").string(), "--out",
                             "iterations=" + path("m.npy").string(), "--iterations", "100"});
  ASSERT_EQ(r.code, 0) << r.err;
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  ASSERT_TRUE(png_image_begin_read_from_file(&image, path("m.png").c_str())) << image.message;
  EXPECT_EQ(image.width, 60U);
  EXPECT_EQ(image.height, 40U);
  image.format = PNG_FORMAT_RGB;
  std::vector<unsigned char> rgb(PNG_IMAGE_SIZE(image));
  ASSERT_TRUE(png_image_finish_read(&image, nullptr, rgb.data(), 0, nullptr)) << image.message;
  const auto it = ctrl::npy::load<float>(path("m.npy"));
  std::size_t in_set = 0;
  for (std::size_t k = 0; k < it.data.size(); ++k) {
    const bool black = rgb[3 * k] == 0 && rgb[3 * k + 1] == 0 && rgb[3 * k + 2] == 0;
    EXPECT_EQ(black, it.data[k] == 100.0F) << "pixel " << k;
    in_set += black;
  }
  EXPECT_GT(in_set, 0U);
  EXPECT_LT(in_set, it.data.size());
}
#else
TEST_F(MandelbrotCli, WithoutLibpngThePngIsRefusedBeforeAnyWork) {
  const auto r = run(kCtrl, {"--size", "8", "--png", path("m.png").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--png: this build has no libpng"), std::string::npos) << r.err;
  expect_nothing_written();
}
#endif

TEST_F(MandelbrotCli, BadArgumentsExit2BeforeAnyWorkAndWriteNothing) {
  const std::string png = path("m.png").string(), npy = "iterations=" + path("m.npy").string();
  const struct {
    std::vector<std::string> args;
    std::string says;
  } bad[] = {
      {{"--width", "0"}, "--width must be a finite number above 0"},
      {{"--width", "inf"}, "--width"},
      {{"--center-re", "nan"}, "--center-re must be a finite number"},
      {{"--iterations", "0"}, "--iterations"},
      {{"--iterations", "16777217"}, "at most 16777216"},
      {{"--width", "1e-15", "--center-re", "0.25"}, "too small for double precision"},
      {{"--width", "1e-320"}, "--width 1e-320 over"},  // a subnormal width, named in the message
      {{"--size", "0"}, "not a positive size"},
      {{"--size", "3000000000", "3000000000"}, "--size"},
      {{"--in", "iterations=x.npy"}, "--in"},
      {{"--seed", "4"}, "--seed"},
      {{"--out", "pixels=" + path("p.npy").string()}, "no output named 'pixels'"},
      {{"--png", (dir_ / "missing" / "m.png").string()}, "does not exist (--png)"},
      {{"--png", png, "--out", "iterations=" + png}, "two outputs would overwrite each other"},
      {{"--device", "cpu:0-100000"}, "core"},
  };
  for (const auto& b : bad) {
    auto args = with({"--size", "16", "--png", png, "--out", npy}, b.args);
    if (b.args.front() == "--png") args = with({"--size", "16"}, b.args);
    SCOPED_TRACE(args.back());
    const auto r = run(kCtrl, args);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(b.says), std::string::npos) << r.err;
    EXPECT_EQ(r.err.rfind("mandelbrot: error: ", 0), 0U) << r.err;
    EXPECT_EQ(r.out.find("time_s="), std::string::npos) << r.out;
    expect_nothing_written();
  }
}

// A run that fails leaves an earlier picture and its escape times as they were.
TEST_F(MandelbrotCli, AFailedRunLeavesEarlierOutputsAlone) {
  const std::string png = path("m.png").string(), npy = path("m.npy").string();
  ASSERT_EQ(run(kCtrl, {"--size", "8", "--png", png, "--out", "iterations=" + npy}).code, 0);
  const std::string before_png = ctrl::test::read_file(png), before_npy = ctrl::test::read_file(npy);
  const auto r = run(kCtrl, {"--size", "9", "--png", png, "--out", "iterations=" + npy, "--device", "cpu:0-100000"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(ctrl::test::read_file(png), before_png);
  EXPECT_EQ(ctrl::test::read_file(npy), before_npy);
}

TEST_F(MandelbrotCli, TheCudaTwinChecksWhereAGpuIs) {
  if (kNativeCuda.empty()) GTEST_SKIP() << "no CUDA twin in this build";
  bool gpu = false;
  for (const auto& d : apps::testing::test_devices()) gpu = gpu || d.rfind("cuda", 0) == 0;
  if (!gpu) GTEST_SKIP() << "no CUDA device here";
  const auto r = run(kNativeCuda, with({"--size", "45", "71", "--check"}, kZoom));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("check=passed"), std::string::npos) << r.out;
}

TEST_F(MandelbrotCli, EachProgramNamesItself) {
  for (const auto& [program, name] : {std::pair{kCtrl, "mandelbrot"}, std::pair{kNative, "mandelbrot_native"},
                                      std::pair{kNativeCuda, "mandelbrot_native_cuda"}}) {
    if (program.empty()) continue;
    SCOPED_TRACE(name);
    const auto help = run(program, {"--help"});
    EXPECT_EQ(help.code, 0);
    EXPECT_NE(help.out.find(std::string("Usage: ") + name + " "), std::string::npos) << help.out;
    EXPECT_NE(help.out.find("--png"), std::string::npos) << help.out;
    EXPECT_EQ(help.out.find("--in "), std::string::npos) << "a program without inputs offers --in: " << help.out;
    const auto bad = run(program, {"--width", "-1"});
    EXPECT_EQ(bad.code, 2);
    EXPECT_EQ(bad.err.rfind(std::string(name) + ": error: ", 0), 0U) << bad.err;
  }
}

}  // namespace
