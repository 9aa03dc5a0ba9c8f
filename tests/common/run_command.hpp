// Running a program from a test as a user would: arguments quoted for the shell, standard output
// and error captured in files of a scratch folder, the exit status decoded.
#pragma once
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace ctrl::test {

struct CommandResult {
  int code = -1;  // the exit status; -1 if the program did not exit normally
  std::string out, err;
};

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// argv[0] is the program; scratch holds the captured output.
inline CommandResult run_command(const std::vector<std::string>& argv, const std::filesystem::path& scratch) {
  std::string cmd;
  for (const auto& a : argv) {
    if (!cmd.empty()) cmd += ' ';
    cmd += shell_quote(a);
  }
  const std::filesystem::path out = scratch / "stdout", err = scratch / "stderr";
  cmd += " > " + shell_quote(out.string()) + " 2> " + shell_quote(err.string());
  const int status = std::system(cmd.c_str());
  CommandResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

// Starts argv (argv[0] the program) in a child process, standard output discarded and standard
// error on `stderr_fd` when it is >= 0; returns the child's pid, for tests that signal a running
// program. The argument array is built before fork: a child of a threaded process must not allocate.
inline pid_t spawn(const std::vector<std::string>& argv, int stderr_fd = -1) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    if (stderr_fd >= 0) ::dup2(stderr_fd, 2);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return pid;
}

}  // namespace ctrl::test
