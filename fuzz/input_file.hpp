// The bytes of one fuzz input as a file, for the parsers whose public entry point takes a path.
// A memfd reached through /proc/self/fd: no disk traffic and nothing to clean up, and opening the
// path gives a fresh regular file at offset 0, as a file on disk would.
#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace ctrl::fuzz {

class InputFile {
 public:
  explicit InputFile(const char* name) : fd_(::memfd_create(name, MFD_CLOEXEC)) {
    if (fd_ < 0) {
      std::perror("memfd_create");
      std::abort();
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // Replaces the file's contents with these bytes; returns its path.
  const std::string& write(const std::uint8_t* data, std::size_t size) {
    if (::ftruncate(fd_, 0) != 0 || (size > 0 && ::pwrite(fd_, data, size, 0) != static_cast<ssize_t>(size))) {
      std::perror("InputFile::write");
      std::abort();
    }
    return path_;
  }
  const std::string& write(const std::string& text) {
    return write(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
  }

 private:
  int fd_;
  std::string path_;
};

// Where an oracle fails: a message libFuzzer's log keeps, then a crash it records.
[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz oracle: %s\n", what.c_str());
  std::abort();
}

}  // namespace ctrl::fuzz
