// Reading and writing .npy files with POSIX calls: errno gives each failure its cause; the file
// module (ctrl/io/files.hpp) opens inputs and makes saves atomic.
#include <ctrl/errors.hpp>
#include <ctrl/io/files.hpp>
#include <ctrl/io/npy.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <limits>
#include <optional>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ctrl::npy {

static_assert(std::endian::native == std::endian::little, "ctrl's .npy I/O assumes a little-endian host");

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
// Far above any header of the supported dtypes (NumPy itself refuses 10000 bytes by default):
// a bigger length field is a corrupt file, not a reason to allocate gigabytes.
constexpr std::size_t kMaxHeaderLength = std::size_t{1} << 20;

[[noreturn]] void usage_error(const std::filesystem::path& path, const std::string& what) {
  throw UsageError(path.string() + ": " + what);
}

[[noreturn]] void system_error(const std::filesystem::path& path, const std::string& what, int err) {
  throw Error(path.string() + ": " + what + ": " + std::generic_category().message(err));
}

// Reads exactly dst.size() bytes at `offset`; false at end of file.
bool read_fully(int fd, std::span<std::byte> dst, std::uint64_t offset, const std::filesystem::path& path) {
  while (!dst.empty()) {
    const ssize_t n = ::pread(fd, dst.data(), dst.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) system_error(path, "cannot read", errno);
    if (n == 0) return false;
    dst = dst.subspan(static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
  return true;
}

// Elements of `shape`, or nullopt when the product does not fit in size_t.
std::optional<std::size_t> element_count(std::span<const std::size_t> shape) {
  std::size_t count = 1;
  for (const std::size_t dim : shape) {
    if (dim != 0 && count > std::numeric_limits<std::size_t>::max() / dim) return std::nullopt;
    count *= dim;
  }
  return count;
}

// An open file whose header has been parsed; the data follows at data_offset.
struct OpenFile {
  io::FileDescriptor fd;
  Header header;
  std::uint64_t data_offset = 0;
  std::uint64_t file_size = 0;
};

OpenFile open_npy(const std::filesystem::path& path) {
  OpenFile file;
  file.fd = io::open_input(path);  // a regular file only: a FIFO would block the reader
  struct stat st {};
  if (::fstat(file.fd.get(), &st) != 0) system_error(path, "cannot stat", errno);
  file.file_size = static_cast<std::uint64_t>(st.st_size);

  // Magic (6), version (2), header length (2 in 1.0, 4 in 2.0 and 3.0).
  std::array<std::byte, 12> prefix{};
  const std::size_t have = static_cast<std::size_t>(std::min<std::uint64_t>(file.file_size, prefix.size()));
  if (!read_fully(file.fd.get(), std::span(prefix).first(have), 0, path)) usage_error(path, "file shrank while read");
  const std::string_view bytes(reinterpret_cast<const char*>(prefix.data()), have);
  if (have == 0) usage_error(path, "not a .npy file (empty)");
  if (bytes.substr(0, kMagic.size()) != kMagic.substr(0, std::min(have, kMagic.size())))
    usage_error(path, "not a .npy file (bad magic)");
  if (have < 8) usage_error(path, "truncated header (file is " + std::to_string(have) + " bytes)");

  const auto major = static_cast<unsigned>(prefix[6]), minor = static_cast<unsigned>(prefix[7]);
  if (major < 1 || major > 3 || minor != 0)
    usage_error(path, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor));
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  if (have < 8 + length_bytes) usage_error(path, "truncated header (file is " + std::to_string(have) + " bytes)");
  std::uint64_t length = 0;
  for (std::size_t i = 0; i < length_bytes; ++i) length |= static_cast<std::uint64_t>(prefix[8 + i]) << (8 * i);

  file.data_offset = 8 + length_bytes + length;
  if (file.data_offset > file.file_size)
    usage_error(path, "header length " + std::to_string(length) + " runs past the end of the file (" +
                          std::to_string(file.file_size) + " bytes)");
  if (length > kMaxHeaderLength) usage_error(path, "header length " + std::to_string(length) + " is implausibly large");

  std::string text(static_cast<std::size_t>(length), '\0');
  if (!read_fully(file.fd.get(), std::as_writable_bytes(std::span(text)), 8 + length_bytes, path))
    usage_error(path, "file shrank while read");
  file.header = detail::parse_header_dict(text, path.string());
  return file;
}

// The data length must be exactly what the shape needs: anything else means a truncated file or
// one that is not what its header says.
void check_data_length(const std::filesystem::path& path, const OpenFile& file, const detail::DtypeInfo& info) {
  const std::uint64_t actual = file.file_size - file.data_offset;
  const std::optional<std::size_t> count = element_count(file.header.shape);
  if (!count || *count > std::numeric_limits<std::size_t>::max() / info.itemsize)
    usage_error(path, "shape " + detail::shape_repr(file.header.shape) + " is too large");
  const std::uint64_t expected = *count * info.itemsize;
  if (actual != expected)
    usage_error(path, std::string(actual < expected ? "truncated data" : "trailing data") + ": " +
                          std::to_string(actual) + " bytes of data, expected " + std::to_string(expected) +
                          " bytes for shape " + detail::shape_repr(file.header.shape) + " of " +
                          detail::describe_dtype(info.descr));
}

}  // namespace

Header read_header(const std::filesystem::path& path) {
  OpenFile file = open_npy(path);
  if (const detail::DtypeInfo* info = detail::find_dtype(file.header.dtype)) check_data_length(path, file, *info);
  return std::move(file.header);
}

namespace detail {

void load_bytes(const std::filesystem::path& path, std::string_view dtype, const Destination& destination) {
  OpenFile file = open_npy(path);
  const std::string& actual = file.header.dtype;
  const DtypeInfo* info = find_dtype(actual);
  if (!info && !actual.empty() && actual[0] == '>')
    usage_error(path, "dtype " + describe_dtype(actual) + " is big-endian; big-endian not supported");
  if (!info) usage_error(path, "unsupported dtype " + describe_dtype(actual) + ", expected " + describe_dtype(dtype));
  if (info->descr != dtype)
    usage_error(path, "dtype is " + describe_dtype(actual) + ", expected " + describe_dtype(dtype));
  if (file.header.fortran_order)
    usage_error(path, "array is in Fortran order (fortran_order: True); only C order is supported");
  check_data_length(path, file, *info);

  const std::size_t count = *element_count(file.header.shape);
  const std::span<std::byte> dst = destination(file.header, count);
  if (dst.size() != count * info->itemsize)
    usage_error(path, "destination holds " + std::to_string(dst.size()) + " bytes, the data is " +
                          std::to_string(count * info->itemsize));
  if (!read_fully(file.fd.get(), dst, file.data_offset, path)) usage_error(path, "file shrank while read");
}

void check_destination(const std::filesystem::path& path, const Header& header, std::size_t count,
                       std::span<const std::size_t> expected_shape, std::size_t buffer_elements) {
  if (!std::equal(header.shape.begin(), header.shape.end(), expected_shape.begin(), expected_shape.end()))
    usage_error(path, "shape is " + shape_repr(header.shape) + ", expected " + shape_repr(expected_shape));
  if (buffer_elements != count)
    usage_error(path, "buffer holds " + std::to_string(buffer_elements) + " elements, shape " +
                          shape_repr(header.shape) + " has " + std::to_string(count));
}

namespace {

// Everything that can be checked about an array to save, before the file system is touched; the
// file's header then.
std::string checked_header(const std::filesystem::path& path, std::string_view dtype, std::span<const std::byte> data,
                           std::span<const std::size_t> shape, Version version) {
  const DtypeInfo* info = find_dtype(dtype);
  if (!info || info->descr != dtype) usage_error(path, "cannot write unsupported dtype '" + std::string(dtype) + "'");
  const std::optional<std::size_t> count = element_count(shape);
  if (!count || *count > std::numeric_limits<std::size_t>::max() / info->itemsize)
    usage_error(path, "shape " + shape_repr(shape) + " is too large");
  if (data.size() != *count * info->itemsize)
    usage_error(path, "shape " + shape_repr(shape) + " needs " + std::to_string(*count) + " elements, data has " +
                          std::to_string(data.size() / info->itemsize));
  try {
    return format_header(info->descr, shape, version);
  } catch (const UsageError& e) {
    usage_error(path, e.what());
  }
}

}  // namespace

void write_bytes(io::AtomicFile& file, std::string_view dtype, std::span<const std::byte> data,
                 std::span<const std::size_t> shape, Version version) {
  file.write(checked_header(file.target(), dtype, data, shape, version));
  file.write(data);
}

void save_bytes(const std::filesystem::path& path, std::string_view dtype, std::span<const std::byte> data,
                std::span<const std::size_t> shape, Version version) {
  const std::string header = checked_header(path, dtype, data, shape, version);
  io::AtomicFile file(path);
  file.write(header);
  file.write(data);
  file.commit();
}

}  // namespace detail

}  // namespace ctrl::npy
