// PNG pictures for the case studies' renders (mandelbrot's --png), encoded by libpng.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace apps {

// Why this build cannot write PNG files ("built without libpng: ..."), or empty where it can.
std::string png_unavailable();

// An 8-bit RGB picture, `rows` × `cols` pixels, row 0 at the top, 3 bytes per pixel, encoded as a
// PNG file's bytes. Throws ctrl::Error where libpng fails or this build has none.
std::string encode_png_rgb(std::span<const std::uint8_t> rgb, std::size_t rows, std::size_t cols);

}  // namespace apps
