// A PNG written in blocks of rows that threads encode independently, each filtered and deflated
// on its own and ended on a byte boundary (a sync flush), so that the blocks, written in order,
// join into the one zlib stream of one valid PNG: an image of any size is encoded on every core
// and needs only the blocks in flight in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mp {

// --png-level: zlib's levels, 0 (stored, no compression) to 9 (smallest); the default is the
// level measured best for time against bytes (docs/measurements.md, the parallel encoder).
inline constexpr int kMinPngLevel = 0;
inline constexpr int kMaxPngLevel = 9;
inline constexpr int kDefaultPngLevel = 1;

// What both encoders (this one and png_frame.h) start a file with: PNG's signature, and an 8-bit
// RGB image's IHDR data (13 bytes); numbers in PNG's byte order.
inline constexpr std::uint8_t kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
inline constexpr std::size_t kPngIhdrBytes = 13;
void put_png_u32(std::uint8_t* p, std::uint32_t v);
void put_png_rgb_ihdr(std::uint8_t* ihdr, int width, int height);

// Rows in a block of an image `width` pixels wide: about 1 MiB of filtered rows, so that a band
// of rows gives the cores several blocks to share, while a block's fresh dictionary costs little
// (docs/measurements.md).
int png_block_rows(int width);

// The most bytes a PNG of width x height written in blocks of png_block_rows(width) rows can
// take, whatever the pixels: the filtered rows, and for each block deflate's stored blocks'
// headers (5 bytes each 16 KiB or more), its sync flush and its IDAT chunk's 12 bytes.
std::uint64_t png_bytes_at_most(int width, int height);

// One block of rows, deflated: what a thread hands to the writer.
struct PngBlock {
  int rows = 0;
  bool last = false;                   // the image's last block: its deflate stream ends here
  std::vector<std::uint8_t> deflated;  // raw deflate, ended by a sync flush unless last
  std::uint32_t adler = 1;             // Adler-32 of the filtered rows it holds
  std::uint64_t filtered_bytes = 0;    // their length, to join the Adler-32s
  // CRC-32 of `deflated`, computed by the thread that encoded it: the writer joins it into its
  // IDAT chunk's (crc32_combine) rather than reading every byte again on its one thread.
  std::uint32_t crc = 0;
};

struct PngBlockEncoderState;  // zlib's (png_stream.cpp)

// Encodes blocks at one level; a thread keeps one and reuses it (zlib's state is a few hundred
// KiB to set up).
class PngBlockEncoder {
 public:
  explicit PngBlockEncoder(int level);
  ~PngBlockEncoder();
  PngBlockEncoder(const PngBlockEncoder&) = delete;
  PngBlockEncoder& operator=(const PngBlockEncoder&) = delete;

  int level() const;
  // rgb: `rows` rows of width*3 bytes, top first. Each row is filtered by its upper neighbour
  // ("up", PNG's filter 2), the block's first by none, so that a block needs no other's rows.
  // Throws std::runtime_error on zlib's failure (out of memory).
  void encode(const std::uint8_t* rgb, int width, int rows, bool last, PngBlock& out);

 private:
  std::unique_ptr<PngBlockEncoderState> state_;
};

// Writes the PNG around the blocks: signature and header at once, each block as an IDAT chunk
// as it comes, and once the last block is in, the stream's Adler-32 and the end.
class PngBlockWriter {
 public:
  // 8-bit RGB, into `out` (left open: the caller owns it), the file the user knows as `name`;
  // `level` is the level the blocks were encoded at, which the zlib header names.
  // Throws std::runtime_error "cannot write NAME: reason".
  PngBlockWriter(std::FILE* out, std::string name, int width, int height, int level);

  // The next block, in the image's order. Throws as above, and std::logic_error for rows past
  // the image's or a last block that is not at its end.
  void write(const PngBlock& block);
  bool complete() const { return rows_ == height_; }

 private:
  // A chunk of `type` holding a then b; a part's CRC-32 where it is known (a block's), else
  // computed here.
  void chunk(const char type[4], const std::uint8_t* a, std::size_t na, const std::uint8_t* b,
             std::size_t nb, std::optional<std::uint32_t> a_crc = {},
             std::optional<std::uint32_t> b_crc = {});
  std::FILE* out_;
  std::string name_;
  int height_, level_, rows_ = 0;
  std::uint32_t adler_ = 1;
};

}  // namespace mp
