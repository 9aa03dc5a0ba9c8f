// Inputs and outputs through POSIX calls: fstat tells a FIFO from a file without blocking, O_EXCL
// and O_NOFOLLOW make a temporary file this process's alone, fsync and rename make a save atomic.
#include <ctrl/errors.hpp>
#include <ctrl/io/files.hpp>

#include "temporary_files.hpp"

#include <cerrno>
#include <optional>
#include <system_error>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ctrl::io {

namespace {

[[noreturn]] void usage_error(const std::filesystem::path& path, const std::string& what) {
  throw UsageError(path.string() + ": " + what);
}

[[noreturn]] void system_error(const std::filesystem::path& path, const std::string& what, int err) {
  throw Error(path.string() + ": " + what + ": " + std::generic_category().message(err));
}

// "a FIFO", "a directory", ... for the messages that refuse a file.
std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a file";
}

bool write_fully(int fd, std::span<const std::byte> src) {
  while (!src.empty()) {
    const ssize_t n = ::write(fd, src.data(), src.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    src = src.subspan(static_cast<std::size_t>(n));
  }
  return true;
}

std::filesystem::path directory_of(const std::filesystem::path& path) {
  return path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
}

// The target's own checks, shared by check_output (before any work) and AtomicFile (at the save).
// Returns whether the target exists, with its status in `st`.
bool check_target(const std::filesystem::path& path, struct stat& st) {
  if (path.empty() || path.filename().empty() || path.filename() == "." || path.filename() == "..")
    usage_error(path, "not a file name");
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return false;
    if (errno == ENOTDIR) usage_error(path, "no such directory");
    system_error(path, "cannot check the output", errno);
  }
  if (!S_ISREG(st.st_mode))
    usage_error(path, kind_of(st.st_mode) + ", not a regular file: outputs are written to regular files only" +
                          (S_ISLNK(st.st_mode) ? " (give the file it points to)" : ""));
  return true;
}

}  // namespace

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {

// Every open of a file to read: O_NONBLOCK, since opening a FIFO for reading would wait for a
// writer, forever; then fstat, a regular file only; then blocking reads again. -1 in the result
// when open() failed, with errno set.
FileDescriptor open_regular(const std::filesystem::path& path, int flags, mode_t mode = 0) {
  FileDescriptor fd(::open(path.c_str(), flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, mode));
  if (!fd) return fd;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) system_error(path, "cannot stat", errno);
  if (!S_ISREG(st.st_mode)) usage_error(path, kind_of(st.st_mode) + ", not a regular file");
  const int now = ::fcntl(fd.get(), F_GETFL);
  if (now < 0 || ::fcntl(fd.get(), F_SETFL, now & ~O_NONBLOCK) != 0) system_error(path, "cannot open", errno);
  return fd;
}

std::string read_all(int fd, const std::filesystem::path& path) {
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) system_error(path, "cannot read", errno);
    if (n == 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

}  // namespace

FileDescriptor open_input(const std::filesystem::path& path) {
  FileDescriptor fd = open_regular(path, O_RDONLY);
  if (!fd && (errno == ENOENT || errno == ENOTDIR)) usage_error(path, "no such file");
  if (!fd) system_error(path, "cannot open", errno);
  return fd;
}

std::string read_input(const std::filesystem::path& path) { return read_all(open_input(path).get(), path); }

std::string read_user_input(const std::filesystem::path& path) {
  try {
    return read_input(path);
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
}

std::optional<LockedFile> open_locked(const std::filesystem::path& path, Locking locking) {
  check_output(path);
  // O_EXCL first, to know whether this process made the file; never through a symbolic link.
  LockedFile file;
  file.fd = open_regular(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0666);
  file.created = static_cast<bool>(file.fd);
  if (!file.fd && errno == EEXIST) file.fd = open_regular(path, O_RDWR | O_NOFOLLOW);
  if (!file.fd) system_error(path, "cannot open", errno);
  // The lock is on the file now at the path: one that another process has just replaced (an
  // atomic rewrite) belongs to that process. A file system without flock() cannot keep a second
  // writer out: written unlocked only when asked for.
  if (::flock(file.fd.get(), LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err == EWOULDBLOCK) return std::nullopt;
    if (locking == Locking::required) {
      const bool created = file.created;
      file.fd = FileDescriptor();
      if (created) ::unlink(path.c_str());  // nothing is left behind by a refusal
      throw LockUnsupported(path.string() + ": cannot lock it (" + std::generic_category().message(err) +
                            "): its file system does not support locks (Lustre mounted without -o flock, some NFS "
                            "mounts), so a second command writing it at the same time would not be kept out");
    }
    file.locked = false;
  }
  struct stat mine {
  }, now{};
  if (::fstat(file.fd.get(), &mine) != 0 || ::stat(path.c_str(), &now) != 0 || mine.st_dev != now.st_dev ||
      mine.st_ino != now.st_ino)
    return std::nullopt;
  file.contents = read_all(file.fd.get(), path);
  return file;
}

void check_output(const std::filesystem::path& path) {
  struct stat st {};
  const bool exists = check_target(path, st);
  const std::filesystem::path dir = directory_of(path);
  if (!exists && (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)))
    usage_error(path, "directory '" + dir.string() + "' does not exist");
  // An existing file too: it is replaced by a temporary file created in its directory.
  if (::access(dir.c_str(), W_OK | X_OK) != 0) usage_error(path, "directory '" + dir.string() + "' is not writable");
}

void check_files(std::span<const FileArgument> files) {
  for (const FileArgument& f : files) {
    if (!f.output || f.path.empty()) continue;
    try {
      check_output(f.path);
    } catch (const UsageError& e) {
      throw UsageError(f.option + " " + e.what());
    } catch (const Error& e) {
      throw Error(f.option + " " + e.what());
    }
  }
  check_distinct_files(files);
}

void check_distinct_files(std::span<const FileArgument> files) {
  // An identity per file: device and inode when it exists (a link or another spelling of the same
  // file is the same file), else its absolute, normalised path.
  struct Identity {
    bool exists = false;
    dev_t dev = 0;
    ino_t ino = 0;
    std::filesystem::path path;
    bool operator==(const Identity& o) const {
      return exists == o.exists && (exists ? dev == o.dev && ino == o.ino : path == o.path);
    }
  };
  std::vector<Identity> ids;
  for (const FileArgument& f : files) {
    Identity id;
    struct stat st {};
    if (f.path.empty()) {  // an option not given
      ids.push_back(id);
      continue;
    }
    if (::stat(f.path.c_str(), &st) == 0) {
      id = {true, st.st_dev, st.st_ino, {}};
    } else {
      std::error_code ec;
      const std::filesystem::path absolute = std::filesystem::absolute(f.path, ec).lexically_normal();
      id.path = std::filesystem::weakly_canonical(absolute, ec);  // links in the folders resolved
      if (ec) id.path = absolute;
    }
    ids.push_back(std::move(id));
  }
  for (std::size_t i = 0; i < files.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      if (files[i].path.empty() || files[j].path.empty() || (!files[i].output && !files[j].output)) continue;
      if (!(ids[i] == ids[j])) continue;
      const FileArgument& out = files[i].output ? files[i] : files[j];
      const FileArgument& other = files[i].output ? files[j] : files[i];
      throw UsageError(out.option + " " + out.path.string() + ": the same file as " + other.option + " " +
                       other.path.string() +
                       (other.output ? ": two outputs would overwrite each other"
                                     : ": an output may not overwrite an input of the same "
                                       "command"));
    }
}

AtomicFile::AtomicFile(std::filesystem::path target) : target_(std::move(target)) {
  struct stat old {};
  const bool replacing = check_target(target_, old);
  detail::remove_stale_temporaries(target_);
  detail::install_signal_cleanup();
  const std::filesystem::path dir = directory_of(target_);
  const std::string prefix = detail::temporary_prefix(target_);
  for (unsigned attempt = 0; !fd_; ++attempt) {
    temp_ = dir / (prefix + detail::temporary_suffix());
    // Registered before it exists: a signal between open() and registration cannot leave it.
    slot_ = detail::register_temporary(temp_.string());
    // O_EXCL with a fresh name never reuses or clobbers a file, and fails on any symbolic link;
    // mode 0666 lets the umask decide as for any new file.
    fd_ = FileDescriptor(::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666));
    if (!fd_) {
      const int err = errno;
      detail::unregister_temporary(std::exchange(slot_, -1));
      if (err != EEXIST || attempt >= 100)
        system_error(target_, "cannot create temporary file '" + temp_.string() + "'", err);
    }
  }
  // Held while the file lives: remove_stale_temporaries() leaves a locked temporary alone.
  ::flock(fd_.get(), LOCK_EX | LOCK_NB);
  // Replacing a file keeps its permissions, as editing it in place would.
  if (replacing && ::fchmod(fd_.get(), old.st_mode & 07777) != 0) fail("cannot set permissions", errno);
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : target_(std::move(other.target_)),
      temp_(std::move(other.temp_)),
      fd_(std::move(other.fd_)),
      slot_(std::exchange(other.slot_, -1)),
      synced_(other.synced_),
      committed_(other.committed_),
      done_(std::exchange(other.done_, true)) {}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() noexcept {
  if (done_) return;
  done_ = true;
  fd_ = FileDescriptor();
  ::unlink(temp_.c_str());
  detail::unregister_temporary(std::exchange(slot_, -1));
}

void AtomicFile::fail(const char* what, int err) {
  discard();
  system_error(target_, what, err);
}

void AtomicFile::write(std::span<const std::byte> bytes) {
  if (!write_fully(fd_.get(), bytes)) fail("cannot write", errno);
  synced_ = false;
}

void AtomicFile::sync() {
  // The data must be on disk before the rename makes it visible: otherwise a crash can leave an
  // empty file under the target's name.
  if (::fsync(fd_.get()) != 0) fail("cannot sync", errno);
  synced_ = true;
}

void AtomicFile::commit() {
  if (!synced_) sync();
  // The target is checked again: it may have become a FIFO or a link since the command began.
  struct stat st {};
  try {
    check_target(target_, st);
  } catch (...) {
    discard();
    throw;
  }
  if (::rename(temp_.c_str(), target_.c_str()) != 0) fail("cannot replace", errno);
  detail::unregister_temporary(std::exchange(slot_, -1));
  done_ = committed_ = true;
  // Makes the rename itself durable. Best effort: the new file is already in place, and a
  // directory that cannot be opened or synced is no reason to report the save as failed.
  const FileDescriptor dir(::open(directory_of(target_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir) ::fsync(dir.get());
}

FileDescriptor AtomicFile::take_descriptor() { return committed_ ? std::move(fd_) : FileDescriptor(); }

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  AtomicFile file(path);
  file.write(contents);
  file.commit();
}

}  // namespace ctrl::io
