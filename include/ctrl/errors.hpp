// ctrl's exceptions. Every message names what was wrong and where (tile, controller, file, line).
#pragma once
#include <stdexcept>
#include <string>

namespace ctrl {

// Base of every error ctrl throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Misuse of the API or bad input: wrong tile, wrong controller, bad shapes, malformed files.
class UsageError : public Error {
 public:
  using Error::Error;
};

// A device failed or is absent: out of memory, no such device, a failed transfer.
class DeviceError : public Error {
 public:
  using Error::Error;
};

// A kernel body threw; carries the controller and launch that failed. The original exception is
// nested (std::rethrow_if_nested) so callers can still inspect it.
class KernelError : public Error {
 public:
  using Error::Error;
};

}  // namespace ctrl
