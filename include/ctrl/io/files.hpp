// The files ctrl's programs read and write, through one module so that every input and output
// follows the same rules (docs/tool.md, "Files"):
//
// - An input is opened without blocking and must be a regular file: a FIFO or a device given as
//   an input is refused (UsageError naming it) instead of hanging the program.
// - An output goes only to a regular file, or to a name that does not exist yet: a FIFO, a
//   device such as /dev/null, a directory or a symbolic link is refused. It is written to a
//   temporary file beside it, created exclusively under an unpredictable name (never following
//   a symbolic link), synced, and renamed over the target: the target is the old file or the
//   complete new one, never a mix, and a replaced file keeps its permissions.
// - A temporary file is removed on every way out: an exception, a normal exit, and the
//   terminating signals (SIGINT, SIGTERM, SIGHUP, ...), whose handler unlinks the live temporary
//   files before the process dies by the same signal. SIGKILL cannot be caught: the next save of
//   the same target removes what a dead process left.
//
// Malformed arguments (a FIFO, a missing input) throw ctrl::UsageError "<path>: <what>"; failing
// system calls throw ctrl::Error "<path>: <what failed>: <strerror>".
#pragma once
#include <ctrl/errors.hpp>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ctrl::io {

// An open file descriptor, closed on every way out of its scope.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.release()) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor();
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// ---- inputs ------------------------------------------------------------------------------------

// Opens an input for reading. UsageError "<path>: no such file" when it is missing, "<path>: a
// FIFO, not a regular file" (a directory, a character device, ...) when it is not a regular file;
// a FIFO is opened without blocking, so no writer is waited for.
FileDescriptor open_input(const std::filesystem::path& path);

// The whole contents of an input file (open_input, then read).
std::string read_input(const std::filesystem::path& path);
// The same for a file the user names as input to a reader (a profile): a failure to read it is
// that input's fault too, a UsageError like the others.
std::string read_user_input(const std::filesystem::path& path);

// A file that one process at a time updates in place (ctrl profile's profile): opened for reading
// and writing, created when missing, never through a symbolic link, a regular file only (as
// check_output), and locked with flock(). nullopt when another process holds the lock. Where the
// file system cannot lock (flock fails otherwise: Lustre mounted without -o flock, some NFS
// mounts), `required` is a LockUnsupported error saying so, and `where_possible` goes on unlocked.
enum class Locking { required, where_possible };
class LockUnsupported final : public UsageError {
 public:
  using UsageError::UsageError;
};
struct LockedFile {
  FileDescriptor fd;     // positioned at the end of the contents
  bool created = false;  // this call made the file
  bool locked = true;    // false only where the file system cannot lock and Locking allowed it
  std::string contents;
};
std::optional<LockedFile> open_locked(const std::filesystem::path& path, Locking locking = Locking::required);

// ---- outputs -----------------------------------------------------------------------------------

// UsageError unless `path` can be written as an output: its last component a regular file or not
// there yet (not a FIFO, a device, a directory or a symbolic link), in an existing directory this
// process may write to (an existing file too: it is replaced by a temporary file renamed over it).
// Commands call it on every output before any work (check_files); AtomicFile checks the target again.
void check_output(const std::filesystem::path& path);

// One file argument of a command, for check_distinct_files.
struct FileArgument {
  std::string option;  // how the user named it: "--plot", "--out c"
  std::filesystem::path path;
  bool output = false;
};

// UsageError naming both options when an output is also an input of the same command, or two
// outputs are one file: compared by file identity (device and inode) where the file exists, by
// absolute path where it does not yet.
void check_distinct_files(std::span<const FileArgument> files);

// A command's file arguments, checked together before any work (options not given have empty
// paths and are skipped): every output as check_output, naming its option ("--plot out/f.svg:
// directory 'out' does not exist"), then check_distinct_files. The one call each command makes.
void check_files(std::span<const FileArgument> files);

// A new version of `target`, written to an exclusive temporary file beside it and put in place by
// commit(). Destroyed before commit (an exception, an early return), it removes the temporary
// file and leaves the target untouched.
class AtomicFile {
 public:
  // Checks the target (UsageError unless a regular file or absent), removes temporary files that
  // dead processes left for the same target, and creates this one's.
  explicit AtomicFile(std::filesystem::path target);
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  void write(std::span<const std::byte> bytes);
  void write(std::string_view text) { write(std::as_bytes(std::span(text.data(), text.size()))); }
  // Syncs the data to disk, so that commit() only renames: several files are written and synced
  // first, then put in place together, and a failure while writing leaves every target untouched.
  void sync();
  // Syncs (unless done), renames the temporary over the target, syncs the directory.
  void commit();
  // After commit(): the descriptor of the file now at the target, open for writing at its end and
  // holding an exclusive flock() (ctrl profile keeps appending to the file it rewrote, locked).
  FileDescriptor take_descriptor();

  const std::filesystem::path& target() const { return target_; }

 private:
  [[noreturn]] void fail(const char* what, int err);
  void discard() noexcept;  // removes the temporary file, unless committed or removed already

  std::filesystem::path target_, temp_;
  FileDescriptor fd_;
  int slot_ = -1;  // in the registry of live temporary files that the signal handler removes
  bool synced_ = false, committed_ = false, done_ = false;
};

// An AtomicFile holding `contents`, committed.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

// ---- signals -----------------------------------------------------------------------------------

// Async-signal-safe: unlinks every live temporary file of this process. For a program's own
// handler of a signal that ends the process (MPI's SIGTERM handler calls it before _exit).
void remove_temporary_files() noexcept;

// A signal handler that removes the live temporary files, then ends the process by `signal` with
// its default action. AtomicFile installs it for the terminating signals left at their default;
// a program with its own handler (ctrl profile's first Ctrl-C) installs it for what comes next.
extern "C" void remove_temporary_files_and_die(int signal);

}  // namespace ctrl::io
