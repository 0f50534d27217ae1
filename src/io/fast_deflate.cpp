#include "io/fast_deflate.h"

#include <isa-l.h>
#include <isa-l/igzip_lib.h>

#include <limits>
#include <stdexcept>
#include <string>

namespace mp {

namespace {

constexpr std::size_t kLevelBuf = ISAL_DEF_LVL1_DEFAULT;

}  // namespace

FastDeflate::FastDeflate() : level_buf_(new std::uint8_t[kLevelBuf]) {}

FastDeflate::~FastDeflate() = default;

std::string FastDeflate::name() {
  return "ISA-L " + std::to_string(ISAL_MAJOR_VERSION) + "." + std::to_string(ISAL_MINOR_VERSION) +
         "." + std::to_string(ISAL_PATCH_VERSION);
}

std::size_t FastDeflate::bound(std::size_t n) {
  // ISA-L's stateless call never writes more than the input as stored blocks (5 bytes a block
  // of up to 64 KiB; a KiB's worth counted per KiB here), its header and the zlib wrapper.
  return n + n / 1024 + ISAL_DEF_MAX_HDR_SIZE + 64;
}

std::size_t FastDeflate::compress(const std::uint8_t* in, std::size_t n, std::uint8_t* out,
                                  Wrap wrap) {
  // avail_in and avail_out are 32-bit: callers hand at most a GiB (kMaxWholePngBytes).
  if (n > std::numeric_limits<std::uint32_t>::max() / 2)
    throw std::invalid_argument("deflate: " + std::to_string(n) + " bytes in one call");
  isal_zstream s;
  isal_deflate_stateless_init(&s);
  s.level = 1;
  s.level_buf = level_buf_.get();
  s.level_buf_size = kLevelBuf;
  s.gzip_flag = wrap == Wrap::zlib ? IGZIP_ZLIB : IGZIP_DEFLATE;
  s.flush = wrap == Wrap::raw_joinable ? FULL_FLUSH : NO_FLUSH;
  s.end_of_stream = wrap == Wrap::raw_joinable ? 0 : 1;
  s.next_in = const_cast<std::uint8_t*>(in);
  s.avail_in = static_cast<std::uint32_t>(n);
  s.next_out = out;
  s.avail_out = static_cast<std::uint32_t>(bound(n));
  const int r = isal_deflate_stateless(&s);
  if (r != COMP_OK) throw std::runtime_error("deflate: ISA-L failed (" + std::to_string(r) + ")");
  return s.total_out;
}

}  // namespace mp
