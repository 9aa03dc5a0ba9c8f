// A file system that cannot lock (Lustre mounted without -o flock, some NFS mounts), stood in for
// by this program's own flock(): the dynamic linker binds the ctrl libraries' calls to the
// executable's definition before the C library's. A profile is then refused before anything is
// written, naming the file and --no-lock, unless the caller accepts writing it unlocked.
#include <ctrl/io/files.hpp>
#include <ctrl/loop/profile_file.hpp>

#include "scratch_dir.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <string>

#include <dlfcn.h>

namespace {
std::atomic<int> flock_error{0};  // 0: the C library's flock
}  // namespace

extern "C" int flock(int fd, int operation) {
  if (const int e = flock_error.load()) {
    errno = e;
    return -1;
  }
  using Flock = int (*)(int, int);
  static const auto real = reinterpret_cast<Flock>(::dlsym(RTLD_NEXT, "flock"));
  return real(fd, operation);
}

namespace {

using ctrl::loop::ProfileRow;
using ctrl::loop::ProfileWriter;

ProfileRow row(const std::string& proc, ctrl::index_t size) {
  ProfileRow r;
  r.processor = proc;
  r.size = size;
  r.time = 0.5;
  r.reps = 3;
  r.time_ci = 0.005;
  r.app = "dgemm";
  r.cols = 64;
  return r;
}

class NoLockTest : public ::testing::Test {
 protected:
  void SetUp() override { flock_error = ENOLCK; }
  void TearDown() override { flock_error = 0; }
  ctrl::test::ScratchDir dir{"ctrl-no-lock"};
};

TEST_F(NoLockTest, OpenLockedRefusesUnlessAskedToGoOnUnlocked) {
  const auto f = dir / "a.csv";
  try {
    (void)ctrl::io::open_locked(f);
    FAIL() << "no error";
  } catch (const ctrl::io::LockUnsupported& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(f.string() + ": cannot lock it"), std::string::npos) << m;
    EXPECT_NE(m.find("does not support locks"), std::string::npos) << m;
  }
  EXPECT_FALSE(std::filesystem::exists(f));  // the file it created for the attempt is gone
  auto file = ctrl::io::open_locked(f, ctrl::io::Locking::where_possible);
  ASSERT_TRUE(file);
  EXPECT_FALSE(file->locked);
  EXPECT_TRUE(file->created);
}

TEST_F(NoLockTest, AProfileIsRefusedNamingNoLockAndAnExistingOneIsUntouched) {
  const auto f = dir / "p.csv";
  try {
    ProfileWriter w(f.string());
    FAIL() << "no error";
  } catch (const ctrl::UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("--out " + f.string() + ": cannot lock it"), std::string::npos) << m;
    EXPECT_NE(m.find("give --no-lock"), std::string::npos) << m;
  }
  EXPECT_FALSE(std::filesystem::exists(f));

  flock_error = 0;
  {
    ProfileWriter w(f.string());
    w.write({row("cpu:0", 8)});
  }
  const std::string before = ctrl::io::read_input(f);
  flock_error = ENOLCK;
  EXPECT_THROW(ProfileWriter(f.string(), "--profile"), ctrl::UsageError);
  EXPECT_EQ(ctrl::io::read_input(f), before);
}

TEST_F(NoLockTest, UnlockedOkWritesTheProfileAsUsual) {
  const auto f = dir / "p.csv";
  {
    ProfileWriter w(f.string(), "--out", true);
    w.write({row("cpu:0", 8)});
    w.write({row("cpu:0", 16)});
  }
  const auto pf = ctrl::loop::read_profile_file(f.string());
  EXPECT_EQ(pf.complete_sizes, (std::vector<ctrl::index_t>{8, 16}));
}

}  // namespace
