#include "temporary_files.hpp"

#include <ctrl/io/files.hpp>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ctrl::io {

namespace {

// The registry is plain memory with atomic states, so that a signal handler may walk it: a slot is
// claimed (free -> writing), filled, then published (live); the handler reads live slots only.
enum SlotState : int { slot_free = 0, slot_writing = 1, slot_live = 2 };
struct Slot {
  std::atomic<int> state{slot_free};
  char path[PATH_MAX] = {};
};
std::array<Slot, 64> slots;
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads the slots' states");

// Signals whose default action ends the process, and which can be caught.
constexpr std::array terminating_signals{SIGHUP,  SIGINT,  SIGQUIT, SIGTERM, SIGPIPE, SIGALRM,
                                         SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGABRT};

}  // namespace

void remove_temporary_files() noexcept {
  for (Slot& s : slots)
    if (s.state.load(std::memory_order_acquire) == slot_live) ::unlink(s.path);
}

extern "C" void remove_temporary_files_and_die(int signal) {
  const int saved = errno;
  remove_temporary_files();
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(signal, &dfl, nullptr);
  // Blocked while its handler runs: the default action happens when the handler returns.
  ::raise(signal);
  errno = saved;
}

namespace detail {

std::string temporary_prefix(const std::filesystem::path& target) { return "." + target.filename().string() + ".tmp-"; }

std::string temporary_suffix() {
  std::uint64_t bits = 0;
  auto* out = reinterpret_cast<unsigned char*>(&bits);
  std::size_t have = 0;
  while (have < sizeof bits) {
    const ssize_t n = ::getrandom(out + have, sizeof bits - have, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;  // no entropy source at all: O_EXCL still keeps the name exclusive
    have += static_cast<std::size_t>(n);
  }
  char text[64];
  std::snprintf(text, sizeof text, "%ld-%016llx", static_cast<long>(::getpid()), static_cast<unsigned long long>(bits));
  return text;
}

int register_temporary(const std::string& path) noexcept {
  if (path.size() >= PATH_MAX) return -1;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    int expected = slot_free;
    if (!slots[i].state.compare_exchange_strong(expected, slot_writing, std::memory_order_acquire)) continue;
    std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
    slots[i].state.store(slot_live, std::memory_order_release);
    return static_cast<int>(i);
  }
  return -1;
}

void unregister_temporary(int slot) noexcept {
  if (slot >= 0) slots[static_cast<std::size_t>(slot)].state.store(slot_free, std::memory_order_release);
}

void install_signal_cleanup() noexcept {
  // Normal exits too (std::exit from another thread while a file is being written).
  static std::once_flag at_exit;
  std::call_once(at_exit, [] { std::atexit(remove_temporary_files); });
  for (const int sig : terminating_signals) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0) continue;
    if ((old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != SIG_DFL) continue;
    struct sigaction act {};
    act.sa_handler = remove_temporary_files_and_die;
    sigemptyset(&act.sa_mask);
    ::sigaction(sig, &act, nullptr);
  }
}

namespace {

// Whether `name` is PREFIX + "PID-" + 16 hex digits; the PID then.
bool parse_temporary_name(const std::string& name, const std::string& prefix, long& pid) {
  if (name.compare(0, prefix.size(), prefix) != 0) return false;
  const char* p = name.c_str() + prefix.size();
  char* end = nullptr;
  errno = 0;
  pid = std::strtol(p, &end, 10);
  if (end == p || errno != 0 || pid <= 0 || *end != '-') return false;
  const std::string hex = end + 1;
  return hex.size() == 16 && hex.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// A temporary whose writer is gone: its PID does not exist here, and its lock is free (the second
// test covers a writer in another PID namespace sharing the directory).
bool abandoned(int dir_fd, const char* name, long pid) {
  if (pid == static_cast<long>(::getpid())) return false;
  if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) return false;
  const int fd = ::openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return false;
  struct stat st {};
  const bool free_file = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  ::close(fd);
  return free_file;
}

}  // namespace

void remove_stale_temporaries(const std::filesystem::path& target) noexcept {
  try {
    const std::string prefix = temporary_prefix(target);
    const std::filesystem::path dir = target.parent_path().empty() ? std::filesystem::path(".") : target.parent_path();
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return;
    while (const dirent* e = ::readdir(d)) {
      long pid = 0;
      if (parse_temporary_name(e->d_name, prefix, pid) && abandoned(::dirfd(d), e->d_name, pid))
        ::unlinkat(::dirfd(d), e->d_name, 0);
    }
    ::closedir(d);
  } catch (...) {
    // Only an allocation can throw here; leftovers are then left for the next save.
  }
}

}  // namespace detail

}  // namespace ctrl::io
