// NumPy .npy files: the case-study programs read their inputs and write their results in this
// format so that they can be checked with NumPy. Format versions 1.0 and 2.0 are read and
// written, 3.0 is read; only little-endian, C-order arrays of the element types below.
//
// Every malformed or mismatching file throws ctrl::UsageError "<path>: <what is wrong>"; failing
// system calls throw ctrl::Error "<path>: <what failed>: <strerror>".
#pragma once

#include <ctrl/io/files.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ctrl::npy {

// What a file's header says.
struct Header {
  std::string dtype;  // the 'descr' as written in the file, e.g. "<f4"
  bool fortran_order = false;
  std::vector<std::size_t> shape;  // empty for a 0-D array (a single element)
};

// A whole array, elements in C order.
template <class T>
struct Array {
  std::vector<std::size_t> shape;
  std::vector<T> data;
};

// Which header version save() writes. automatic does what NumPy does: 1.0 unless the header is
// too long for its 16-bit length field, then 2.0.
enum class Version { automatic, v1, v2 };

// The element types and their dtype strings. The typed API only reads a file whose dtype is
// exactly the one of T: there is no conversion.
template <class T>
struct dtype_of;  // left undefined: T is not a supported element type
template <>
struct dtype_of<float> {
  static constexpr std::string_view value = "<f4";
};
template <>
struct dtype_of<double> {
  static constexpr std::string_view value = "<f8";
};
template <>
struct dtype_of<std::int8_t> {
  static constexpr std::string_view value = "|i1";
};
template <>
struct dtype_of<std::int16_t> {
  static constexpr std::string_view value = "<i2";
};
template <>
struct dtype_of<std::int32_t> {
  static constexpr std::string_view value = "<i4";
};
template <>
struct dtype_of<std::int64_t> {
  static constexpr std::string_view value = "<i8";
};
template <>
struct dtype_of<std::uint8_t> {
  static constexpr std::string_view value = "|u1";
};
template <>
struct dtype_of<std::uint16_t> {
  static constexpr std::string_view value = "<u2";
};
template <>
struct dtype_of<std::uint32_t> {
  static constexpr std::string_view value = "<u4";
};
template <>
struct dtype_of<std::uint64_t> {
  static constexpr std::string_view value = "<u8";
};

template <class T>
concept Element = requires {
  { dtype_of<T>::value } -> std::convertible_to<std::string_view>;
}
&&sizeof(T) == static_cast<std::size_t>(dtype_of<T>::value.back() - '0');

template <Element T>
inline constexpr std::string_view dtype_v = dtype_of<T>::value;

// Reads and checks the header only. Also checks the data length when the dtype is one of the
// supported ones; other dtypes (big-endian, complex, ...) are returned as they are.
Header read_header(const std::filesystem::path& path);

// ---- the non-template work behind the templates ------------------------------------------------
namespace detail {

struct DtypeInfo {
  std::string_view descr;  // canonical spelling, as NumPy writes it
  std::string_view name;   // NumPy's name, for messages: "float32"
  std::size_t itemsize;
};

// The supported dtype that `descr` spells, or nullptr. '=' (native) is taken as '<', and the byte
// order of a one-byte type is ignored ('<u1', '=u1' are '|u1').
const DtypeInfo* find_dtype(std::string_view descr);

// "'<f4' (float32)" for a supported dtype, "'<c8'" for any other.
std::string describe_dtype(std::string_view descr);

// Python's repr of the shape tuple: "()", "(3,)", "(2, 3)".
std::string shape_repr(std::span<const std::size_t> shape);

// Parses the header's Python-literal dict; error messages start with "<where>: ".
Header parse_header_dict(std::string_view text, const std::string& where);

// Magic, version, header length and padded dict, byte for byte as NumPy's np.save writes them.
std::string format_header(std::string_view descr, std::span<const std::size_t> shape, Version version);

// Called by load_bytes with the checked header and its element count; returns where the data
// goes, exactly count × itemsize bytes.
using Destination = std::function<std::span<std::byte>(const Header& header, std::size_t count)>;

// Opens `path`, checks that it holds a C-order array of exactly `dtype` whose data length matches
// its shape, and reads the data into what `destination` returns.
void load_bytes(const std::filesystem::path& path, std::string_view dtype, const Destination& destination);

// For load_into: throws UsageError unless the file's shape is `expected_shape` and the caller's
// buffer holds exactly `count` elements.
void check_destination(const std::filesystem::path& path, const Header& header, std::size_t count,
                       std::span<const std::size_t> expected_shape, std::size_t buffer_elements);

// Checks `data` against `shape`, then writes header and data into `file`, uncommitted.
void write_bytes(io::AtomicFile& file, std::string_view dtype, std::span<const std::byte> data,
                 std::span<const std::size_t> shape, Version version);

// Checks `data` against `shape`, then writes the file atomically.
void save_bytes(const std::filesystem::path& path, std::string_view dtype, std::span<const std::byte> data,
                std::span<const std::size_t> shape, Version version);

}  // namespace detail

// ---- typed API ---------------------------------------------------------------------------------

// Reads a whole array whose dtype must be dtype_v<T>.
template <Element T>
Array<T> load(const std::filesystem::path& path) {
  Array<T> array;
  detail::load_bytes(path, dtype_v<T>, [&array](const Header& header, std::size_t count) {
    array.shape = header.shape;
    array.data.resize(count);
    return std::as_writable_bytes(std::span<T>(array.data));
  });
  return array;
}

// Reads into a caller's buffer. The file's shape must be `expected_shape` and `dst` must hold
// exactly that many elements; both are checked before any data is read.
template <Element T>
void load_into(const std::filesystem::path& path, std::span<T> dst, std::span<const std::size_t> expected_shape) {
  detail::load_bytes(path, dtype_v<T>, [&](const Header& header, std::size_t count) {
    detail::check_destination(path, header, count, expected_shape, dst.size());
    return std::as_writable_bytes(dst);
  });
}

// Writes `data` (C order) with `shape`, atomically (io::AtomicFile): the data goes to a temporary
// file in the same directory which is synced and then renamed over `path`, so `path` is either the
// old file or the complete new one. A data size that does not match the shape throws before
// anything is written; a `path` that is not a regular file (a FIFO, /dev/null, a symbolic link)
// is refused with UsageError.
template <Element T>
void save(const std::filesystem::path& path, std::span<const T> data, std::span<const std::size_t> shape,
          Version version = Version::automatic) {
  detail::save_bytes(path, dtype_v<T>, std::as_bytes(data), shape, version);
}

template <Element T>
void save(const std::filesystem::path& path, std::span<const T> data, std::initializer_list<std::size_t> shape,
          Version version = Version::automatic) {
  detail::save_bytes(path, dtype_v<T>, std::as_bytes(data), std::span<const std::size_t>(shape.begin(), shape.size()),
                     version);
}

template <Element T>
void save(const std::filesystem::path& path, const Array<T>& array, Version version = Version::automatic) {
  save<T>(path, std::span<const T>(array.data), std::span<const std::size_t>(array.shape), version);
}

// Writes the array into `file` without committing it: several files are written, then committed
// together, so that a failure while writing any leaves every target untouched.
template <Element T>
void write(io::AtomicFile& file, std::span<const T> data, std::span<const std::size_t> shape,
           Version version = Version::automatic) {
  detail::write_bytes(file, dtype_v<T>, std::as_bytes(data), shape, version);
}

}  // namespace ctrl::npy
