#include "io/png_stream.h"

#include <png.h>

#include <cerrno>
#include <csetjmp>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace mp {

struct PngWriter {
  png_structp png = nullptr;
  png_infop info = nullptr;
  std::FILE* out = nullptr;
  std::string name;  // for messages
  int width = 0, height = 0, rows = 0;
  char error[256] = {};  // libpng's message, or the write's errno text
};

namespace {

// libpng reports errors by longjmp: these C-style steps keep C++ objects out of the jump's way,
// and the callers turn a failure into an exception.
extern "C" void on_png_error(png_structp png, png_const_charp message) {
  auto* m = static_cast<PngWriter*>(png_get_error_ptr(png));
  if (m->error[0] == '\0') std::snprintf(m->error, sizeof m->error, "%s", message);
  png_longjmp(png, 1);
}

extern "C" void on_png_warning(png_structp, png_const_charp) {}

extern "C" void on_png_write(png_structp png, png_bytep data, png_size_t size) {
  auto* m = static_cast<PngWriter*>(png_get_io_ptr(png));
  errno = 0;
  if (std::fwrite(data, 1, size, m->out) != size) {
    std::snprintf(m->error, sizeof m->error, "%s", std::strerror(errno ? errno : EIO));
    png_error(png, m->error);
  }
}

extern "C" void on_png_flush(png_structp png) {
  auto* m = static_cast<PngWriter*>(png_get_io_ptr(png));
  if (std::fflush(m->out) != 0) {
    std::snprintf(m->error, sizeof m->error, "%s", std::strerror(errno ? errno : EIO));
    png_error(png, m->error);
  }
}

bool start(PngWriter& m) {
  if (setjmp(png_jmpbuf(m.png))) return false;
  png_set_write_fn(m.png, &m, on_png_write, on_png_flush);
  // Fast deflate with one filter: the images are large, and smooth colour bands compress well
  // with the Paeth predictor alone.
  png_set_compression_level(m.png, 3);
  png_set_filter(m.png, PNG_FILTER_TYPE_BASE, PNG_FILTER_PAETH);
  png_set_IHDR(m.png, m.info, static_cast<png_uint_32>(m.width), static_cast<png_uint_32>(m.height),
               8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(m.png, m.info);
  return true;
}

bool row(PngWriter& m, const std::uint8_t* rgb, bool last) {
  if (setjmp(png_jmpbuf(m.png))) return false;
  png_write_row(m.png, rgb);
  if (last) png_write_end(m.png, m.info);
  return true;
}

}  // namespace

std::uint64_t png_bytes_at_most(int width, int height) {
  // Each row: its filter byte, then 3 bytes a pixel.
  const std::uint64_t rows = static_cast<std::uint64_t>(height) * (1 + 3ull * width);
  // Stored blocks' headers counted per KiB, zlib's header and check with room to spare.
  const std::uint64_t deflated = rows + rows / 1024 + 64;
  // Signature, IHDR and IEND, and chunks' 12 bytes counted per 512 bytes of stream.
  constexpr std::uint64_t kSignatureHeaderEnd = 8 + 25 + 12;
  return kSignatureHeaderEnd + deflated + 12 * (deflated / 512 + 1);
}

PngStream::PngStream(std::FILE* out, std::string name, int width, int height)
    : impl_(std::make_unique<PngWriter>()) {
  PngWriter& m = *impl_;
  m.out = out;
  m.name = std::move(name);
  m.width = width;
  m.height = height;
  m.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &m, on_png_error, on_png_warning);
  if (m.png) m.info = png_create_info_struct(m.png);
  const bool ok = m.png && m.info && start(m);
  if (!ok) {
    const std::string why = m.error[0] ? m.error : "PNG encoder: out of memory";
    png_destroy_write_struct(&m.png, &m.info);
    throw std::runtime_error("cannot write " + m.name + ": " + why);
  }
}

PngStream::~PngStream() {
  png_destroy_write_struct(&impl_->png, &impl_->info);
}

void PngStream::write_row(const std::uint8_t* rgb) {
  PngWriter& m = *impl_;
  if (m.rows >= m.height) throw std::logic_error("PNG: more rows than the image has");
  if (!row(m, rgb, m.rows + 1 == m.height))
    throw std::runtime_error("cannot write " + m.name + ": " + m.error);
  ++m.rows;
}

}  // namespace mp
