// An image read back as a user's tools read it: libpng's reader, RGB.
#pragma once

#include <png.h>

#include <cstdint>
#include <filesystem>
#include <vector>

namespace mp {

struct Image {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;
  const std::uint8_t* at(int x, int y) const {
    return &rgb[(static_cast<std::size_t>(y) * width + x) * 3];
  }
};

// Empty if it is not a whole, valid PNG (its CRCs and its zlib stream's Adler-32 checked).
inline Image read_png(const std::filesystem::path& file) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  Image out;
  if (!png_image_begin_read_from_file(&image, file.c_str())) return out;
  image.format = PNG_FORMAT_RGB;
  std::vector<std::uint8_t> rgb(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, rgb.data(), 0, nullptr)) {
    png_image_free(&image);
    return out;
  }
  out.width = static_cast<int>(image.width);
  out.height = static_cast<int>(image.height);
  out.rgb = std::move(rgb);
  return out;
}

}  // namespace mp
