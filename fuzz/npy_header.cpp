// The .npy header dict (the Python literal after the magic and length): parse_header_dict.
// Oracle: malformed text throws UsageError and nothing else; a dict of a dtype that npy::save
// writes is written back by format_header (as save writes it) and reads back as the same dtype
// and shape. (Other dtypes are never written: save refuses them, so any text may be in them.)
#include "input_file.hpp"

#include <ctrl/errors.hpp>
#include <ctrl/io/npy.hpp>

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace npy = ctrl::npy;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  npy::Header header;
  try {
    header = npy::detail::parse_header_dict(text, "fuzz.npy");
  } catch (const ctrl::UsageError&) {
    return 0;
  }
  const npy::detail::DtypeInfo* info = npy::detail::find_dtype(header.dtype);
  if (info == nullptr || info->descr != header.dtype) return 0;
  std::string written;
  try {
    written = npy::detail::format_header(header.dtype, header.shape, npy::Version::automatic);
  } catch (const ctrl::UsageError&) {
    return 0;  // a header too long for any format version: refused before anything is written
  }
  // Magic (6), version (2), then a 2-byte (1.0) or 4-byte (2.0) length, then the padded dict.
  const std::size_t dict_at = 8 + (written[6] == 1 ? 2 : 4);
  const npy::Header back = npy::detail::parse_header_dict(std::string_view(written).substr(dict_at), "written");
  if (back.dtype != header.dtype || back.shape != header.shape || back.fortran_order)
    ctrl::fuzz::fail("format_header wrote a header that reads back differently");
  return 0;
}
