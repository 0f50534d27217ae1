// PNG's level 1, the fastest that compresses: Intel's ISA-L (Debian's libisal), which deflates
// several times faster a core than libdeflate's level 1 for a few per cent more bytes
// (docs/measurements.md), in one call over a whole buffer. It can end a stream on a byte
// boundary without ending it, so the same call serves a still's joinable blocks and a frame's
// whole stream. Its bytes for the same input are not always the same from run to run (the
// measurements again); the pixels they inflate to are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace mp {

class FastDeflate {
 public:
  FastDeflate();
  ~FastDeflate();
  FastDeflate(const FastDeflate&) = delete;
  FastDeflate& operator=(const FastDeflate&) = delete;

  // "ISA-L" and the version built against, for the files' records.
  static std::string name();

  // The most bytes compress() writes for n bytes in (stored blocks where nothing compresses).
  static std::size_t bound(std::size_t n);

  enum class Wrap { zlib, raw_joinable, raw_final };
  // Deflates in[0..n) into out (room for bound(n)) and returns the bytes written: a zlib stream
  // (header, the data, its Adler-32), or raw deflate ended on a byte boundary for another block
  // to follow (raw_joinable) or as the stream's last block (raw_final). Throws
  // std::runtime_error where ISA-L fails.
  std::size_t compress(const std::uint8_t* in, std::size_t n, std::uint8_t* out, Wrap wrap);

 private:
  std::unique_ptr<std::uint8_t[]> level_buf_;  // ISA-L's hash tables for level 1, reused
};

}  // namespace mp
