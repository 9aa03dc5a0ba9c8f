// Tests of ctrl::io's inputs and outputs: inputs that are not regular files refused without
// blocking, outputs only to regular files, exclusive temporary files that follow no link, removed
// on every way out (signals too, and by the next save after a process that died), and outputs
// that would overwrite an input refused.
#include <ctrl/errors.hpp>
#include <ctrl/io/files.hpp>

#include "scratch_dir.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
namespace io = ctrl::io;

template <class E, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw another exception: " << e.what();
    return {};
  }
  ADD_FAILURE() << "threw nothing";
  return {};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class FilesTest : public ::testing::Test {
 protected:
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return dir_ / name;
  }
  fs::path fifo(const std::string& name) const {
    const fs::path p = dir_ / name;
    EXPECT_EQ(::mkfifo(p.c_str(), 0600), 0) << std::strerror(errno);
    return p;
  }
  static std::string read(const fs::path& path) {
    std::ostringstream out;
    out << std::ifstream(path, std::ios::binary).rdbuf();
    return out.str();
  }
  // Every name in the directory, sorted.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

  ctrl::test::ScratchDir dir_{"ctrl-files"};
};

// ---- inputs -------------------------------------------------------------------------------------

TEST_F(FilesTest, InputsAreRegularFilesAndAFifoIsRefusedWithoutWaiting) {
  EXPECT_EQ(io::read_input(write("a.txt", "text")), "text");
  const fs::path f = fifo("in.fifo");  // no writer: a blocking open would wait forever
  EXPECT_EQ(message_of<ctrl::UsageError>([&] { io::read_input(f); }), f.string() + ": a FIFO, not a regular file");
  EXPECT_EQ(message_of<ctrl::UsageError>([&] { io::open_input(dir_); }),
            dir_.string() + ": a directory, not a regular file");
  EXPECT_EQ(message_of<ctrl::UsageError>([&] { io::open_input("/dev/null"); }),
            "/dev/null: a character device, not a regular file");
  EXPECT_EQ(message_of<ctrl::UsageError>([&] { io::open_input(dir_ / "none"); }),
            (dir_ / "none").string() + ": no such file");
  // The descriptor reads in blocking mode again.
  const io::FileDescriptor fd = io::open_input(dir_ / "a.txt");
  EXPECT_EQ(::fcntl(fd.get(), F_GETFL) & O_NONBLOCK, 0);
}

// ---- outputs ------------------------------------------------------------------------------------

TEST_F(FilesTest, OutputsGoOnlyToRegularFiles) {
  const fs::path f = fifo("out.fifo");
  const fs::path target = write("target.txt", "keep");
  const fs::path link = dir_ / "link.txt";
  fs::create_symlink(target, link);
  for (const fs::path& p : {f, link, dir_.path()}) {
    EXPECT_PRED2(contains, message_of<ctrl::UsageError>([&] { io::check_output(p); }), ", not a regular file");
    EXPECT_PRED2(contains, message_of<ctrl::UsageError>([&] { io::write_file_atomically(p, "new"); }),
                 p.string() + ": ");
  }
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(f)));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(read(target), "keep");
  EXPECT_PRED2(contains, message_of<ctrl::UsageError>([&] { io::check_output(dir_ / "none" / "a.txt"); }),
               "does not exist");
  EXPECT_NO_THROW(io::check_output(dir_ / "new.txt"));
  EXPECT_NO_THROW(io::check_output(target));
  // /dev/null is refused before anything is created beside it (nothing is ever written in /dev).
  EXPECT_PRED2(contains, message_of<ctrl::UsageError>([&] { io::write_file_atomically("/dev/null", "x"); }),
               "/dev/null: a character device, not a regular file");
  struct stat st {};
  ASSERT_EQ(::lstat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(names(), (std::vector<std::string>{"link.txt", "out.fifo", "target.txt"}));
}

// A command's one call: every output checked and named by its option, inputs and options not
// given left alone, and no output over an input.
TEST_F(FilesTest, CheckFilesNamesTheOptionOfAnOutputThatCannotBeWritten) {
  const fs::path in = write("in.csv", "x");
  const fs::path missing_dir = dir_ / "none" / "out.svg";
  const io::FileArgument bad[] = {{"--profile", in, false}, {"--json", "", true}, {"--plot", missing_dir, true}};
  EXPECT_EQ(message_of<ctrl::UsageError>([&] { io::check_files(bad); }),
            "--plot " + missing_dir.string() + ": directory '" + (dir_ / "none").string() + "' does not exist");
  const io::FileArgument dir[] = {{"--out", dir_, true}};
  EXPECT_PRED2(contains, message_of<ctrl::UsageError>([&] { io::check_files(dir); }),
               "--out " + dir_.string() + ": a directory, not a regular file");
  const io::FileArgument same[] = {{"--profile", in, false}, {"--plot", in, true}};
  EXPECT_PRED2(contains, message_of<ctrl::UsageError>([&] { io::check_files(same); }),
               "an output may not overwrite an input");
  const io::FileArgument fine[] = {{"--profile", dir_ / "not-read-here.csv", false},
                                   {"--plot", dir_ / "new.svg", true}};
  EXPECT_NO_THROW(io::check_files(fine));
  if (::geteuid() == 0) GTEST_SKIP() << "root may write anywhere";
  // An existing file is replaced through its directory, so that directory must be writable too.
  const fs::path locked = dir_ / "locked";
  fs::create_directory(locked);
  std::ofstream(locked / "old.svg") << "old";
  fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
  const io::FileArgument ro[] = {{"--plot", locked / "old.svg", true}};
  const std::string message = message_of<ctrl::UsageError>([&] { io::check_files(ro); });
  fs::permissions(locked, fs::perms::owner_all);
  EXPECT_EQ(message,
            "--plot " + (locked / "old.svg").string() + ": directory '" + locked.string() + "' is not writable");
}

TEST_F(FilesTest, AReplacedFileKeepsItsPermissionsAndNoTemporaryRemains) {
  const fs::path p = write("a.txt", "old");
  fs::permissions(p, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  io::write_file_atomically(p, "new");
  EXPECT_EQ(read(p), "new");
  EXPECT_EQ(fs::status(p).permissions(), fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(names(), std::vector<std::string>{"a.txt"});
}

// The old fixed name PATH.tmp followed a planted link; the temporary file now has a fresh random
// name, created exclusively.
TEST_F(FilesTest, APlantedLinkIsNeverFollowed) {
  const fs::path victim = write("victim.txt", "precious");
  fs::create_symlink(victim, dir_ / "out.txt.tmp");
  io::write_file_atomically(dir_ / "out.txt", "result");
  EXPECT_EQ(read(dir_ / "out.txt"), "result");
  EXPECT_EQ(read(victim), "precious");
  EXPECT_EQ(names(), (std::vector<std::string>{"out.txt", "out.txt.tmp", "victim.txt"}));
}

TEST_F(FilesTest, AnUncommittedFileLeavesTheTargetAndNoTemporary) {
  const fs::path p = write("a.txt", "old");
  std::string temp;
  {
    io::AtomicFile a(p), b(p);
    a.write("new");
    b.write("other");
    const std::vector<std::string> now = names();
    ASSERT_EQ(now.size(), 3U);  // two temporaries of their own, with different names
    EXPECT_EQ(now[0].rfind(".a.txt.tmp-" + std::to_string(::getpid()) + "-", 0), 0U) << now[0];
    EXPECT_NE(now[0], now[1]);
  }
  EXPECT_EQ(read(p), "old");
  EXPECT_EQ(names(), std::vector<std::string>{"a.txt"});
}

// Several files written, then committed together (the case studies' outputs).
TEST_F(FilesTest, CommitPutsAFileInPlaceAndKeepsItsDescriptor) {
  io::AtomicFile f(dir_ / "a.txt");
  f.write("one ");
  f.sync();
  EXPECT_FALSE(fs::exists(dir_ / "a.txt"));
  f.commit();
  io::FileDescriptor fd = f.take_descriptor();
  ASSERT_TRUE(fd);
  ASSERT_EQ(::write(fd.get(), "two", 3), 3);
  EXPECT_EQ(read(dir_ / "a.txt"), "one two");
  // It holds the file's lock: another open file description cannot take it.
  const io::FileDescriptor other(::open((dir_ / "a.txt").c_str(), O_RDONLY | O_CLOEXEC));
  EXPECT_NE(::flock(other.get(), LOCK_EX | LOCK_NB), 0);
}

// A process killed during a save (SIGKILL cannot be caught) leaves its temporary file; the next
// save of the same target removes it, and only it.
TEST_F(FilesTest, TheNextSaveRemovesWhatADeadProcessLeft) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);  // its PID now names no process
  const std::string dead = ".a.txt.tmp-" + std::to_string(child) + "-0123456789abcdef";
  const std::string alive = ".a.txt.tmp-1-0123456789abcdef";                              // PID 1 is always there
  const std::string other = ".b.txt.tmp-" + std::to_string(child) + "-0123456789abcdef";  // another target
  const std::string locked = ".a.txt.tmp-" + std::to_string(child) + "-fedcba9876543210";
  for (const auto& n : {dead, alive, other, locked}) write(n, "left over");
  // A writer in another PID namespace holds its lock: kept although its PID is unknown here.
  const io::FileDescriptor holder(::open((dir_ / locked).c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_EQ(::flock(holder.get(), LOCK_EX | LOCK_NB), 0);
  io::write_file_atomically(dir_ / "a.txt", "new");
  EXPECT_EQ(names(), (std::vector<std::string>{alive, locked, other, "a.txt"}));
}

// SIGINT and SIGTERM during a save: the temporary file is removed, the target untouched, and the
// process still ends by the signal. The child says when its file exists; no timing.
TEST_F(FilesTest, ATerminatingSignalRemovesTheTemporaryFile) {
  const fs::path p = write("a.txt", "old");
  for (const int sig : {SIGTERM, SIGINT}) {
    int ready[2], never[2];
    ASSERT_EQ(::pipe(ready), 0);
    ASSERT_EQ(::pipe(never), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      std::signal(SIGINT, SIG_DFL);
      std::signal(SIGTERM, SIG_DFL);
      io::AtomicFile f(p);
      f.write("half of it");
      char c = 1;
      if (::write(ready[1], &c, 1) != 1) ::_exit(3);
      ::close(never[1]);
      while (::read(never[0], &c, 1) != 0) {
      }  // waits for the signal: the pipe is never written
      ::_exit(4);
    }
    ::close(ready[1]);
    ::close(never[0]);
    char c = 0;
    ASSERT_EQ(::read(ready[0], &c, 1), 1);
    EXPECT_EQ(names().size(), 2U);  // a.txt and the child's temporary file
    ::kill(child, sig);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ::close(ready[0]);
    ::close(never[1]);
    ASSERT_TRUE(WIFSIGNALED(status)) << status;
    EXPECT_EQ(WTERMSIG(status), sig);
    EXPECT_EQ(names(), std::vector<std::string>{"a.txt"});
    EXPECT_EQ(read(p), "old");
  }
}

// ---- an output that is an input ----------------------------------------------------------------

TEST_F(FilesTest, AnOutputThatIsAnInputIsRefused) {
  const fs::path in = write("in.txt", "input");
  fs::create_hard_link(in, dir_ / "hard.txt");
  fs::create_symlink(in, dir_ / "soft.txt");
  for (const fs::path& same : {in, dir_ / "hard.txt", dir_ / "soft.txt", dir_ / "." / "in.txt"}) {
    const io::FileArgument files[] = {{"--in a", in, false}, {"--out c", same, true}};
    EXPECT_EQ(message_of<ctrl::UsageError>([&] { io::check_distinct_files(files); }),
              "--out c " + same.string() + ": the same file as --in a " + in.string() +
                  ": an output may not overwrite an input of the same command");
  }
  // Two outputs to one new file, spelled differently.
  const io::FileArgument outs[] = {{"--json", dir_ / "new.json", true},
                                   {"--output", dir_ / "x" / ".." / "new.json", true}};
  fs::create_directories(dir_ / "x");
  EXPECT_PRED2(contains, message_of<ctrl::UsageError>([&] { io::check_distinct_files(outs); }), "two outputs");
  // Distinct files, two inputs that are one file, and options not given: fine.
  const io::FileArgument fine[] = {{"--in a", in, false},
                                   {"--in b", dir_ / "hard.txt", false},
                                   {"--json", "", true},
                                   {"--out c", dir_ / "out.txt", true}};
  EXPECT_NO_THROW(io::check_distinct_files(fine));
}

}  // namespace
