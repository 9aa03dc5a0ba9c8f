// The .npy header: the dtype table, the parser of the header's Python-literal dict, and the
// writer of headers laid out exactly as NumPy's np.save lays them out.
//
// The dict is parsed by a small strict parser rather than anything eval-like: the grammar NumPy
// writes is tiny, and every departure from it is reported with its offset.
#include <ctrl/errors.hpp>
#include <ctrl/io/npy.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <optional>

namespace ctrl::npy::detail {

namespace {

constexpr std::array<DtypeInfo, 12> kDtypes{{
    {"<f4", "float32", 4},
    {"<f8", "float64", 8},
    {"|i1", "int8", 1},
    {"<i2", "int16", 2},
    {"<i4", "int32", 4},
    {"<i8", "int64", 8},
    {"|u1", "uint8", 1},
    {"<u2", "uint16", 2},
    {"<u4", "uint32", 4},
    {"<u8", "uint64", 8},
    {"<c8", "complex64", 8},  // written by `ctrl run --output` for fft2d; no typed API
    {"<c16", "complex128", 16},
}};

// NumPy's layout constants (numpy/lib/format.py): the header is padded so that the data starts
// on a 64-byte boundary, after room for the first axis to grow to 21 digits in place.
constexpr std::size_t kArrayAlign = 64;
constexpr std::size_t kGrowthAxisMaxDigits = 21;
constexpr std::string_view kMagic = "\x93NUMPY";

// A recursive-descent parser over the dict text. Whitespace is what Python allows between tokens.
class DictParser {
 public:
  DictParser(std::string_view text, const std::string& where) : text_(text), where_(where) {}

  Header parse() {
    skip_space();
    expect('{');
    bool seen_descr = false, seen_order = false, seen_shape = false;
    Header header;
    skip_space();
    while (peek() != '}') {
      const std::size_t key_at = pos_;
      const std::string key = parse_string("a key string");
      skip_space();
      expect(':');
      skip_space();
      if (key == "descr") {
        once(seen_descr, key, key_at);
        if (peek() == '[') fail("structured dtypes (a list 'descr') are not supported");
        header.dtype = parse_string("a dtype string for 'descr'");
      } else if (key == "fortran_order") {
        once(seen_order, key, key_at);
        header.fortran_order = parse_bool();
      } else if (key == "shape") {
        once(seen_shape, key, key_at);
        header.shape = parse_shape();
      } else {
        fail_at(key_at, "unexpected key '" + key + "' (only 'descr', 'fortran_order', 'shape')");
      }
      skip_space();
      if (peek() == ',') {  // a trailing comma before '}' is allowed, as in Python
        ++pos_;
        skip_space();
      } else if (peek() != '}') {
        fail("expected ',' or '}'");
      }
    }
    ++pos_;
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the closing '}'");
    if (!seen_descr) missing("descr");
    if (!seen_order) missing("fortran_order");
    if (!seen_shape) missing("shape");
    return header;
  }

 private:
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }

  // A plain Python string: '...' or "...", no prefix, no escapes (no dtype needs one).
  std::string parse_string(const char* what) {
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail(std::string("expected ") + what);
    const std::size_t start = ++pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' || text_[pos_] == '\n') fail("escapes and line breaks in strings are not supported");
      ++pos_;
    }
    if (pos_ == text_.size()) fail_at(start - 1, "unterminated string");
    ++pos_;
    return std::string(text_.substr(start, pos_ - start - 1));
  }

  bool parse_bool() {
    for (const bool value : {true, false}) {
      const std::string_view word = value ? "True" : "False";
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return value;
      }
    }
    fail("expected True or False for 'fortran_order'");
  }

  // A tuple of non-negative ints: "()", "(3,)", "(2, 3)", "(2, 3,)". "(3)" is an int in Python,
  // not a tuple, so it is rejected as NumPy rejects it.
  std::vector<std::size_t> parse_shape() {
    if (peek() != '(') fail("expected a tuple for 'shape', e.g. (2, 3)");
    ++pos_;
    std::vector<std::size_t> shape;
    bool comma = false;
    skip_space();
    while (peek() != ')') {
      shape.push_back(parse_dim());
      skip_space();
      comma = peek() == ',';
      if (comma) {
        ++pos_;
        skip_space();
      } else if (peek() != ')') {
        fail("expected ',' or ')' in 'shape'");
      }
    }
    if (shape.size() == 1 && !comma) fail("'shape' (n) is an int, not a tuple: a 1-D shape is written (n,)");
    ++pos_;
    return shape;
  }

  std::size_t parse_dim() {
    const std::size_t start = pos_;
    std::size_t value = 0;
    while (peek() >= '0' && peek() <= '9') {
      const auto digit = static_cast<std::size_t>(peek() - '0');
      if (value > (std::numeric_limits<std::size_t>::max() - digit) / 10) fail_at(start, "dimension is too large");
      value = value * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) fail("expected a non-negative integer dimension in 'shape'");
    if (text_[start] == '0' && pos_ - start > 1) fail_at(start, "dimension has a leading zero");
    if (peek() == 'L') ++pos_;  // Python 2's NumPy wrote longs as "3L"
    return value;
  }

  void once(bool& seen, const std::string& key, std::size_t at) {
    if (seen) fail_at(at, "key '" + key + "' appears twice");
    seen = true;
  }

  [[noreturn]] void missing(const char* key) const {
    throw UsageError(where_ + ": header has no '" + key + "' key: " + excerpt());
  }

  [[noreturn]] void fail(const std::string& what) const { fail_at(pos_, what); }

  [[noreturn]] void fail_at(std::size_t at, const std::string& what) const {
    throw UsageError(where_ + ": malformed header dict at offset " + std::to_string(at) + ": " + what + ": " +
                     excerpt());
  }

  // The dict as it stands in the file, trimmed, without its padding; cut if long.
  std::string excerpt() const {
    std::string_view text = text_;
    while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.remove_suffix(1);
    constexpr std::size_t kMax = 120;
    return text.size() <= kMax ? std::string(text) : std::string(text.substr(0, kMax)) + "...";
  }

  std::string_view text_;
  const std::string& where_;
  std::size_t pos_ = 0;
};

void put_le(std::string& out, std::uint64_t value, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xffU));
}

}  // namespace

const DtypeInfo* find_dtype(std::string_view descr) {
  std::string canonical(descr);
  if (canonical.size() == 3 && canonical[0] == '=') canonical[0] = '<';  // the host is little-endian
  if (canonical.size() == 3 && canonical[2] == '1' && (canonical[0] == '<' || canonical[0] == '>'))
    canonical[0] = '|';  // a single byte has no byte order
  for (const DtypeInfo& info : kDtypes)
    if (info.descr == canonical) return &info;
  return nullptr;
}

std::string describe_dtype(std::string_view descr) {
  std::string text = "'" + std::string(descr) + "'";
  if (const DtypeInfo* info = find_dtype(descr)) text += " (" + std::string(info->name) + ")";
  return text;
}

std::string shape_repr(std::span<const std::size_t> shape) {
  std::string text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  if (shape.size() == 1) text += ",";
  return text + ")";
}

Header parse_header_dict(std::string_view text, const std::string& where) { return DictParser(text, where).parse(); }

std::string format_header(std::string_view descr, std::span<const std::size_t> shape, Version version) {
  std::string dict =
      "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " + shape_repr(shape) + ", }";
  if (!shape.empty()) {
    const std::size_t digits = std::to_string(shape[0]).size();
    dict.append(digits < kGrowthAxisMaxDigits ? kGrowthAxisMaxDigits - digits : 0, ' ');
  }

  // Padding so that magic + version + length + dict + '\n' is a multiple of 64; like NumPy, a
  // whole 64 bytes of padding when it already is.
  const auto wrap = [&](std::size_t length_bytes) {
    const std::size_t prefix = kMagic.size() + 2 + length_bytes;
    const std::size_t padding = kArrayAlign - (prefix + dict.size() + 1) % kArrayAlign;
    return dict.size() + padding + 1;  // the value of the length field
  };
  if (version == Version::automatic) version = wrap(2) <= 0xffff ? Version::v1 : Version::v2;
  const std::size_t length_bytes = version == Version::v1 ? 2 : 4;
  const std::size_t length = wrap(length_bytes);
  if (length > (version == Version::v1 ? 0xffffU : 0xffffffffU))
    throw UsageError("a .npy header of " + std::to_string(length) + " bytes is too long for format version " +
                     (version == Version::v1 ? "1.0" : "2.0"));

  std::string out(kMagic);
  out.push_back(static_cast<char>(version == Version::v1 ? 1 : 2));
  out.push_back('\0');
  put_le(out, length, length_bytes);
  out += dict;
  out.append(length - dict.size() - 1, ' ');
  out.push_back('\n');
  return out;
}

}  // namespace ctrl::npy::detail
