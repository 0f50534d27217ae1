#include "io/png_frame.h"

#include <libdeflate.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "io/fast_deflate.h"
#include "io/png_stream.h"

namespace mp {

namespace {

// A chunk's length and type at `p`, its data after them (already there), its CRC after that;
// returns the end.
std::uint8_t* close_chunk(std::uint8_t* p, const char type[4], std::size_t length) {
  put_png_u32(p, static_cast<std::uint32_t>(length));
  std::memcpy(p + 4, type, 4);
  put_png_u32(p + 8 + length, libdeflate_crc32(0, p + 4, 4 + length));
  return p + 12 + length;
}

constexpr std::size_t kSignature = sizeof kPngSignature, kChunk = 12, kIhdr = kPngIhdrBytes;
// A stored frame's IDAT chunks' data.
constexpr std::size_t kStoredChunk = std::size_t{1} << 20;

}  // namespace

std::size_t png_row_bytes(int width) {
  return 1 + 3 * static_cast<std::size_t>(width);
}

PngFrameEncoder::PngFrameEncoder(int level) : level_(level) {
  if (level < kMinPngLevel || level > kMaxPngLevel)
    throw std::invalid_argument("PNG level " + std::to_string(level) + " is not 0..9");
  if (level == 1) {
    fast_ = std::make_unique<FastDeflate>();
    return;
  }
  if (level == 0) return;
  compressor_ = libdeflate_alloc_compressor(level);
  if (!compressor_) throw std::runtime_error("PNG encoder: libdeflate could not start");
}

PngFrameEncoder::~PngFrameEncoder() {
  if (compressor_) libdeflate_free_compressor(compressor_);
}

void PngFrameEncoder::encode(std::uint8_t* rows, int width, int height, const Sink& write) {
  if (width < 1 || height < 1)
    throw std::invalid_argument("PNG: size " + std::to_string(width) + "x" +
                                std::to_string(height) + " is not at least 1x1");
  const std::size_t row = png_row_bytes(width);
  const std::size_t n = row * static_cast<std::size_t>(height);
  if (n > kMaxWholePngBytes)
    throw std::invalid_argument("PNG: " + std::to_string(width) + "x" + std::to_string(height) +
                                " is too large to encode whole");
  // From the bottom up, so that each row is taken from its upper neighbour's pixels, not yet
  // filtered themselves.
  const bool up = level_ > 0;
  for (int y = height - 1; y >= 0; --y) {
    std::uint8_t* r = rows + row * static_cast<std::size_t>(y);
    r[0] = up && y > 0 ? 2 : 0;
    if (r[0] == 0) continue;
    const std::uint8_t* above = r - row;
    for (std::size_t i = 1; i < row; ++i) r[i] = static_cast<std::uint8_t>(r[i] - above[i]);
  }
  // Stored: the rows go out in IDAT chunks of kStoredChunk through a buffer of one chunk, not a
  // copy of the whole frame.
  const std::size_t bound = level_ == 0 ? 0
                            : fast_     ? FastDeflate::bound(n)
                                        : libdeflate_zlib_compress_bound(compressor_, n);
  const std::size_t most =
      level_ == 0 ? kChunk + kStoredChunk : kSignature + kChunk + kIhdr + kChunk + bound + kChunk;
  if (most > capacity_) {
    png_.reset(new std::uint8_t[most]);
    capacity_ = most;
  }
  std::uint8_t head[kSignature + kChunk + kIhdr];
  std::memcpy(head, kPngSignature, kSignature);
  put_png_rgb_ihdr(head + kSignature + 8, width, height);
  close_chunk(head + kSignature, "IHDR", kIhdr);
  std::uint8_t end[kChunk];
  close_chunk(end, "IEND", 0);
  if (level_ > 0) {
    std::uint8_t* p = png_.get();
    std::memcpy(p, head, sizeof head);
    p += sizeof head;
    // ISA-L throws where it fails; libdeflate returns 0.
    const std::size_t z = fast_ ? fast_->compress(rows, n, p + 8, FastDeflate::Wrap::zlib)
                                : libdeflate_zlib_compress(compressor_, rows, n, p + 8, bound);
    if (z == 0) throw std::runtime_error("PNG encoder: libdeflate's output overran its bound");
    p = close_chunk(p, "IDAT", z);
    std::memcpy(p, end, kChunk);
    write(png_.get(), static_cast<std::size_t>(p + kChunk - png_.get()));
    return;
  }
  write(head, sizeof head);
  // The zlib stream: its header (deflate, 32 KiB window, the fastest level), stored blocks of at
  // most 65535 bytes, the Adler-32 of the rows; cut into chunks as the buffer fills.
  std::uint8_t* chunk = png_.get();
  std::size_t fill = 0;
  const auto flush = [&] {
    write(chunk, static_cast<std::size_t>(close_chunk(chunk, "IDAT", fill) - chunk));
    fill = 0;
  };
  const auto append = [&](const std::uint8_t* data, std::size_t size) {
    while (size) {
      const std::size_t take = std::min(size, kStoredChunk - fill);
      std::memcpy(chunk + 8 + fill, data, take);
      fill += take;
      data += take;
      size -= take;
      if (fill == kStoredChunk) flush();
    }
  };
  const std::uint8_t zlib_head[2] = {0x78, 0x01};
  append(zlib_head, 2);
  for (std::size_t at = 0; at < n;) {
    const std::size_t len = std::min<std::size_t>(n - at, 65535);
    const std::uint8_t block[5] = {
        static_cast<std::uint8_t>(at + len == n ? 1 : 0), static_cast<std::uint8_t>(len),
        static_cast<std::uint8_t>(len >> 8), static_cast<std::uint8_t>(~len),
        static_cast<std::uint8_t>(~len >> 8)};
    append(block, 5);
    append(rows + at, len);
    at += len;
  }
  std::uint8_t adler[4];
  put_png_u32(adler, libdeflate_adler32(1, rows, n));
  append(adler, 4);
  if (fill) flush();
  write(end, kChunk);
}

}  // namespace mp
