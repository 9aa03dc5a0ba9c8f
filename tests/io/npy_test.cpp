// Tests of ctrl::npy: round trips, files written by NumPy, every malformed file, atomic saves.
#include <ctrl/errors.hpp>
#include <ctrl/io/npy.hpp>

#include "scratch_dir.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include <sys/resource.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
namespace npy = ctrl::npy;
using namespace std::string_literals;
using namespace std::string_view_literals;
using Shape = std::vector<std::size_t>;

// Files written by NumPy 1.24 (np.save; numpy.lib.format.write_array for versions 2.0 and 3.0)
// into an io.BytesIO, split into their parts with the header's run of padding spaces as a count,
// so that the bytes are NumPy's without a binary file in the repository.
struct NumpyFile {
  const char* name;
  std::string_view prefix;  // magic, version, header length
  std::string_view dict;
  std::size_t padding;  // spaces before the final '\n'
  std::string_view data;
  std::string bytes() const {
    return std::string(prefix) + std::string(dict) + std::string(padding, ' ') + "\n" + std::string(data);
  }
};
const NumpyFile kF32_2x3{"f32_2x3", "\223NUMPY\001\000v\000"sv,
                         "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 58,
                         "\000\000\000\000\000\000\200\077\000\000\000@\000\000@@\000\000\200@\000\000\240@"sv};
const NumpyFile kI64_1d{"i64_1d", "\223NUMPY\001\000v\000"sv,
                        "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", 60,
                        "\377\377\377\377\377\377\377\377\000\000\000\000\000\001\000\000"
                        "\000\000\000\000\000\000\000\200"sv};
const NumpyFile kU8_0d{"u8_0d", "\223NUMPY\001\000v\000"sv, "{'descr': '|u1', 'fortran_order': False, 'shape': (), }",
                       62, "\310"sv};
const NumpyFile kF8_0x3{"f8_0x3", "\223NUMPY\001\000v\000"sv,
                        "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 3), }", 58, ""sv};
const NumpyFile kI4_4d{
    "i4_4d", "\223NUMPY\001\000v\000"sv, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 1, 3, 2), }", 52,
    "\000\000\000\000\001\000\000\000\002\000\000\000\003\000\000\000\004\000\000\000\005\000\000\000"
    "\006\000\000\000\007\000\000\000\010\000\000\000\011\000\000\000\012\000\000\000\013\000\000\000"sv};
const NumpyFile kI4_v2{"i4_v2", "\223NUMPY\002\000t\000\000\000"sv,
                       "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }", 56,
                       "\001\000\000\000\002\000\000\000\003\000\000\000\004\000\000\000"sv};
const NumpyFile kF8_v3{"f8_v3", "\223NUMPY\003\000t\000\000\000"sv,
                       "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", 58,
                       "\000\000\000\000\000\000\370\077\000\000\000\000\000\000\002\300"sv};
const NumpyFile kF4_big{"f4_big", "\223NUMPY\001\000v\000"sv,
                        "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }", 58,
                        "\077\200\000\000\077\200\000\000\077\200\000\000\077\200\000\000"sv};
const NumpyFile kF4_fortran{"f4_fortran", "\223NUMPY\001\000v\000"sv,
                            "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 59,
                            "\000\000\000\000\000\000@@\000\000\200\077\000\000\200@\000\000\000@\000\000\240@"sv};

// A .npy file around any dict text (no alignment: readers must not need it).
std::string npy_bytes(std::string_view dict, std::string_view data, int major = 1) {
  std::string out = "\223NUMPY"s + static_cast<char>(major) + '\0';
  const std::size_t length = dict.size() + 1;
  for (std::size_t i = 0; i < (major == 1 ? 2U : 4U); ++i) out += static_cast<char>((length >> (8 * i)) & 0xff);
  return out + std::string(dict) + "\n" + std::string(data);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The message of the exception of exactly kind E that f throws; a test failure otherwise.
template <class E, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    if constexpr (std::is_same_v<E, ctrl::Error>) {
      EXPECT_EQ(dynamic_cast<const ctrl::UsageError*>(&e), nullptr)
          << "an I/O failure is not a UsageError: " << e.what();
    }
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw another exception: " << e.what();
    return {};
  }
  ADD_FAILURE() << "threw nothing";
  return {};
}

class NpyTest : public ::testing::Test {
 protected:
  fs::path write(const std::string& name, std::string_view bytes) const {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
  }
  static std::string read(const fs::path& path) {
    std::ostringstream out;
    out << std::ifstream(path, std::ios::binary).rdbuf();
    return out.str();
  }
  std::size_t entries() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}));
  }

  ctrl::test::ScratchDir dir_{"ctrl-npy"};
};

// ---- round trips --------------------------------------------------------------------------------

template <class T>
T value(std::size_t i) {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_floating_point_v<T>) {
    const std::array<T, 8> special{L::lowest(),   L::max(),       L::denorm_min(), T(-0.0),
                                   L::infinity(), L::quiet_NaN(), T(1.5),          T(-2.25)};
    return i < special.size() ? special[i] : static_cast<T>(static_cast<double>(i) * 0.37);
  } else {
    const std::array<T, 4> special{L::min(), L::max(), T(0), T(1)};
    return i < special.size() ? special[i] : static_cast<T>(i * 97 + 13);
  }
}

template <class T>
class NpyRoundTrip : public NpyTest {};
using ElementTypes = ::testing::Types<float, double, std::int32_t, std::int64_t, std::uint8_t, std::int8_t,
                                      std::int16_t, std::uint16_t, std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(NpyRoundTrip, ElementTypes);

TYPED_TEST(NpyRoundTrip, EveryShapeFrom0DTo5D) {
  using T = TypeParam;
  const std::vector<Shape> shapes{{},        {1},       {7},          {0},          {3, 5},       {4, 0},
                                  {2, 3, 4}, {3, 0, 2}, {2, 1, 3, 5}, {1, 7, 1, 3}, {0, 2, 2, 2}, {3, 1, 2, 1, 2}};
  for (const Shape& shape : shapes) {
    SCOPED_TRACE(npy::detail::shape_repr(shape));
    std::size_t count = 1;
    for (std::size_t d : shape) count *= d;
    std::vector<T> data(count);
    for (std::size_t i = 0; i < count; ++i) data[i] = value<T>(i);
    const fs::path path = this->dir_ / "a.npy";
    npy::save<T>(path, data, shape);

    const npy::Array<T> back = npy::load<T>(path);
    EXPECT_EQ(back.shape, shape);
    ASSERT_EQ(back.data.size(), count);
    const auto bytes = [](const std::vector<T>& v) { return std::as_bytes(std::span(v)); };
    EXPECT_TRUE(std::ranges::equal(bytes(back.data), bytes(data)));  // bitwise: NaN, -0.0
    const npy::Header header = npy::read_header(path);
    EXPECT_EQ(header.dtype, npy::dtype_v<T>);
    EXPECT_FALSE(header.fortran_order);
    EXPECT_EQ((fs::file_size(path) - count * sizeof(T)) % 64, 0U) << "data must start 64-byte aligned";
  }
  EXPECT_EQ(this->entries(), 1U) << "no temporary files left behind";
}

TEST_F(NpyTest, SaveOverloadsAndLoadInto) {
  const std::vector<double> data{1, 2, 3, 4, 5, 6};
  npy::save<double>(dir_ / "a.npy", data, {3, 2});
  npy::save(dir_ / "b.npy", npy::Array<double>{{2, 3}, data});
  EXPECT_EQ(npy::load<double>(dir_ / "a.npy").shape, (Shape{3, 2}));

  std::array<double, 6> buffer{};
  const std::array<std::size_t, 2> shape{2, 3};
  npy::load_into<double>(dir_ / "b.npy", buffer, shape);
  EXPECT_TRUE(std::equal(buffer.begin(), buffer.end(), data.begin()));
}

TEST_F(NpyTest, LoadIntoChecksShapeAndBufferBeforeReading) {
  npy::save<float>(dir_ / "a.npy", std::vector<float>(6, 1.0f), {2, 3});
  std::array<float, 6> buffer{};
  const std::array<std::size_t, 2> transposed{3, 2};
  const std::string path = (dir_ / "a.npy").string();
  EXPECT_EQ(message_of<ctrl::UsageError>([&] { npy::load_into<float>(path, buffer, transposed); }),
            path + ": shape is (2, 3), expected (3, 2)");
  EXPECT_EQ(buffer[0], 0.0f) << "nothing is read into the buffer";
  const std::array<std::size_t, 2> shape{2, 3};
  EXPECT_PRED2(contains, message_of<ctrl::UsageError>([&] {
                 npy::load_into<float>(path, std::span<float>(buffer).first(5), shape);
               }),
               path + ": buffer holds 5 elements, shape (2, 3) has 6");
}

// ---- compatibility with NumPy -------------------------------------------------------------------

TEST_F(NpyTest, ReadsFilesWrittenByNumpy) {
  const auto f32 = npy::load<float>(write("a.npy", kF32_2x3.bytes()));
  EXPECT_EQ(f32.shape, (Shape{2, 3}));
  EXPECT_EQ(f32.data, (std::vector<float>{0, 1, 2, 3, 4, 5}));

  const auto i64 = npy::load<std::int64_t>(write("b.npy", kI64_1d.bytes()));
  EXPECT_EQ(i64.shape, (Shape{3}));
  EXPECT_EQ(i64.data, (std::vector<std::int64_t>{-1, std::int64_t{1} << 40, std::numeric_limits<std::int64_t>::min()}));

  const auto u8 = npy::load<std::uint8_t>(write("c.npy", kU8_0d.bytes()));
  EXPECT_EQ(u8.shape, Shape{});
  EXPECT_EQ(u8.data, std::vector<std::uint8_t>{200});

  const auto empty = npy::load<double>(write("d.npy", kF8_0x3.bytes()));
  EXPECT_EQ(empty.shape, (Shape{0, 3}));
  EXPECT_TRUE(empty.data.empty());

  const auto i4 = npy::load<std::int32_t>(write("e.npy", kI4_4d.bytes()));
  EXPECT_EQ(i4.shape, (Shape{2, 1, 3, 2}));
  EXPECT_EQ(i4.data, (std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
}

TEST_F(NpyTest, ReadsVersions2And3) {
  const auto v2 = npy::load<std::int32_t>(write("a.npy", kI4_v2.bytes()));
  EXPECT_EQ(v2.shape, (Shape{2, 2}));
  EXPECT_EQ(v2.data, (std::vector<std::int32_t>{1, 2, 3, 4}));
  const auto v3 = npy::load<double>(write("b.npy", kF8_v3.bytes()));
  EXPECT_EQ(v3.shape, (Shape{2}));
  EXPECT_EQ(v3.data, (std::vector<double>{1.5, -2.25}));
}

TEST_F(NpyTest, WritesTheSameBytesAsNumpy) {
  npy::save<float>(dir_ / "a.npy", std::vector<float>{0, 1, 2, 3, 4, 5}, {2, 3});
  EXPECT_EQ(read(dir_ / "a.npy"), kF32_2x3.bytes());
  npy::save<std::int64_t>(dir_ / "b.npy", npy::load<std::int64_t>(write("b0.npy", kI64_1d.bytes())).data, {3});
  EXPECT_EQ(read(dir_ / "b.npy"), kI64_1d.bytes());
  npy::save<std::uint8_t>(dir_ / "c.npy", std::vector<std::uint8_t>{200}, {});
  EXPECT_EQ(read(dir_ / "c.npy"), kU8_0d.bytes());
  npy::save<double>(dir_ / "d.npy", std::vector<double>{}, {0, 3});
  EXPECT_EQ(read(dir_ / "d.npy"), kF8_0x3.bytes());
  npy::save<std::int32_t>(dir_ / "e.npy", std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
                          {2, 1, 3, 2});
  EXPECT_EQ(read(dir_ / "e.npy"), kI4_4d.bytes());
  npy::save<std::int32_t>(dir_ / "f.npy", std::vector<std::int32_t>{1, 2, 3, 4}, {2, 2}, npy::Version::v2);
  EXPECT_EQ(read(dir_ / "f.npy"), kI4_v2.bytes());
}

TEST_F(NpyTest, SwitchesToVersion2WhenTheHeaderOutgrowsVersion1) {
  const Shape shape(30000, 1);  // "1, " per axis: a header past 65535 bytes
  npy::save<std::uint8_t>(dir_ / "a.npy", std::vector<std::uint8_t>{7}, shape);
  EXPECT_EQ(read(dir_ / "a.npy")[6], '\2');
  const auto back = npy::load<std::uint8_t>(dir_ / "a.npy");
  EXPECT_EQ(back.shape, shape);
  EXPECT_EQ(back.data, std::vector<std::uint8_t>{7});
  EXPECT_PRED2(contains, message_of<ctrl::UsageError>([&] {
                 npy::save<std::uint8_t>(dir_ / "b.npy", std::vector<std::uint8_t>{7}, shape, npy::Version::v1);
               }),
               "too long for format version 1.0");
}

// Older NumPy aligned to 16 bytes without growth padding, Python 2 wrote "3L"; other writers use
// double quotes, other key orders, other whitespace. All are the same dict.
TEST_F(NpyTest, HeaderDictToleratesWhatPythonAllows) {
  const std::vector<std::string> dicts{
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }      ",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }",
      "{\"shape\": (2, 3), \"descr\": \"<f4\", \"fortran_order\": False}",
      "{ 'fortran_order' :False ,'shape':( 2 ,3 , ) ,'descr':'<f4' , }",
      "\t{'descr':\t'<f4',\n 'fortran_order': False,\r\n 'shape': (2,3)}  ",
  };
  for (const std::string& dict : dicts) {
    SCOPED_TRACE(dict);
    const auto array = npy::load<float>(write("a.npy", npy_bytes(dict, std::string(24, '\0'))));
    EXPECT_EQ(array.shape, (Shape{2, 3}));
  }
  const npy::Header header =
      npy::detail::parse_header_dict("{'descr': '|u1', 'fortran_order': True, 'shape': (0,)}", "x");
  EXPECT_EQ(header.dtype, "|u1");
  EXPECT_TRUE(header.fortran_order);
  EXPECT_EQ(header.shape, (Shape{0}));
}

TEST_F(NpyTest, HeaderDictRejectsEverythingElse) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"{'descr': '<f4', 'fortran_order': False}", "header has no 'shape' key"},
      {"{'descr': '<f4', 'shape': (2,)}", "header has no 'fortran_order' key"},
      {"{'fortran_order': False, 'shape': (2,)}", "header has no 'descr' key"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", "unexpected key 'extra'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", "key 'descr' appears twice"},
      {"{'descr' '<f4', 'fortran_order': False, 'shape': (2,)}", "at offset 9: expected ':'"},
      {"{'descr': '<f4' 'fortran_order': False, 'shape': (2,)}", "expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': false, 'shape': (2,)}", "expected True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2)}", "a 1-D shape is written (n,)"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3]}", "expected a tuple for 'shape'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3)}", "non-negative integer"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,, 3)}", "non-negative integer"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,)}", "dimension is too large"},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}", "structured dtypes"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}", "expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", "expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x", "unexpected text after the closing '}'"},
      {"['descr', '<f4']", "at offset 0: expected '{'"},
      {"", "expected '{'"},
  };
  for (const auto& [dict, error] : cases) {
    SCOPED_TRACE(dict);
    const fs::path path = write("a.npy", npy_bytes(dict, std::string(8, '\0')));
    const std::string message = message_of<ctrl::UsageError>([&] { npy::read_header(path); });
    EXPECT_PRED2(contains, message, path.string() + ": ");
    EXPECT_PRED2(contains, message, error);
  }
}

// ---- malformed files ----------------------------------------------------------------------------

TEST_F(NpyTest, RejectsFilesThatAreNotNpy) {
  const auto error = [&](std::string_view bytes) {
    const fs::path path = write("a.npy", bytes);
    const std::string message = message_of<ctrl::UsageError>([&] { npy::load<float>(path); });
    EXPECT_PRED2(contains, message, path.string() + ": ");
    return message.substr(path.string().size() + 2);
  };
  EXPECT_EQ(error("PK\3\4 a zip file, not .npy"), "not a .npy file (bad magic)");
  EXPECT_EQ(error("\223NUMPz\1\0"sv), "not a .npy file (bad magic)");
  EXPECT_EQ(error(""), "not a .npy file (empty)");
  EXPECT_EQ(error("\223NUM"sv), "truncated header (file is 4 bytes)");
  EXPECT_EQ(error("\223NUMPY\1\0\100"sv), "truncated header (file is 9 bytes)");
  EXPECT_EQ(error("\223NUMPY\2\0\1\0\0"sv), "truncated header (file is 11 bytes)");
  EXPECT_EQ(error("\223NUMPY\1\0\200\0{'descr': '<f4', 'fortran_order': False, 'shape': (), }\n"sv),
            "header length 128 runs past the end of the file (66 bytes)");
  EXPECT_EQ(error("\223NUMPY\4\0\0\0\0\0"sv), "unsupported .npy format version 4.0");
  EXPECT_EQ(error("\223NUMPY\1\1\0\0"sv), "unsupported .npy format version 1.1");
}

TEST_F(NpyTest, RejectsOtherDtypesByName) {
  const fs::path f8 =
      write("a.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", "12345678"));
  EXPECT_EQ(message_of<ctrl::UsageError>([&] { npy::load<float>(f8); }),
            f8.string() + ": dtype is '<f8' (float64), expected '<f4' (float32)");
  EXPECT_EQ(message_of<ctrl::UsageError>([&] { npy::load<std::int64_t>(f8); }),
            f8.string() + ": dtype is '<f8' (float64), expected '<i8' (int64)");

  const fs::path c8 =
      write("b.npy", npy_bytes("{'descr': '<U2', 'fortran_order': False, 'shape': (1,), }", "12345678"));
  EXPECT_EQ(message_of<ctrl::UsageError>([&] { npy::load<float>(c8); }),
            c8.string() + ": unsupported dtype '<U2', expected '<f4' (float32)");
  EXPECT_EQ(npy::read_header(c8).dtype, "<U2") << "read_header reports any dtype";
  const fs::path c64 =
      write("c.npy", npy_bytes("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", "12345678"));
  EXPECT_EQ(message_of<ctrl::UsageError>([&] { npy::load<float>(c64); }),
            c64.string() + ": dtype is '<c8' (complex64), expected '<f4' (float32)");

  const fs::path big = write("c.npy", kF4_big.bytes());
  EXPECT_EQ(message_of<ctrl::UsageError>([&] { npy::load<float>(big); }),
            big.string() + ": dtype '>f4' is big-endian; big-endian not supported");

  // One byte has no byte order, and '=' is the (little-endian) host's.
  const auto u1 = npy::load<std::uint8_t>(
      write("d.npy", npy_bytes("{'descr': '<u1', 'fortran_order': False, 'shape': (2,)}", "ab")));
  EXPECT_EQ(u1.data, (std::vector<std::uint8_t>{'a', 'b'}));
  const fs::path native =
      write("e.npy", npy_bytes("{'descr': '=i4', 'fortran_order': False, 'shape': ()}", "\1\0\0\0"sv));
  EXPECT_EQ(npy::load<std::int32_t>(native).data, std::vector<std::int32_t>{1});
}

TEST_F(NpyTest, RejectsFortranOrder) {
  const fs::path path = write("a.npy", kF4_fortran.bytes());
  EXPECT_EQ(message_of<ctrl::UsageError>([&] { npy::load<float>(path); }),
            path.string() + ": array is in Fortran order (fortran_order: True); only C order is supported");
  EXPECT_TRUE(npy::read_header(path).fortran_order);
}

TEST_F(NpyTest, RejectsDataOfTheWrongLength) {
  const std::string whole = kF32_2x3.bytes();
  const fs::path truncated = write("a.npy", std::string_view(whole).substr(0, whole.size() - 3));
  EXPECT_EQ(
      message_of<ctrl::UsageError>([&] { npy::load<float>(truncated); }),
      truncated.string() + ": truncated data: 21 bytes of data, expected 24 bytes for shape (2, 3) of '<f4' (float32)");
  EXPECT_PRED2(contains, message_of<ctrl::UsageError>([&] { npy::read_header(truncated); }), "truncated data");

  const fs::path trailing = write("b.npy", whole + "x");
  EXPECT_EQ(
      message_of<ctrl::UsageError>([&] { npy::load<float>(trailing); }),
      trailing.string() + ": trailing data: 25 bytes of data, expected 24 bytes for shape (2, 3) of '<f4' (float32)");

  const fs::path huge =
      write("c.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296)}", ""));
  EXPECT_EQ(message_of<ctrl::UsageError>([&] { npy::load<double>(huge); }),
            huge.string() + ": shape (4294967296, 4294967296) is too large");
}

TEST_F(NpyTest, RejectsMissingFilesAndDirectories) {
  EXPECT_EQ(message_of<ctrl::UsageError>([&] { npy::load<float>(dir_ / "none.npy"); }),
            (dir_ / "none.npy").string() + ": no such file");
  EXPECT_EQ(message_of<ctrl::UsageError>([&] { npy::read_header(dir_ / "none" / "a.npy"); }),
            (dir_ / "none" / "a.npy").string() + ": no such file");
  EXPECT_EQ(message_of<ctrl::UsageError>([&] { npy::read_header(dir_); }),
            dir_.string() + ": a directory, not a regular file");
}

// ---- atomic saves -------------------------------------------------------------------------------

TEST_F(NpyTest, SaveChecksSizeBeforeTouchingTheFile) {
  const fs::path path = write("a.npy", kF32_2x3.bytes());
  EXPECT_EQ(message_of<ctrl::UsageError>([&] {
              npy::save<float>(path, std::vector<float>(5), {2, 3});
            }),
            path.string() + ": shape (2, 3) needs 6 elements, data has 5");
  EXPECT_EQ(read(path), kF32_2x3.bytes());
  EXPECT_EQ(entries(), 1U);
}

// A write that fails half way (here: the file size limit) leaves the old file and no temporary.
TEST_F(NpyTest, FailedWriteLeavesTheExistingFile) {
  const fs::path path = write("a.npy", kF32_2x3.bytes());
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // get EFBIG rather than the signal
  rlimit small = old;
  small.rlim_cur = 1000;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const std::string message =
      message_of<ctrl::Error>([&] { npy::save<double>(path, std::vector<double>(1000, 1.0), {1000}); });
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);

  EXPECT_EQ(message, path.string() + ": cannot write: " + std::strerror(EFBIG));
  EXPECT_EQ(read(path), kF32_2x3.bytes());
  EXPECT_EQ(entries(), 1U);
}

TEST_F(NpyTest, SaveIntoMissingDirectoryIsAnIoError) {
  const fs::path path = dir_ / "none" / "a.npy";
  const std::string message = message_of<ctrl::Error>([&] { npy::save<float>(path, std::vector<float>{1}, {1}); });
  EXPECT_PRED2(contains, message, path.string() + ": cannot create temporary file");
  EXPECT_PRED2(contains, message, std::strerror(ENOENT));
}

TEST_F(NpyTest, SaveIntoReadOnlyDirectoryLeavesTheExistingFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only directories";
  const fs::path path = write("a.npy", kF32_2x3.bytes());
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
  const std::string message = message_of<ctrl::Error>([&] { npy::save<float>(path, std::vector<float>{1}, {1}); });
  EXPECT_PRED2(contains, message, std::strerror(EACCES));
  EXPECT_EQ(read(path), kF32_2x3.bytes());
}

TEST_F(NpyTest, SaveReplacesTheFileAndKeepsItsPermissions) {
  const fs::path path = write("a.npy", "old contents");
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  npy::save<float>(path, std::vector<float>{0, 1, 2, 3, 4, 5}, {2, 3});
  EXPECT_EQ(read(path), kF32_2x3.bytes());
  EXPECT_EQ(fs::status(path).permissions(), fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(entries(), 1U);
}

}  // namespace
