// The PNG encoder in blocks: blocks encoded on several threads and joined in order decode (by
// libpng) to the pixels given, and to those of libpng's own serial writer at the same level, at
// every level, for heights that do and do not divide into blocks.
#include <gtest/gtest.h>
#include <png.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "io/png_frame.h"
#include "io/png_stream.h"
#include "png_image.h"

namespace mp {
namespace {
namespace fs = std::filesystem;

// An image with what renders have: smooth bands of colour, flat runs, and noise.
std::vector<std::uint8_t> test_image(int w, int h, unsigned seed) {
  std::mt19937 noise(seed);
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(w) * h * 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      std::uint8_t* p = &rgb[(static_cast<std::size_t>(y) * w + x) * 3];
      const bool flat = (x / 8 + y / 8) % 3 == 0, noisy = (x / 5 + y / 3) % 4 == 1;
      for (int k = 0; k < 3; ++k)
        p[k] = flat    ? 0
               : noisy ? static_cast<std::uint8_t>(noise())
                       : static_cast<std::uint8_t>(x * (k + 1) + y * (3 - k));
    }
  return rgb;
}

std::string file_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Decoded by libpng's reader as RGB; empty if it is not a whole, valid PNG of w x h.
std::vector<std::uint8_t> decode(const fs::path& file, int w, int h) {
  const Image image = read_png(file);
  return image.width == w && image.height == h ? image.rgb : std::vector<std::uint8_t>{};
}

// The blocks of `rows_per_block` rows, each encoded on a thread of its own (as the render's
// pool does), written in order.
void write_in_blocks(const fs::path& file, const std::vector<std::uint8_t>& rgb, int w, int h,
                     int rows_per_block, int level, std::uint32_t damage_adler = 0,
                     std::uint32_t damage_crc = 0) {
  std::vector<PngBlock> blocks((h + rows_per_block - 1) / rows_per_block);
  std::vector<std::thread> threads;
  for (std::size_t b = 0; b < blocks.size(); ++b)
    threads.emplace_back([&, b] {
      const int y0 = static_cast<int>(b) * rows_per_block;
      const int rows = std::min(rows_per_block, h - y0);
      PngBlockEncoder encoder(level);
      encoder.encode(&rgb[static_cast<std::size_t>(y0) * w * 3], w, rows, y0 + rows == h,
                     blocks[b]);
    });
  for (std::thread& t : threads) t.join();
  blocks.back().adler ^= damage_adler;
  blocks[blocks.size() / 2].crc ^= damage_crc;
  std::FILE* out = std::fopen(file.c_str(), "wb");
  ASSERT_NE(out, nullptr);
  PngBlockWriter writer(out, file.string(), w, h, level);
  for (const PngBlock& b : blocks) writer.write(b);
  EXPECT_TRUE(writer.complete());
  ASSERT_EQ(std::fclose(out), 0);
}

// libpng's writer, a row at a time, at `level`: the serial encoder.
void write_serially(const fs::path& file, const std::vector<std::uint8_t>& rgb, int w, int h,
                    int level) {
  std::FILE* out = std::fopen(file.c_str(), "wb");
  ASSERT_NE(out, nullptr);
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  ASSERT_EQ(setjmp(png_jmpbuf(png)), 0);
  png_init_io(png, out);
  png_set_compression_level(png, level);
  png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < h; ++y) png_write_row(png, &rgb[static_cast<std::size_t>(y) * w * 3]);
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  ASSERT_EQ(std::fclose(out), 0);
}

class PngBlocks : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mp_png_stream_test_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(PngBlocks, DecodeToTheSerialEncodersPixelsAtEveryLevel) {
  struct Case {
    int w, h, rows_per_block;
  };
  // 48 = 3 x 16 rows; 50 rows in blocks of 7 (the last of 1); one block; one row; one pixel;
  // a block of one row each.
  for (const Case c : {Case{64, 48, 16}, Case{61, 50, 7}, Case{33, 20, 20}, Case{300, 1, 5},
                       Case{1, 1, 1}, Case{17, 9, 1}}) {
    const std::vector<std::uint8_t> rgb = test_image(c.w, c.h, c.w * 31 + c.h);
    for (int level = kMinPngLevel; level <= kMaxPngLevel; ++level) {
      SCOPED_TRACE(std::to_string(c.w) + "x" + std::to_string(c.h) + " in blocks of " +
                   std::to_string(c.rows_per_block) + " rows, level " + std::to_string(level));
      write_in_blocks(dir_ / "blocks.png", rgb, c.w, c.h, c.rows_per_block, level);
      write_serially(dir_ / "serial.png", rgb, c.w, c.h, level);
      const std::vector<std::uint8_t> blocks = decode(dir_ / "blocks.png", c.w, c.h);
      ASSERT_EQ(blocks, decode(dir_ / "serial.png", c.w, c.h));
      ASSERT_EQ(blocks, rgb);
    }
  }
}

// Higher levels take fewer bytes of this image (level 0 stores), so the level reaches zlib.
TEST_F(PngBlocks, TheLevelReachesDeflate) {
  const std::vector<std::uint8_t> rgb = test_image(200, 120, 5);
  std::uintmax_t size[3];
  int i = 0;
  for (const int level : {0, 1, 9}) {
    write_in_blocks(dir_ / "l.png", rgb, 200, 120, 30, level);
    size[i++] = fs::file_size(dir_ / "l.png");
  }
  EXPECT_GT(size[0], 200u * 120 * 3);
  EXPECT_LT(size[1], size[0] * 3 / 4);
  EXPECT_LT(size[2], size[1]);
}

// The joined Adler-32 is what libpng checks: one that is off makes the image unreadable.
TEST_F(PngBlocks, AWrongCheckIsRefusedByTheReader) {
  const std::vector<std::uint8_t> rgb = test_image(40, 30, 9);
  write_in_blocks(dir_ / "ok.png", rgb, 40, 30, 8, 1);
  EXPECT_EQ(decode(dir_ / "ok.png", 40, 30), rgb);
  write_in_blocks(dir_ / "bad.png", rgb, 40, 30, 8, 1, 0x10000);
  EXPECT_TRUE(decode(dir_ / "bad.png", 40, 30).empty());
}

// Each IDAT chunk's CRC-32 is its block's, computed by the thread that encoded it and joined by
// the writer: libpng checks them, and one that is off makes the image unreadable.
TEST_F(PngBlocks, AChunkWhoseEncoderGaveAWrongCrcIsRefusedByTheReader) {
  const std::vector<std::uint8_t> rgb = test_image(40, 30, 9);
  write_in_blocks(dir_ / "bad-crc.png", rgb, 40, 30, 8, 1, 0, 0x4);
  EXPECT_TRUE(decode(dir_ / "bad-crc.png", 40, 30).empty());
}

TEST_F(PngBlocks, TheWriterRefusesRowsOutOfPlace) {
  const std::vector<std::uint8_t> rgb = test_image(8, 8, 1);
  PngBlockEncoder encoder(1);
  PngBlock middle, last, first_as_last;
  encoder.encode(rgb.data(), 8, 4, false, middle);
  encoder.encode(rgb.data(), 8, 4, true, last);
  encoder.encode(rgb.data(), 8, 4, true, first_as_last);
  std::FILE* out = std::fopen((dir_ / "x.png").c_str(), "wb");
  ASSERT_NE(out, nullptr);
  PngBlockWriter writer(out, "x.png", 8, 8, 1);
  EXPECT_THROW(writer.write(first_as_last), std::logic_error);  // ends the image at row 4 of 8
  writer.write(middle);
  EXPECT_THROW(writer.write(middle), std::logic_error);  // reaches the end but is not last
  writer.write(last);
  EXPECT_TRUE(writer.complete());
  EXPECT_THROW(writer.write(last), std::logic_error);  // past the end
  std::fclose(out);
  EXPECT_THROW(PngBlockEncoder(10), std::invalid_argument);
  EXPECT_THROW(PngBlockEncoder(-1), std::invalid_argument);
}

TEST(PngBlockRows, AboutAMebibyteOfRowsAndAtLeastOne) {
  EXPECT_EQ(png_block_rows(3840), (1 << 20) / (3 * 3840 + 1));
  EXPECT_EQ(png_block_rows(65536), 5);
  EXPECT_EQ(png_block_rows(1), (1 << 20) / 4);
  EXPECT_GE(png_block_rows(1 << 20), 1);
}

// A sequence's frame encoded whole (png_frame.h): its rows laid out as the pipeline lays them
// out, a byte before each for the filter type, then encoded and written as the pool's thread does.
void write_whole(const fs::path& file, const std::vector<std::uint8_t>& rgb, int w, int h,
                 PngFrameEncoder& encoder) {
  const std::size_t row = png_row_bytes(w);
  std::vector<std::uint8_t> rows(row * static_cast<std::size_t>(h), 0xAB);
  for (int y = 0; y < h; ++y)
    std::copy_n(&rgb[static_cast<std::size_t>(y) * w * 3], static_cast<std::size_t>(w) * 3,
                &rows[row * static_cast<std::size_t>(y) + 1]);
  std::FILE* out = std::fopen(file.c_str(), "wb");
  ASSERT_NE(out, nullptr);
  encoder.encode(rows.data(), w, h, [&](const std::uint8_t* data, std::size_t size) {
    ASSERT_EQ(std::fwrite(data, 1, size, out), size);
  });
  ASSERT_EQ(std::fclose(out), 0);
}

using PngFrames = PngBlocks;

TEST_F(PngFrames, DecodeToTheImageAtEveryLevel) {
  for (const auto [w, h] : {std::pair{1, 1}, {5, 3}, {257, 65}}) {
    const std::vector<std::uint8_t> rgb = test_image(w, h, 11);
    for (int level = kMinPngLevel; level <= kMaxPngLevel; ++level) {
      PngFrameEncoder encoder(level);
      const fs::path file = dir_ / "frame.png";
      write_whole(file, rgb, w, h, encoder);
      EXPECT_EQ(decode(file, w, h), rgb) << w << "x" << h << " level " << level;
    }
  }
}

// Over a mebibyte of rows: stored, in several IDAT chunks of many stored blocks each.
TEST_F(PngFrames, ALargeFrameDecodesToTheImageStoredAndDeflated) {
  const std::vector<std::uint8_t> rgb = test_image(700, 600, 7);
  for (const int level : {0, 1}) {
    PngFrameEncoder encoder(level);
    int calls = 0;
    const fs::path file = dir_ / "large.png";
    std::FILE* out = std::fopen(file.c_str(), "wb");
    ASSERT_NE(out, nullptr);
    std::vector<std::uint8_t> rows(png_row_bytes(700) * 600);
    for (int y = 0; y < 600; ++y)
      std::copy_n(&rgb[static_cast<std::size_t>(y) * 700 * 3], 700 * 3,
                  &rows[png_row_bytes(700) * y + 1]);
    encoder.encode(rows.data(), 700, 600, [&](const std::uint8_t* data, std::size_t size) {
      ++calls;
      ASSERT_EQ(std::fwrite(data, 1, size, out), size);
    });
    ASSERT_EQ(std::fclose(out), 0);
    EXPECT_EQ(decode(file, 700, 600), rgb) << "level " << level;
    // Stored: the header, two chunks of the rows, the end; deflated: all at once.
    EXPECT_EQ(calls, level == 0 ? 4 : 1) << "level " << level;
  }
}

// What the sink throws (a write that failed) ends the encoding there.
TEST(PngFrameEncoder, AFailedWriteEndsTheEncoding) {
  PngFrameEncoder encoder(0);
  std::vector<std::uint8_t> rows(png_row_bytes(10) * 10);
  int calls = 0;
  EXPECT_THROW(encoder.encode(rows.data(), 10, 10,
                              [&](const std::uint8_t*, std::size_t) {
                                ++calls;
                                throw std::runtime_error("cannot write x.png: No space left");
                              }),
               std::runtime_error);
  EXPECT_EQ(calls, 1);
}

TEST_F(PngFrames, LevelZeroStoresAndHigherLevelsCompress) {
  const std::vector<std::uint8_t> rgb = test_image(300, 200, 5);
  std::vector<std::size_t> sizes;
  for (const int level : {0, 1, 9}) {
    PngFrameEncoder encoder(level);
    write_whole(dir_ / "f.png", rgb, 300, 200, encoder);
    sizes.push_back(fs::file_size(dir_ / "f.png"));
  }
  EXPECT_GT(sizes[0], rgb.size());
  EXPECT_LT(sizes[1], sizes[0]);
  EXPECT_LE(sizes[2], sizes[1]);
}

// The encoder keeps its buffer from frame to frame: a large frame, a small one, a large one.
TEST_F(PngFrames, OneEncoderServesFramesOfEverySizeInTurn) {
  PngFrameEncoder encoder(1);
  for (const auto [w, h] : {std::pair{400, 300}, {7, 2}, {401, 301}}) {
    const std::vector<std::uint8_t> rgb = test_image(w, h, static_cast<unsigned>(w));
    write_whole(dir_ / "f.png", rgb, w, h, encoder);
    EXPECT_EQ(decode(dir_ / "f.png", w, h), rgb) << w << "x" << h;
  }
}

// Its chunks' CRCs are real: a byte changed in the compressed data is refused by libpng.
TEST_F(PngFrames, AChangedByteIsRefusedByTheReader) {
  const std::vector<std::uint8_t> rgb = test_image(64, 64, 3);
  PngFrameEncoder encoder(1);
  write_whole(dir_ / "f.png", rgb, 64, 64, encoder);
  std::string bytes = file_bytes(dir_ / "f.png");
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x10);
  std::FILE* out = std::fopen((dir_ / "g.png").c_str(), "wb");
  ASSERT_NE(out, nullptr);
  std::fwrite(bytes.data(), 1, bytes.size(), out);
  std::fclose(out);
  EXPECT_TRUE(decode(dir_ / "g.png", 64, 64).empty());
}

// Noise does not compress: each encoder falls back to stored blocks within the room it gives
// them, at the fast level (ISA-L's) as at zlib's and libdeflate's.
TEST_F(PngFrames, NoiseThatDoesNotCompressDecodesAtEveryLevel) {
  std::mt19937 noise(3);
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(700) * 600 * 3);
  for (std::uint8_t& b : rgb) b = static_cast<std::uint8_t>(noise());
  for (const int level : {0, 1, 2, 9}) {
    write_in_blocks(dir_ / "noise.png", rgb, 700, 600, 250, level);
    EXPECT_EQ(decode(dir_ / "noise.png", 700, 600), rgb) << "blocks, level " << level;
    PngFrameEncoder encoder(level);
    write_whole(dir_ / "noise-frame.png", rgb, 700, 600, encoder);
    EXPECT_EQ(decode(dir_ / "noise-frame.png", 700, 600), rgb) << "whole, level " << level;
  }
}

TEST(PngFrameEncoder, LevelsOutsideZeroToNineAreRefused) {
  EXPECT_THROW(PngFrameEncoder(-1), std::invalid_argument);
  EXPECT_THROW(PngFrameEncoder(10), std::invalid_argument);
  PngFrameEncoder encoder(1);
  std::uint8_t row[4] = {};
  EXPECT_THROW(encoder.encode(row, 0, 1, [](const std::uint8_t*, std::size_t) {}),
               std::invalid_argument);
}

}  // namespace
}  // namespace mp
