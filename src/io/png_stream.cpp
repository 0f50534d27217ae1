#include "io/png_stream.h"

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "io/fast_deflate.h"

namespace mp {

namespace {

constexpr std::size_t kBlockBytes = 1 << 20;

std::size_t row_bytes(int width) {
  return 1 + 3 * static_cast<std::size_t>(width);  // the filter byte, then RGB
}

}  // namespace

void put_png_u32(std::uint8_t* p, std::uint32_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 24);
  p[1] = static_cast<std::uint8_t>(v >> 16);
  p[2] = static_cast<std::uint8_t>(v >> 8);
  p[3] = static_cast<std::uint8_t>(v);
}

void put_png_rgb_ihdr(std::uint8_t* ihdr, int width, int height) {
  put_png_u32(ihdr, static_cast<std::uint32_t>(width));
  put_png_u32(ihdr + 4, static_cast<std::uint32_t>(height));
  ihdr[8] = 8;   // bits per sample
  ihdr[9] = 2;   // RGB
  ihdr[10] = 0;  // deflate
  ihdr[11] = 0;  // adaptive filtering, a filter byte a row
  ihdr[12] = 0;  // not interlaced
}

int png_block_rows(int width) {
  return static_cast<int>(std::max<std::size_t>(1, kBlockBytes / row_bytes(width)));
}

std::uint64_t png_bytes_at_most(int width, int height) {
  const std::uint64_t rows = static_cast<std::uint64_t>(height) * row_bytes(width);
  const std::uint64_t per = static_cast<std::uint64_t>(png_block_rows(width));
  const std::uint64_t blocks = (static_cast<std::uint64_t>(height) + per - 1) / per;
  // Stored blocks' headers counted per KiB; each block's sync flush, end of block and rounding,
  // and its IDAT chunk, within 64 bytes.
  const std::uint64_t deflated = rows + rows / 1024 + 64 * blocks;
  // Signature, IHDR and IEND; the zlib header and the Adler-32.
  constexpr std::uint64_t kFixed = 8 + 25 + 12 + 2 + 4;
  return kFixed + deflated;
}

struct PngBlockEncoderState {
  z_stream z{};                       // levels other than 1
  std::unique_ptr<FastDeflate> fast;  // level 1
  int level = 0;
  std::vector<std::uint8_t> filtered;
};

PngBlockEncoder::PngBlockEncoder(int level) : state_(std::make_unique<PngBlockEncoderState>()) {
  if (level < kMinPngLevel || level > kMaxPngLevel)
    throw std::invalid_argument("PNG level " + std::to_string(level) + " is not 0..9");
  state_->level = level;
  if (level == 1) {
    state_->fast = std::make_unique<FastDeflate>();
    return;
  }
  // Raw deflate (negative window bits): the zlib header and check are the writer's, once for
  // the whole image.
  if (deflateInit2(&state_->z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("PNG encoder: zlib could not start (out of memory)");
}

PngBlockEncoder::~PngBlockEncoder() {
  if (!state_->fast) deflateEnd(&state_->z);
}

int PngBlockEncoder::level() const {
  return state_->level;
}

void PngBlockEncoder::encode(const std::uint8_t* rgb, int width, int rows, bool last,
                             PngBlock& out) {
  const std::size_t stride = 3 * static_cast<std::size_t>(width), row = stride + 1;
  std::vector<std::uint8_t>& f = state_->filtered;
  f.resize(row * static_cast<std::size_t>(rows));
  for (int y = 0; y < rows; ++y) {
    std::uint8_t* o = &f[row * static_cast<std::size_t>(y)];
    const std::uint8_t* cur = rgb + stride * static_cast<std::size_t>(y);
    if (y == 0) {
      o[0] = 0;  // none
      std::memcpy(o + 1, cur, stride);
      continue;
    }
    o[0] = 2;  // up
    const std::uint8_t* above = cur - stride;
    for (std::size_t i = 0; i < stride; ++i)
      o[1 + i] = static_cast<std::uint8_t>(cur[i] - above[i]);
  }
  out.rows = rows;
  out.last = last;
  out.filtered_bytes = f.size();
  // libdeflate's checksums: about as fast as ISA-L's deflate, where zlib's would add a quarter.
  out.adler = libdeflate_adler32(1, f.data(), f.size());
  if (state_->fast) {
    out.deflated.resize(FastDeflate::bound(f.size()));
    const std::size_t done = state_->fast->compress(
        f.data(), f.size(), out.deflated.data(),
        last ? FastDeflate::Wrap::raw_final : FastDeflate::Wrap::raw_joinable);
    out.deflated.resize(done);
    out.crc = libdeflate_crc32(0, out.deflated.data(), done);
    return;
  }

  z_stream& z = state_->z;
  if (deflateReset(&z) != Z_OK) throw std::runtime_error("PNG encoder: zlib's reset failed");
  out.deflated.resize(deflateBound(&z, static_cast<uLong>(f.size())) + 16);
  z.next_in = f.data();
  z.avail_in = static_cast<uInt>(f.size());
  std::size_t done = 0;
  for (;;) {
    z.next_out = out.deflated.data() + done;
    z.avail_out = static_cast<uInt>(out.deflated.size() - done);
    const int r = deflate(&z, last ? Z_FINISH : Z_SYNC_FLUSH);
    done = out.deflated.size() - z.avail_out;
    if (r == Z_STREAM_ERROR) throw std::runtime_error("PNG encoder: zlib failed");
    // Finished: the stream's end written (Z_FINISH), or all input taken and flushed with room
    // left over (a sync flush leaves avail_out > 0 once it is complete).
    if (r == Z_STREAM_END || (!last && z.avail_in == 0 && z.avail_out > 0)) break;
    out.deflated.resize(out.deflated.size() * 2);
  }
  out.deflated.resize(done);
  out.crc = libdeflate_crc32(0, out.deflated.data(), done);
}

PngBlockWriter::PngBlockWriter(std::FILE* out, std::string name, int width, int height, int level)
    : out_(out), name_(std::move(name)), height_(height), level_(level) {
  if (width < 1 || height < 1)
    throw std::invalid_argument("PNG: size " + std::to_string(width) + "x" +
                                std::to_string(height) + " is not at least 1x1");
  if (std::fwrite(kPngSignature, 1, sizeof kPngSignature, out_) != sizeof kPngSignature)
    throw std::runtime_error("cannot write " + name_ + ": " + std::strerror(errno ? errno : EIO));
  std::uint8_t ihdr[kPngIhdrBytes];
  put_png_rgb_ihdr(ihdr, width, height);
  chunk("IHDR", ihdr, sizeof ihdr, nullptr, 0);
}

void PngBlockWriter::chunk(const char type[4], const std::uint8_t* a, std::size_t na,
                           const std::uint8_t* b, std::size_t nb,
                           std::optional<std::uint32_t> a_crc, std::optional<std::uint32_t> b_crc) {
  std::uint8_t head[8];
  put_png_u32(head, static_cast<std::uint32_t>(na + nb));
  std::memcpy(head + 4, type, 4);
  uLong crc = crc32(0, head + 4, 4);
  if (na)
    crc = a_crc ? crc32_combine(crc, *a_crc, static_cast<z_off_t>(na))
                : crc32(crc, a, static_cast<uInt>(na));
  if (nb)
    crc = b_crc ? crc32_combine(crc, *b_crc, static_cast<z_off_t>(nb))
                : crc32(crc, b, static_cast<uInt>(nb));
  std::uint8_t tail[4];
  put_png_u32(tail, static_cast<std::uint32_t>(crc));
  errno = 0;
  const bool ok = std::fwrite(head, 1, 8, out_) == 8 &&
                  (!na || std::fwrite(a, 1, na, out_) == na) &&
                  (!nb || std::fwrite(b, 1, nb, out_) == nb) && std::fwrite(tail, 1, 4, out_) == 4;
  if (!ok)
    throw std::runtime_error("cannot write " + name_ + ": " + std::strerror(errno ? errno : EIO));
}

void PngBlockWriter::write(const PngBlock& block) {
  if (block.rows < 1 || block.rows > height_ - rows_)
    throw std::logic_error("PNG: more rows than the image has");
  if (block.last != (rows_ + block.rows == height_))
    throw std::logic_error("PNG: the last block is not at the image's end");
  // The zlib header goes before the first block: deflate with a 32 KiB window, and the level
  // class (fastest, fast, default, best) that FLEVEL names.
  std::uint8_t header[2] = {0x78, 0};
  const int flevel = level_ < 2 ? 0 : level_ < 6 ? 1 : level_ == 6 ? 2 : 3;
  header[1] = static_cast<std::uint8_t>(flevel << 6);
  header[1] = static_cast<std::uint8_t>(header[1] + 31 - (header[0] * 256 + header[1]) % 31);
  adler_ = static_cast<std::uint32_t>(
      adler32_combine(adler_, block.adler, static_cast<z_off_t>(block.filtered_bytes)));
  rows_ += block.rows;
  std::uint8_t check[4];
  put_png_u32(check, adler_);
  const std::uint8_t* data = block.deflated.data();
  const std::size_t n = block.deflated.size();
  if (rows_ == block.rows && block.last) {  // one block: header, data and check in one chunk
    std::vector<std::uint8_t> all(header, header + 2);
    all.insert(all.end(), data, data + n);
    chunk("IDAT", all.data(), all.size(), check, 4);
  } else if (rows_ == block.rows) {
    chunk("IDAT", header, 2, data, n, {}, block.crc);
  } else {
    chunk("IDAT", data, n, block.last ? check : nullptr, block.last ? 4 : 0, block.crc);
  }
  if (block.last) chunk("IEND", nullptr, 0, nullptr, 0);
}

}  // namespace mp
