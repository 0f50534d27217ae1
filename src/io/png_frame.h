// A PNG encoded whole by one thread: a zoom sequence's frames, which the pool encodes side by
// side, a frame a thread, where an image is small enough to hold whole in memory. Level 1 is
// ISA-L's (fast_deflate.h); levels 2 to 9 are libdeflate's, faster than zlib's a core and
// smaller (docs/measurements.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

struct libdeflate_compressor;

namespace mp {

class FastDeflate;

// Bytes a row takes in the rows the encoder reads: PNG's filter byte, then 3 bytes a pixel.
std::size_t png_row_bytes(int width);

// The largest image encode() takes, in its rows' bytes: its zlib stream must fit one IDAT chunk
// (2^31 - 1 bytes) whatever the pixels.
inline constexpr std::size_t kMaxWholePngBytes = std::size_t{1} << 30;

class PngFrameEncoder {
 public:
  // --png-level's 0..9: 0 stores, 1 is ISA-L's, 2..9 libdeflate's of the same numbers. Throws
  // std::invalid_argument for another level, std::runtime_error where libdeflate cannot start.
  explicit PngFrameEncoder(int level);
  ~PngFrameEncoder();
  PngFrameEncoder(const PngFrameEncoder&) = delete;
  PngFrameEncoder& operator=(const PngFrameEncoder&) = delete;

  // rows: `height` rows of png_row_bytes(width) bytes, each a byte left free for its filter type,
  // then its RGB. They are filtered in place (by the row above, "up", the first row by none; none
  // at level 0, where filtering cannot pay), so the pixels are gone afterwards, and the whole
  // 8-bit RGB PNG goes to `write` in order: at once where deflated (into a buffer kept for the
  // next image), in chunks of a mebibyte where stored (no copy of the frame). What `write`
  // throws ends the encoding.
  using Sink = std::function<void(const std::uint8_t* data, std::size_t size)>;
  void encode(std::uint8_t* rows, int width, int height, const Sink& write);

 private:
  int level_;
  libdeflate_compressor* compressor_ = nullptr;  // levels 2..9
  std::unique_ptr<FastDeflate> fast_;            // level 1
  // Not a vector: growing one zeroes its new bytes, a pass over the frame's bound each time.
  std::unique_ptr<std::uint8_t[]> png_;
  std::size_t capacity_ = 0;
};

}  // namespace mp
