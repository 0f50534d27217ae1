// Iteration data as OpenEXR, in the layout Kalles Fraktaler writes and zoomasm reads for its
// keyframes: a UINT channel N and a FLOAT channel NF, scanlines written a band at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mp {

// KF's convention (its exr.cpp, SaveEXR and ReadEXRMapFile): an escaped pixel whose smooth
// iteration value is v has N = floor(v) + kExrIterationsBias and NF = v - floor(v), in [0, 1);
// the bias keeps N clear of 0, which with NF 0 means "not computed", since v may be slightly
// negative where a far pixel escapes at once. A pixel that never escaped has N = 0xFFFFFFFF and
// NF 0 (not the iteration limit, which readers could not tell from an escape count), as KF
// writes and reads its interior.
inline constexpr std::uint32_t kExrIterationsBias = 1024;
inline constexpr std::uint32_t kExrInterior = 0xFFFFFFFFu;

struct ExrSample {
  std::uint32_t n;
  float nf;
};
// An escaped pixel's N and NF from its smooth iteration value (finite, at most 2^31).
ExrSample exr_escaped(float smooth);
// A rendered pixel's: the interior where its smooth value is negative (as the kernels leave it),
// else exr_escaped's, in a few instructions where the value is under 2^31 (a frame's every pixel
// goes through it).
inline ExrSample exr_sample(float smooth) {
  if (smooth < 0) return {kExrInterior, 0.0f};
  if (smooth < 2147483648.0f) {  // false for NaN, which exr_escaped refuses
    // Truncation is the floor here; the difference is exact (0 from 2^24 on, where every float
    // is whole), and + 0 makes -0's +0 as exr_escaped's.
    const std::int32_t whole = static_cast<std::int32_t>(smooth);
    return {static_cast<std::uint32_t>(whole) + kExrIterationsBias,
            smooth - static_cast<float>(whole) + 0.0f};
  }
  return exr_escaped(smooth);
}

// OpenEXR's lossless compressions of the scanlines, each read by every OpenEXR reader (zoomasm
// and Kalles Fraktaler among them): zip (16 lines a block, deflated by ISA-L: ExrZipWriter; the
// default, the fastest that compresses), piz (wavelets, then Huffman: a few to a fifth fewer bytes
// than zip, in several times its time), rle (little off deep views' counts) and none (the rows as
// they are: the disk's speed). docs/measurements.md has each one's time and bytes.
enum class ExrCompression { zip, piz, rle, none };
inline constexpr ExrCompression kDefaultExrCompression = ExrCompression::zip;
const char* exr_compression_name(ExrCompression c);
// The compression of that name ("zip", "piz", "rle", "none"), or nothing.
std::optional<ExrCompression> exr_compression_named(const std::string& name);

// Whether the file at `path` is an EXR that OpenEXR reads whole: its header and its table of
// line blocks, every block inside the file, the last one whole (a file cut short anywhere after
// its table is not).
bool exr_complete(const std::filesystem::path& path);

// The most memory an ExrStream of images `width` wide holds beyond its caller's rows, where
// OpenEXR has `threads` threads: ZIP's chunks being compressed (exr_zip_writer.cpp).
std::size_t exr_writer_working_bytes(int width, int threads);

// OpenEXR's threads (its process-wide pool), which compress an image's line blocks in parallel:
// render sets it to its encoder's once, before the first stream.
void set_exr_threads(int threads);

struct ExrStreamImpl;  // OpenEXR's writer and its stream (exr_file.cpp)

// The most bytes an ExrStream of width x height with those `attributes` can write: OpenEXR keeps
// a chunk uncompressed where compressing would not shrink it, so the pixels' 8 bytes each, and
// for each scanline at most a chunk's header and an offset (16 bytes, as if one line a chunk),
// and the header.
std::uint64_t exr_bytes_at_most(int width, int height,
                                const std::map<std::string, std::string>& attributes);

// The image is written under a temporary name beside `path` and renamed there by finish();
// destruction before then (after an error, say) removes it, so `path` holds a whole image or
// nothing.
class ExrStream {
 public:
  // `attributes` go into the header as string attributes (such as "mandelpipe.span"), beside the
  // ints KF reads: "Iterations" (max_iter) and "IterationsBias". Throws std::runtime_error
  // "cannot write PATH: reason" (one line) when the file cannot be created, and
  // std::invalid_argument for a size under 1x1 or an attribute name that is empty or taken.
  ExrStream(const std::filesystem::path& path, int width, int height, std::uint32_t max_iter,
            const std::map<std::string, std::string>& attributes = {},
            ExrCompression compression = kDefaultExrCompression);
  ~ExrStream();
  ExrStream(const ExrStream&) = delete;
  ExrStream& operator=(const ExrStream&) = delete;

  // The next `rows` rows, top first: width*rows values in each array (see ExrSample for their
  // meaning). Throws std::runtime_error "cannot write PATH: reason" on a write error (disk full),
  // after which the stream is dead; std::logic_error past the image's last row.
  void write_rows(const std::uint32_t* n, const float* nf, int rows);
  // Once every row is written: the image completed and renamed into place, after `sidecars`
  // (written whole beforehand, as write_files_atomic does), so whoever waits for the image finds
  // them there. Throws as write_rows, or std::logic_error when rows are missing.
  void finish(const std::vector<std::pair<std::filesystem::path, std::string>>& sidecars = {});

 private:
  std::unique_ptr<ExrStreamImpl> impl_;
};

}  // namespace mp
