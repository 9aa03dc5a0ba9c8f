// A whole .npy file as the case studies read it: magic, version, header length, dict, data.
// Oracle: a malformed or mismatching file throws ctrl::Error (UsageError for bad content) and
// nothing else; a float32 file that loads has exactly as many elements as its shape says.
#include "input_file.hpp"

#include <ctrl/errors.hpp>
#include <ctrl/io/npy.hpp>

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace npy = ctrl::npy;
  static ctrl::fuzz::InputFile file("npy_file");
  const std::string& path = file.write(data, size);
  try {
    (void)npy::read_header(path);
  } catch (const ctrl::UsageError&) {
  }
  try {
    const npy::Array<float> a = npy::load<float>(path);
    std::size_t count = 1;
    for (const std::size_t d : a.shape) count *= d;
    if (a.data.size() != count) ctrl::fuzz::fail("load<float> returned a size that differs from its shape");
  } catch (const ctrl::UsageError&) {
  }
  try {
    (void)npy::load<std::uint8_t>(path);  // the one-byte types take another path through the dtype table
  } catch (const ctrl::UsageError&) {
  }
  return 0;
}
