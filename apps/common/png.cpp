#include "common/png.hpp"

#include <ctrl/errors.hpp>

#if APPS_HAVE_PNG
#include <png.h>
#endif

#include <cstdlib>
#include <limits>
#include <memory>

namespace apps {

#if APPS_HAVE_PNG

std::string png_unavailable() { return {}; }

std::string encode_png_rgb(std::span<const std::uint8_t> rgb, std::size_t rows, std::size_t cols) {
  // PNG's extents are 31-bit; libpng's simplified API takes 32-bit ones.
  constexpr std::size_t max_extent = 0x7fffffff;
  if (rows == 0 || cols == 0 || rows > max_extent || cols > max_extent || rgb.size() != rows * cols * 3) {
    throw ctrl::UsageError("a PNG picture of " + std::to_string(rows) + "x" + std::to_string(cols) +
                           " pixels: PNG takes 1 to 2^31-1 pixels each way");
  }
  // The simplified API (libpng 1.6) reports errors in the image's message instead of longjmp,
  // which must not cross C++ frames.
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(cols);
  image.height = static_cast<png_uint_32>(rows);
  image.format = PNG_FORMAT_RGB;
  const auto stride = static_cast<png_int_32>(cols * 3);
  png_alloc_size_t size = 0;
  if (!png_image_write_to_memory(&image, nullptr, &size, 0, rgb.data(), stride, nullptr)) {
    throw ctrl::Error(std::string("libpng cannot encode the picture: ") + image.message);
  }
  std::string bytes(size, '\0');
  if (!png_image_write_to_memory(&image, bytes.data(), &size, 0, rgb.data(), stride, nullptr)) {
    throw ctrl::Error(std::string("libpng cannot encode the picture: ") + image.message);
  }
  bytes.resize(size);
  return bytes;
}

#else

std::string png_unavailable() {
  return "this build has no libpng, so it cannot write PNG files (install libpng's development files, "
         "libpng-dev on Debian, and build again)";
}

std::string encode_png_rgb(std::span<const std::uint8_t>, std::size_t, std::size_t) {
  throw ctrl::Error(png_unavailable());
}

#endif

}  // namespace apps
