// An EXR in OpenEXR's ZIP compression, deflated by ISA-L: the chunks of 16 scanlines prepared as
// the format asks (each chunk's bytes split into even and odd halves, then each byte replaced by
// its difference from the one before) and made a zlib stream each, many chunks at once on
// OpenEXR's threads; the header, the chunk table and the chunks laid out by OpenEXR's core
// library. OpenEXR's own ZIP writer deflates with zlib's default level, several times slower a
// core; every ZIP reader reads either (docs/measurements.md has both).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <ImfForward.h>

namespace mp {

class ExrZipWriter {
 public:
  // The file's header from `header` (its size, its int and string attributes; its compression
  // is taken as ZIP and its channels as N and NF), written to `out` (positioned at its start)
  // at once; `out` keeps the reason where writing fails. Throws std::runtime_error with one line
  // (`name` is for OpenEXR's messages only).
  ExrZipWriter(Imf::OStream& out, const std::string& name, const Imf::Header& header);
  ~ExrZipWriter();
  ExrZipWriter(const ExrZipWriter&) = delete;
  ExrZipWriter& operator=(const ExrZipWriter&) = delete;

  // The next `rows` rows (width values in each array a row): each chunk compressed on OpenEXR's
  // threads once it is whole, and written in order once it is compressed, while the next rows
  // come; the arrays are not read after it returns. Throws std::runtime_error with the reason in
  // one line (a chunk's or the file's).
  void write_rows(const std::uint32_t* n, const float* nf, int rows);
  // After the last row: every chunk and the chunk table written.
  void finish();

  struct State;  // the file's state, seen by OpenEXR's callbacks (exr_zip_writer.cpp)

 private:
  std::unique_ptr<State> s_;
};

}  // namespace mp
