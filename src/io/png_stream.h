// A PNG written row by row through libpng, so that an image of any size needs one row in memory.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

namespace mp {

struct PngWriter;  // libpng's state (png_stream.cpp)

// The most bytes a PngStream of width x height can write, whatever the pixels: the filtered rows
// and a little more, since deflate stores a block it cannot shrink (5 bytes a block of 16 KiB or
// more) and libpng writes the stream in IDAT chunks of its 8 KiB buffer (12 bytes each).
std::uint64_t png_bytes_at_most(int width, int height);

class PngStream {
 public:
  // 8-bit RGB, `height` rows of `width` pixels, into `out` (left open: the caller owns it), the
  // file the user knows as `name`. Throws std::runtime_error "cannot write NAME: reason" with
  // libpng's or the system's reason.
  PngStream(std::FILE* out, std::string name, int width, int height);
  ~PngStream();
  PngStream(const PngStream&) = delete;
  PngStream& operator=(const PngStream&) = delete;

  // rgb: width*3 bytes, rows top first; the last one also writes the PNG's end.
  void write_row(const std::uint8_t* rgb);

 private:
  std::unique_ptr<PngWriter> impl_;
};

}  // namespace mp
