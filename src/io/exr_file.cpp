#include "io/exr_file.h"

#include <ImathVec.h>
#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfIO.h>
#include <ImfInputFile.h>
#include <ImfIntAttribute.h>
#include <ImfOutputFile.h>
#include <ImfStringAttribute.h>
#include <ImfThreading.h>
#include <sys/types.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "io/exr_zip_writer.h"
#include "io/files.h"

namespace mp {
namespace fs = std::filesystem;

namespace {

// OpenEXR's output stream over the temporary file's FILE*, so that the writing goes through
// StreamedFile (removed on a signal or an error, renamed into place at the end). It remembers
// its first error: OutputFile's destructor writes the offset table and swallows what fails.
class FileOStream final : public Imf::OStream {
 public:
  FileOStream(std::FILE* out, const fs::path& path) : Imf::OStream(path.c_str()), out_(out) {}

  void write(const char c[], int n) override {
    errno = 0;
    if (std::fwrite(c, 1, static_cast<std::size_t>(n), out_) != static_cast<std::size_t>(n)) fail();
  }
  std::uint64_t tellp() override {
    const off_t at = ::ftello(out_);
    if (at < 0) fail();
    return static_cast<std::uint64_t>(at);
  }
  void seekp(std::uint64_t pos) override {
    if (::fseeko(out_, static_cast<off_t>(pos), SEEK_SET) != 0) fail();
  }

  // The reason of the first failure, or "" if none.
  const std::string& error() const { return error_; }

 private:
  [[noreturn]] void fail() {
    if (error_.empty()) error_ = std::strerror(errno ? errno : EIO);
    throw std::runtime_error(error_);
  }
  std::FILE* out_;
  std::string error_;
};

Imf::Compression openexr_compression(ExrCompression c) {
  switch (c) {
    case ExrCompression::piz: return Imf::PIZ_COMPRESSION;
    case ExrCompression::rle: return Imf::RLE_COMPRESSION;
    case ExrCompression::none: return Imf::NO_COMPRESSION;
    case ExrCompression::zip: break;
  }
  return Imf::ZIP_COMPRESSION;
}

Imf::Header make_header(int width, int height, std::uint32_t max_iter,
                        const std::map<std::string, std::string>& attributes,
                        ExrCompression compression) {
  if (width < 1 || height < 1)
    throw std::invalid_argument("EXR: image size " + std::to_string(width) + "x" +
                                std::to_string(height) + " is not at least 1x1");
  Imf::Header header(width, height);  // scanlines top first
  header.compression() = openexr_compression(compression);
  header.channels().insert("N", Imf::Channel(Imf::UINT));
  header.channels().insert("NF", Imf::Channel(Imf::FLOAT));
  // KF reads an int attribute; larger limits go as text, which it reads too.
  if (max_iter <= 0x7FFFFFFFu)
    header.insert("Iterations", Imf::IntAttribute(static_cast<int>(max_iter)));
  else
    header.insert("Iterations", Imf::StringAttribute(std::to_string(max_iter)));
  header.insert("IterationsBias", Imf::IntAttribute(static_cast<int>(kExrIterationsBias)));
  for (const auto& [name, value] : attributes) {
    if (name.empty() || header.find(name) != header.end())
      throw std::invalid_argument("EXR: attribute name '" + name + "' is empty or taken");
    header.insert(name, Imf::StringAttribute(value));
  }
  return header;
}

// OpenEXR's messages may span lines; ours are one.
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

}  // namespace

const char* exr_compression_name(ExrCompression c) {
  switch (c) {
    case ExrCompression::piz: return "piz";
    case ExrCompression::rle: return "rle";
    case ExrCompression::none: return "none";
    case ExrCompression::zip: break;
  }
  return "zip";
}

std::optional<ExrCompression> exr_compression_named(const std::string& name) {
  for (const ExrCompression c :
       {ExrCompression::zip, ExrCompression::piz, ExrCompression::rle, ExrCompression::none})
    if (name == exr_compression_name(c)) return c;
  return std::nullopt;
}

bool exr_complete(const fs::path& path) {
  try {
    // OpenEXR's own reader of the offset table says where a block is missing; the last block
    // (the file's end: lines go top first) is then read whole as it lies in the file, for a file
    // cut inside it, which the table alone does not show.
    Imf::InputFile in(path.c_str(), 1);
    if (!in.isComplete()) return false;
    const char* data = nullptr;
    int size = 0;
    in.rawPixelData(in.header().dataWindow().max.y, data, size);
    return size > 0;
  } catch (const std::exception&) {
    return false;
  }
}

void set_exr_threads(int threads) {
  Imf::setGlobalThreadCount(threads);
}

ExrSample exr_escaped(float smooth) {
  if (!(smooth >= -1023.0f && smooth <= 2147483648.0f))
    throw std::invalid_argument("EXR: smooth iteration value " + std::to_string(smooth) +
                                " is out of range");
  const float whole = std::floor(smooth);
  // Exact for v >= 0 (the two are within a factor of two); below 0 the difference may round up
  // to 1, which is held just under it.
  const float nf = std::min(smooth - whole, std::nextafter(1.0f, 0.0f));
  return {static_cast<std::uint32_t>(static_cast<std::int64_t>(whole) + kExrIterationsBias), nf};
}

std::uint64_t exr_bytes_at_most(int width, int height,
                                const std::map<std::string, std::string>& attributes) {
  // The magic number, the version and the attributes make_header writes, with room to spare.
  constexpr std::uint64_t kFixedHeader = 4096;
  std::uint64_t header = kFixedHeader;
  // A string attribute: its name and "string", each ended by a 0, its size, its value.
  for (const auto& [name, value] : attributes) header += name.size() + 8 + 4 + value.size();
  constexpr std::uint64_t kPerLine = 16;
  return header + static_cast<std::uint64_t>(height) * (kPerLine + 8ull * width);
}

// Members in the order they are built; destroyed the other way round, so the writer is gone
// before its stream, and the stream before the temporary file is removed.
struct ExrStreamImpl {
  fs::path path;
  int width, height, rows = 0;
  StreamedFile file;
  FileOStream stream;
  std::optional<Imf::OutputFile> out;  // piz, rle, none
  std::unique_ptr<ExrZipWriter> zip;   // zip

  ExrStreamImpl(const fs::path& p, int w, int h)
      : path(p), width(w), height(h), file(p), stream(file.stream(), p) {}

  bool open() const { return out || zip; }

  [[noreturn]] void fail(const std::exception& e) {
    out.reset();  // no more writes; the temporary file goes when the stream does
    zip.reset();
    throw std::runtime_error("cannot write " + path.string() + ": " +
                             one_line(stream.error().empty() ? e.what() : stream.error()));
  }
};

ExrStream::ExrStream(const fs::path& path, int width, int height, std::uint32_t max_iter,
                     const std::map<std::string, std::string>& attributes,
                     ExrCompression compression) {
  const Imf::Header header = make_header(width, height, max_iter, attributes, compression);
  impl_ = std::make_unique<ExrStreamImpl>(path, width, height);
  try {
    if (compression == ExrCompression::zip)
      impl_->zip = std::make_unique<ExrZipWriter>(impl_->stream, path.string(), header);
    else
      impl_->out.emplace(impl_->stream, header);
  } catch (const std::exception& e) {
    impl_->fail(e);
  }
}

ExrStream::~ExrStream() = default;

void ExrStream::write_rows(const std::uint32_t* n, const float* nf, int rows) {
  ExrStreamImpl& m = *impl_;
  if (!m.open()) throw std::logic_error("EXR: writing after an error or after finish()");
  if (rows < 0 || rows > m.height - m.rows)
    throw std::logic_error("EXR: more rows than the image has");
  if (rows == 0) return;
  if (m.zip) {
    try {
      m.zip->write_rows(n, nf, rows);
    } catch (const std::exception& e) {
      m.fail(e);
    }
    m.rows += rows;
    return;
  }
  // Slices placed so that row m.rows of the image is the band's first.
  const Imath::V2i origin(0, m.rows);
  Imf::FrameBuffer fb;
  fb.insert("N", Imf::Slice::Make(Imf::UINT, n, origin, m.width, rows));
  fb.insert("NF", Imf::Slice::Make(Imf::FLOAT, nf, origin, m.width, rows));
  try {
    m.out->setFrameBuffer(fb);
    m.out->writePixels(rows);
  } catch (const std::exception& e) {
    m.fail(e);
  }
  m.rows += rows;
}

void ExrStream::finish(const std::vector<std::pair<fs::path, std::string>>& sidecars) {
  ExrStreamImpl& m = *impl_;
  if (!m.open()) throw std::logic_error("EXR: finish() after an error or twice");
  if (m.rows != m.height) throw std::logic_error("EXR: finish() before the last row");
  if (m.zip) {
    try {
      m.zip->finish();
    } catch (const std::exception& e) {
      m.fail(e);
    }
    m.zip.reset();
  }
  m.out.reset();  // writes the offset table
  if (!m.stream.error().empty())
    throw std::runtime_error("cannot write " + m.path.string() + ": " + m.stream.error());
  write_files_atomic(sidecars, m.file);
}

}  // namespace mp
