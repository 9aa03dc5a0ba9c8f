// Running code where threads run out: in a child process whose user may start only so many
// threads (RLIMIT_NPROC), which the parent waits for within a generous bound, killing it should it
// hang. RLIMIT_NPROC does not bind root: run as root, the child first becomes a user of its own (a
// uid no one else uses, so that the tests of `ctest -j` do not count each other's threads).
//
//   const ctrl::test::LimitedRun run = ctrl::test::run_limited([](const ctrl::test::ThreadLimit& limit) {
//     limit.allow(1);  // one more thread than the child has now
//     return ctrl::test::error_of([] { WorkerPool pool(cores, nullptr, false); });
//   });
//   CTRL_EXPECT_NO_THREAD(run, "a helper of the CPU workers");
#pragma once
#include <ctrl/errors.hpp>

#include <gtest/gtest.h>

#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <typeinfo>

namespace ctrl::test {

// The threads of this process now.
inline int threads_now() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  return 1;
}

// What the child may do about its limit.
class ThreadLimit {
 public:
  explicit ThreadLimit(bool own_user) : own_user_(own_user) {}
  // From now on, the child may start `more` threads beyond those it has. Where it could not
  // become a user of its own (run by an ordinary user, whose other processes count too), it may
  // start none.
  void allow(int more) const {
    const auto most = static_cast<rlim_t>(own_user_ ? threads_now() + more : 1);
    const rlimit limit{most, most};
    if (setrlimit(RLIMIT_NPROC, &limit) != 0) throw std::runtime_error("setrlimit(RLIMIT_NPROC) failed");
  }
  bool own_user() const { return own_user_; }

 private:
  bool own_user_;
};

// How a child run under a thread limit ended.
struct LimitedRun {
  enum class End { reported, skipped, crashed, hung };
  End end = End::crashed;
  std::string text;  // reported: what the body returned; skipped: why; crashed: how
};

// The message of the ctrl::Error f() throws, with its class: "DeviceError: cannot start ...";
// otherwise what happened instead.
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return std::string("UsageError: ") + e.what();
  } catch (const DeviceError& e) {
    return std::string("DeviceError: ") + e.what();
  } catch (const Error& e) {
    return std::string("Error: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("not a ctrl::Error (") + typeid(e).name() + "): " + e.what();
  }
  return "no error";
}

namespace detail {

// Exit statuses of the child.
constexpr int child_reported = 0, child_skipped = 77, child_threw = 78;

// In the child, as root: becomes a user of its own (a uid unused elsewhere, from the pid).
inline bool become_own_user(std::string& why) {
  const auto uid = static_cast<uid_t>(200000 + getpid() % 100000);
  if (setgroups(0, nullptr) != 0 || setgid(static_cast<gid_t>(uid)) != 0 || setuid(uid) != 0) {
    why = std::string("cannot drop root for an unprivileged user (RLIMIT_NPROC does not bind root): ") +
          std::strerror(errno);
    return false;
  }
  return true;
}

inline void write_all(int fd, const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace detail

// Runs body(limit) in a forked child and returns what it reported, within `bound`: a child still
// running then is killed (End::hung). The body lowers the limit itself (limit.allow), after
// whatever it needs that many threads for.
inline LimitedRun run_limited(const std::function<std::string(const ThreadLimit&)>& body,
                              std::chrono::seconds bound = std::chrono::seconds(30)) {
  int fds[2];
  if (pipe(fds) != 0) return {LimitedRun::End::crashed, "pipe() failed"};
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return {LimitedRun::End::crashed, "fork() failed"};
  if (pid == 0) {
    close(fds[0]);
    std::string text;
    int code = detail::child_reported;
    const bool root = geteuid() == 0;
    if (root && !detail::become_own_user(text)) {
      code = detail::child_skipped;
    } else {
      try {
        text = body(ThreadLimit(root));
      } catch (const std::exception& e) {
        text = std::string("the body threw: ") + e.what();
        code = detail::child_threw;
      }
    }
    detail::write_all(fds[1], text);
    close(fds[1]);
    std::fflush(nullptr);
    _exit(code);  // not exit(): the parent's static objects are its own to end
  }
  close(fds[1]);
  LimitedRun run;
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + bound;
  pid_t done = 0;
  while ((done = waitpid(pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (done == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    close(fds[0]);
    return {LimitedRun::End::hung, "still running after " + std::to_string(bound.count()) + " s: killed"};
  }
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) run.text.append(buffer, static_cast<std::size_t>(n));
  close(fds[0]);
  if (WIFSIGNALED(status)) {
    run.end = LimitedRun::End::crashed;
    run.text =
        std::string("killed by signal ") + strsignal(WTERMSIG(status)) + (run.text.empty() ? "" : ": ") + run.text;
  } else if (WEXITSTATUS(status) == detail::child_skipped) {
    run.end = LimitedRun::End::skipped;
  } else if (WEXITSTATUS(status) == detail::child_reported) {
    run.end = LimitedRun::End::reported;
  } else {
    run.end = LimitedRun::End::crashed;
    run.text = "exit status " + std::to_string(WEXITSTATUS(status)) + ": " + run.text;
  }
  return run;
}

// The run reported the DeviceError of a thread that could not be started, naming `what`.
inline ::testing::AssertionResult no_thread_reported(const LimitedRun& run, const std::string& what) {
  if (run.end != LimitedRun::End::reported)
    return ::testing::AssertionFailure() << (run.end == LimitedRun::End::hung ? "hung: " : "crashed: ") << run.text;
  const std::string expected = "DeviceError: cannot start a thread: " + what;
  if (run.text.rfind(expected, 0) != 0)
    return ::testing::AssertionFailure() << "reported \"" << run.text << "\", not \"" << expected << "...\"";
  if (run.text.find("(the limit of processes/threads of this user may be reached: ulimit -u)") == std::string::npos)
    return ::testing::AssertionFailure() << "no word of ulimit -u in \"" << run.text << "\"";
  return ::testing::AssertionSuccess() << run.text;
}

}  // namespace ctrl::test

// In a TEST: skips where the child could not become a user of its own, else checks that it
// reported the DeviceError of a thread that could not be started, naming `what`.
#define CTRL_EXPECT_NO_THREAD(run, what)                                                         \
  do {                                                                                           \
    const ::ctrl::test::LimitedRun& ctrl_run_ = (run);                                           \
    if (ctrl_run_.end == ::ctrl::test::LimitedRun::End::skipped) GTEST_SKIP() << ctrl_run_.text; \
    EXPECT_TRUE(::ctrl::test::no_thread_reported(ctrl_run_, (what)));                            \
  } while (false)
