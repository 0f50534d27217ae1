#include "io/exr_zip_writer.h"

#include <IlmThreadPool.h>
#include <ImfHeader.h>
#include <ImfIntAttribute.h>
#include <ImfStringAttribute.h>
#include <openexr.h>
#include <sys/types.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "io/exr_file.h"
#include "io/fast_deflate.h"

namespace mp {

namespace {

constexpr int kLinesPerChunk = 16;  // ZIP's, fixed by the format
// Chunks compressed at once: one for each of OpenEXR's threads, within this many bytes of lines
// (a 65536 wide still's chunks are 8 MiB each).
constexpr std::size_t kBatchBytes = std::size_t{32} << 20;

std::size_t chunk_bytes(int width) {
  return static_cast<std::size_t>(width) * (sizeof(std::uint32_t) + sizeof(float)) * kLinesPerChunk;
}

std::size_t batch_chunks(int width, int threads) {
  return std::clamp<std::size_t>(kBatchBytes / chunk_bytes(width), 1,
                                 static_cast<std::size_t>(std::max(1, threads)));
}

struct Chunk {
  int y = 0, lines = 0, filled = 0;
  // A chunk whose lines all came in one call is read from the caller's rows by its task, the
  // others' lines are copied as they come.
  const std::uint32_t* n = nullptr;
  const float* nf = nullptr;
  std::vector<std::uint8_t> raw;     // the lines as the format lays them out uncompressed
  std::vector<std::uint8_t> packed;  // what the file stores
  std::string error;
  bool done = false;  // compressed (under Batch::m)
};

// The batch's chunks as their tasks end them, so that each is written while later ones compress.
struct Batch {
  std::mutex m;
  std::condition_variable ended;
};

// The chunk's lines as the format lays them out: each line's N values, then its NF values.
void lay_out(Chunk& c, int width, const std::uint32_t* n, const float* nf, int first, int lines) {
  const std::size_t n_bytes = static_cast<std::size_t>(width) * sizeof(std::uint32_t);
  const std::size_t line_bytes = n_bytes + static_cast<std::size_t>(width) * sizeof(float);
  for (int r = 0; r < lines; ++r) {
    std::uint8_t* line = c.raw.data() + line_bytes * static_cast<std::size_t>(first + r);
    std::memcpy(line, n + static_cast<std::size_t>(r) * width, n_bytes);
    std::memcpy(line + n_bytes, nf + static_cast<std::size_t>(r) * width, line_bytes - n_bytes);
  }
}

// Each batch slot's working memory, kept from batch to batch.
struct Scratch {
  FastDeflate deflater;
  std::vector<std::uint8_t> split, diff;
};

// ZIP's stored form of a chunk: its bytes split into the even ones and then the odd ones, each
// byte made its difference from the byte before it in that order, plus 128, and the result as a
// zlib stream; the lines as they are where that would not be smaller (readers take a chunk whose
// size is that of its lines as uncompressed).
void zip_chunk(Chunk& c, Scratch& s) {
  const std::uint8_t* raw = c.raw.data();
  const std::size_t n = c.raw.size(), half = (n + 1) / 2;
  s.split.resize(n);
  s.diff.resize(n);
  // Two plain passes, each of which the compiler makes vector code of (one fused pass over the
  // strided bytes took as long as the deflate).
  std::uint8_t* even = s.split.data();
  std::uint8_t* odd = even + half;
  for (std::size_t i = 0; i < n / 2; ++i) {
    even[i] = raw[2 * i];
    odd[i] = raw[2 * i + 1];
  }
  if (n % 2) even[half - 1] = raw[n - 1];
  const std::uint8_t* split = s.split.data();
  std::uint8_t* t = s.diff.data();
  t[0] = split[0];
  for (std::size_t i = 1; i < n; ++i)
    t[i] = static_cast<std::uint8_t>(split[i] - split[i - 1] + 128);
  c.packed.resize(FastDeflate::bound(n));
  const std::size_t size = s.deflater.compress(t, n, c.packed.data(), FastDeflate::Wrap::zlib);
  if (size < n)
    c.packed.resize(size);
  else
    c.packed.assign(c.raw.begin(), c.raw.end());
}

class ChunkTask final : public IlmThread::Task {
 public:
  ChunkTask(IlmThread::TaskGroup* group, Chunk& chunk, Scratch& scratch, Batch& batch, int width)
      : Task(group), chunk_(chunk), scratch_(scratch), batch_(batch), width_(width) {}
  void execute() override {
    try {
      if (chunk_.n) lay_out(chunk_, width_, chunk_.n, chunk_.nf, 0, chunk_.lines);
      zip_chunk(chunk_, scratch_);
    } catch (const std::exception& e) {
      chunk_.error = e.what();
    }
    std::lock_guard<std::mutex> lock(batch_.m);
    chunk_.done = true;
    batch_.ended.notify_all();
  }

 private:
  Chunk& chunk_;
  Scratch& scratch_;
  Batch& batch_;
  int width_;
};

}  // namespace

struct ExrZipWriter::State {
  std::FILE* out = nullptr;
  std::string write_error, core_error;  // the first of each
  exr_context_t ctx = nullptr;
  int width = 0, height = 0;
  std::size_t line_bytes = 0;
  std::vector<Chunk> batch;  // the chunks being filled, the last one not yet whole
  Batch ends;
  std::vector<std::unique_ptr<Scratch>> scratch;  // FastDeflate stays where it is made
  std::size_t whole = 0;                          // chunks in `batch` ready to compress
  int next_y = 0;                                 // the first row of the next chunk begun

  [[noreturn]] void fail(exr_result_t r) {
    throw std::runtime_error(!write_error.empty()  ? write_error
                             : !core_error.empty() ? core_error
                                                   : exr_get_default_error_message(r));
  }
  void check(exr_result_t r) {
    if (r != EXR_ERR_SUCCESS) fail(r);
  }

  // The whole chunks compressed on OpenEXR's threads, each written in order once it is.
  void flush() {
    if (whole == 0) return;
    {
      IlmThread::TaskGroup group;  // its end (an error's too) waits for every task
      for (std::size_t i = 0; i < whole; ++i)
        IlmThread::ThreadPool::addGlobalTask(
            new ChunkTask(&group, batch[i], *scratch[i], ends, width));
      for (std::size_t i = 0; i < whole; ++i) {
        Chunk& c = batch[i];
        {
          std::unique_lock<std::mutex> lock(ends.m);
          ends.ended.wait(lock, [&] { return c.done; });
        }
        if (!c.error.empty()) throw std::runtime_error(c.error);
        check(exr_write_scanline_chunk(ctx, 0, c.y, c.packed.data(), c.packed.size()));
      }
    }
    for (std::size_t i = 0; i < whole; ++i) {
      batch[i].done = false;
      batch[i].n = nullptr;
      batch[i].nf = nullptr;
    }
    // The chunk not yet whole (if any) moves to the front.
    if (whole < batch.size() && batch[whole].filled > 0) std::swap(batch[0], batch[whole]);
    whole = 0;
  }
};

namespace {

std::int64_t write_to_file(exr_const_context_t, void* user, const void* buffer, std::uint64_t size,
                           std::uint64_t offset, exr_stream_error_func_ptr_t) {
  auto& s = *static_cast<ExrZipWriter::State*>(user);
  errno = 0;
  const bool there = ::ftello(s.out) == static_cast<off_t>(offset) ||
                     ::fseeko(s.out, static_cast<off_t>(offset), SEEK_SET) == 0;
  if (!there || std::fwrite(buffer, 1, size, s.out) != size) {
    if (s.write_error.empty()) s.write_error = std::strerror(errno ? errno : EIO);
    return -1;
  }
  return static_cast<std::int64_t>(size);
}

// OpenEXR's core prints its messages where no handler takes them; ours become the exception's.
void keep_error(exr_const_context_t ctxt, exr_result_t code, const char* msg) {
  void* user = nullptr;
  if (exr_get_user_data(ctxt, &user) != EXR_ERR_SUCCESS || !user) return;
  auto& s = *static_cast<ExrZipWriter::State*>(user);
  if (s.core_error.empty()) s.core_error = msg ? msg : exr_get_default_error_message(code);
}

}  // namespace

ExrZipWriter::ExrZipWriter(std::FILE* out, const std::string& name, const Imf::Header& header)
    : s_(std::make_unique<State>()) {
  State& s = *s_;
  s.out = out;
  const Imath::Box2i window = header.dataWindow();
  s.width = window.max.x - window.min.x + 1;
  s.height = window.max.y - window.min.y + 1;
  s.line_bytes = static_cast<std::size_t>(s.width) * (sizeof(std::uint32_t) + sizeof(float));

  exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
  init.error_handler_fn = keep_error;
  init.user_data = &s;
  init.write_fn = write_to_file;
  s.check(exr_start_write(&s.ctx, name.c_str(), EXR_WRITE_FILE_DIRECTLY, &init));
  int part = 0;
  s.check(exr_add_part(s.ctx, nullptr, EXR_STORAGE_SCANLINE, &part));
  s.check(exr_initialize_required_attr_simple(s.ctx, part, s.width, s.height, EXR_COMPRESSION_ZIP));
  // Channels by name, as the format orders them: each line's N values, then its NF values.
  s.check(exr_add_channel(s.ctx, part, "N", EXR_PIXEL_UINT, EXR_PERCEPTUALLY_LOGARITHMIC, 1, 1));
  s.check(exr_add_channel(s.ctx, part, "NF", EXR_PIXEL_FLOAT, EXR_PERCEPTUALLY_LOGARITHMIC, 1, 1));
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (std::strlen(it.name()) > 31) s.check(exr_set_longname_support(s.ctx, 1));
    if (const auto* i = dynamic_cast<const Imf::IntAttribute*>(&it.attribute()))
      s.check(exr_attr_set_int(s.ctx, part, it.name(), i->value()));
    else if (const auto* t = dynamic_cast<const Imf::StringAttribute*>(&it.attribute()))
      s.check(exr_attr_set_string(s.ctx, part, it.name(), t->value().c_str()));
  }
  s.check(exr_write_header(s.ctx));

  const std::size_t chunks =
      std::min(batch_chunks(s.width, IlmThread::ThreadPool::globalThreadPool().numThreads()),
               static_cast<std::size_t>((s.height + kLinesPerChunk - 1) / kLinesPerChunk));
  s.batch.resize(chunks);
  for (std::size_t i = 0; i < chunks; ++i) s.scratch.push_back(std::make_unique<Scratch>());
}

std::size_t exr_writer_working_bytes(int width, int threads) {
  // Each chunk of a batch: its lines, their split copy and its stored form (at most the lines and
  // the deflater's margin); each slot's deflater.
  const std::size_t chunk = chunk_bytes(width);
  return batch_chunks(width, threads) * (2 * chunk + FastDeflate::bound(chunk) + (1 << 20));
}

ExrZipWriter::~ExrZipWriter() {
  // An unfinished file is removed by its owner; the context goes without its table.
  if (s_->ctx) exr_finish(&s_->ctx);
}

void ExrZipWriter::write_rows(const std::uint32_t* n, const float* nf, int rows) {
  State& s = *s_;
  for (int r = 0; r < rows;) {
    Chunk& c = s.batch[s.whole];
    if (c.filled == 0) {
      c.y = s.next_y;
      c.lines = std::min(kLinesPerChunk, s.height - s.next_y);
      c.raw.resize(s.line_bytes * static_cast<std::size_t>(c.lines));
      c.error.clear();
      s.next_y += c.lines;
    }
    const std::size_t at = static_cast<std::size_t>(r) * s.width;
    const int take = std::min(c.lines - c.filled, rows - r);
    if (take == c.lines) {  // its task lays its lines out
      c.n = n + at;
      c.nf = nf + at;
    } else {
      lay_out(c, s.width, n + at, nf + at, c.filled, take);
    }
    r += take;
    if ((c.filled += take) == c.lines) {
      c.filled = 0;
      if (++s.whole == s.batch.size()) s.flush();
    }
  }
  s.flush();
}

void ExrZipWriter::finish() {
  State& s = *s_;
  s.flush();
  const exr_result_t r = exr_finish(&s.ctx);
  s.ctx = nullptr;
  s.check(r);
  if (!s.write_error.empty()) throw std::runtime_error(s.write_error);
}

}  // namespace mp
