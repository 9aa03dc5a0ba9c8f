// ctrl/sizes.hpp: the one check of element counts, bytes and distribution sums that every program,
// workload and tool path makes before allocating; and tiles, which make it themselves.
#include <ctrl/ctrl.hpp>
#include <ctrl/sizes.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace {

constexpr ctrl::index_t top = std::numeric_limits<ctrl::index_t>::max();

std::string usage_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const ctrl::UsageError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no UsageError";
  return {};
}

TEST(CheckedElements, CountsWhatFits) {
  EXPECT_EQ(ctrl::checked_elements({3, 4}, 8), 12U);
  EXPECT_EQ(ctrl::checked_elements({}, 4), 1U);  // a scalar
  EXPECT_EQ(ctrl::checked_bytes(std::vector<ctrl::index_t>{3, 4}, 8), 96U);
  // The limit itself fits: max_array_bytes / elem_size elements.
  const auto limit = static_cast<ctrl::index_t>(ctrl::max_array_bytes / 4);
  EXPECT_EQ(ctrl::checked_elements({limit}, 4), static_cast<std::size_t>(limit));
  EXPECT_EQ(ctrl::checked_elements({1, limit, 1}, 4), static_cast<std::size_t>(limit));
}

TEST(CheckedElements, AnEmptyExtentIsEmptyWhateverTheOthers) {
  EXPECT_EQ(ctrl::checked_elements({top, 0, top}, 8), 0U);
}

TEST(CheckedElements, RefusesCountsThatWrapOrExceedTheBytes) {
  const auto limit = static_cast<ctrl::index_t>(ctrl::max_array_bytes / 4);
  // matadd --size 9223372036854775807 4, jacobi --size 4294967296 4294967296 (2^64 wraps to 0).
  const std::string m = usage_message([] { ctrl::checked_elements({top, 4}, 4); });
  EXPECT_NE(m.find("3.7e+19 elements exceed the limit of " + std::to_string(limit)), std::string::npos) << m;
  EXPECT_NE(m.find("4-byte elements"), std::string::npos) << m;
  usage_message([] { ctrl::checked_elements({ctrl::index_t{1} << 32, ctrl::index_t{1} << 32}, 4); });
  usage_message([&] { ctrl::checked_elements({limit + 1}, 4); });
  usage_message([] { ctrl::checked_elements({ctrl::index_t{1} << 61, 16}, 8); });  // dgemm's 2^61 x 16
  const std::string neg = usage_message([] { ctrl::checked_elements({3, -1}, 4); });
  EXPECT_NE(neg.find("negative"), std::string::npos) << neg;
  usage_message([] { ctrl::checked_elements({0, -1}, 4); });  // empty, but still not a shape
}

TEST(CheckedSum, SumsAndRefusesWrapsAndNegativeParts) {
  EXPECT_EQ(ctrl::checked_sum(std::vector<ctrl::index_t>{3, 0, 5}), 8);
  EXPECT_EQ(ctrl::checked_sum(std::vector<ctrl::index_t>{}), 0);
  EXPECT_EQ(ctrl::checked_sum(std::vector<ctrl::index_t>{top - 1, 1}), top);
  const std::string m = usage_message([] { ctrl::checked_sum(std::vector<ctrl::index_t>{top, 1}); });
  EXPECT_NE(m.find("beyond the limit"), std::string::npos) << m;
  usage_message([] { ctrl::checked_sum(std::vector<ctrl::index_t>{4, -1}); });
}

TEST(CannotAllocate, NamesWhatAndHowMuch) {
  try {
    ctrl::throw_cannot_allocate(std::size_t{3} << 30, "tile 'A'");
    FAIL();
  } catch (const ctrl::DeviceError& e) {
    EXPECT_STREQ(e.what(), "cannot allocate 3221225472 bytes (3 GiB) for tile 'A': not enough memory");
  }
}

// A tile checks its shape before allocating: a wrapped count used to give a small buffer.
TEST(CheckedTiles, AShapeBeyondTheLimitIsRefusedNamingTheTile) {
  const std::string m = usage_message([] { ctrl::Tile<float, 2> t({top, 4}, "a"); });
  EXPECT_NE(m.find("tile 'a'"), std::string::npos) << m;
  EXPECT_NE(m.find("exceed the limit"), std::string::npos) << m;
  usage_message([] { ctrl::Tile<double, 2> t({ctrl::index_t{1} << 32, ctrl::index_t{1} << 32}, ctrl::shape_only); });
  ctrl::Tile<float, 2> empty({top, 0}, "empty");  // nothing to allocate
  EXPECT_EQ(empty.size(), 0U);
}

}  // namespace
