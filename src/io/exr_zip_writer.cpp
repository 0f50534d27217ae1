#include "io/exr_zip_writer.h"

#include <IlmThreadPool.h>
#include <ImfHeader.h>
#include <ImfIO.h>
#include <ImfIntAttribute.h>
#include <ImfStringAttribute.h>
#include <openexr.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "io/exr_file.h"
#include "io/fast_deflate.h"

namespace mp {

namespace {

constexpr int kLinesPerChunk = 16;  // ZIP's, fixed by the format
// Chunks in the ring (being compressed or waiting to be written): one for each of OpenEXR's
// threads, within this many bytes of lines (a 65536 wide still's chunks are 8 MiB each).
constexpr std::size_t kRingBytes = std::size_t{32} << 20;

std::size_t chunk_bytes(int width) {
  return static_cast<std::size_t>(width) * (sizeof(std::uint32_t) + sizeof(float)) * kLinesPerChunk;
}

std::size_t ring_chunks(int width, int threads) {
  return std::clamp<std::size_t>(kRingBytes / chunk_bytes(width), 1,
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
  bool copied = false, done = false;  // the caller's rows read, and compressed (under Progress::m)
};

// The chunks' tasks as they go: the writer waits on it for a chunk's lines to be copied (before
// the caller's rows may go) and for a chunk to be compressed (before it is written).
struct Progress {
  std::mutex m;
  std::condition_variable changed;
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

// `bytes` (an even number) split onto the ends of the even and the odd halves: a plain pass the
// compiler makes vector code of, which one pass over the strided bytes is not
// (docs/measurements.md).
void split_onto(const void* from, std::size_t bytes, std::uint8_t*& even, std::uint8_t*& odd) {
  const auto* b = static_cast<const std::uint8_t*>(from);
  for (std::size_t i = 0; i < bytes / 2; ++i) {
    even[i] = b[2 * i];
    odd[i] = b[2 * i + 1];
  }
  even += bytes / 2;
  odd += bytes / 2;
}

// Each ring slot's working memory, kept from chunk to chunk.
struct Scratch {
  FastDeflate deflater;
  std::vector<std::uint8_t> split, diff;
};

// ZIP's stored form of a chunk: its bytes (as lay_out orders them) split into the even ones and
// then the odd ones, each byte made its difference from the byte before it in that order, plus
// 128, and the result as a zlib stream; the lines as they are where that would not be smaller
// (readers take a chunk whose size is that of its lines as uncompressed).
//
// First the split, into s.split: a chunk whose lines all came in one call is split from the
// caller's rows, without laying them out first. Every piece (a row of N or of NF, or the laid-out
// lines) has a multiple of four bytes, so the pieces' halves follow one another.
void split_chunk(const Chunk& c, Scratch& s, int width) {
  const std::size_t n = chunk_bytes(width) / kLinesPerChunk * static_cast<std::size_t>(c.lines);
  s.split.resize(n);
  std::uint8_t* even = s.split.data();
  std::uint8_t* odd = even + n / 2;
  if (c.n) {
    const std::size_t row = static_cast<std::size_t>(width) * sizeof(float);
    for (int r = 0; r < c.lines; ++r) {
      split_onto(c.n + static_cast<std::size_t>(r) * width, row, even, odd);
      split_onto(c.nf + static_cast<std::size_t>(r) * width, row, even, odd);
    }
  } else {
    split_onto(c.raw.data(), n, even, odd);
  }
}

// Then the differences and the deflate, into c.packed.
void pack_chunk(Chunk& c, Scratch& s) {
  const std::size_t n = s.split.size(), half = n / 2;
  const std::uint8_t* split = s.split.data();
  s.diff.resize(n);
  std::uint8_t* t = s.diff.data();
  t[0] = split[0];
  for (std::size_t i = 1; i < n; ++i)
    t[i] = static_cast<std::uint8_t>(split[i] - split[i - 1] + 128);
  c.packed.resize(FastDeflate::bound(n));
  const std::size_t size = s.deflater.compress(t, n, c.packed.data(), FastDeflate::Wrap::zlib);
  if (size < n) {
    c.packed.resize(size);
    return;
  }
  // Stored as the lines are: the halves put back together (the caller's rows may be gone).
  c.packed.resize(n);
  for (std::size_t i = 0; i < half; ++i) {
    c.packed[2 * i] = split[i];
    c.packed[2 * i + 1] = split[half + i];
  }
}

class ChunkTask final : public IlmThread::Task {
 public:
  ChunkTask(IlmThread::TaskGroup* group, Chunk& chunk, Scratch& scratch, Progress& progress,
            int width)
      : Task(group), chunk_(chunk), scratch_(scratch), progress_(progress), width_(width) {}
  void execute() override {
    bool split = false;
    try {
      split_chunk(chunk_, scratch_, width_);
      split = true;
      if (chunk_.n) mark(&Chunk::copied);  // the caller's rows are not read after this
      pack_chunk(chunk_, scratch_);
    } catch (const std::exception& e) {
      chunk_.error = e.what();
    }
    if (!split && chunk_.n) mark(&Chunk::copied);
    mark(&Chunk::done);
  }

 private:
  void mark(bool Chunk::*flag) {
    std::lock_guard<std::mutex> lock(progress_.m);
    chunk_.*flag = true;
    progress_.changed.notify_all();
  }
  Chunk& chunk_;
  Scratch& scratch_;
  Progress& progress_;
  int width_;
};

}  // namespace

struct ExrZipWriter::State {
  Imf::OStream* out = nullptr;
  std::string core_error;  // the first
  exr_context_t ctx = nullptr;
  int width = 0, height = 0;
  std::size_t line_bytes = 0;
  // Chunk k of the image is ring[k % size] from its first line until it is written: filled,
  // compressed by its task while the later ones fill, written in order as each is done.
  std::vector<Chunk> ring;
  std::vector<std::unique_ptr<Scratch>> scratch;  // a slot's; FastDeflate stays where it is made
  Progress progress;
  long long filling = 0;  // the chunk being filled (or next begun)
  long long written = 0;  // the chunks written
  int next_y = 0;         // the first row of the next chunk begun
  // Last, so that it goes first: its end waits for every task, which use the members above.
  std::unique_ptr<IlmThread::TaskGroup> tasks = std::make_unique<IlmThread::TaskGroup>();

  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  // An unfinished file (its owner removes it) ends without its table, a constructor's failure
  // after the context began included.
  ~State() {
    if (ctx) exr_finish(&ctx);
  }

  [[noreturn]] void fail(exr_result_t r) {
    throw std::runtime_error(!core_error.empty() ? core_error : exr_get_default_error_message(r));
  }
  void check(exr_result_t r) {
    if (r != EXR_ERR_SUCCESS) fail(r);
  }
  Chunk& slot(long long k) {
    return ring[static_cast<std::size_t>(k % static_cast<long long>(ring.size()))];
  }

  void submit(long long k) {
    Chunk& c = slot(k);
    c.copied = c.n == nullptr;
    c.done = false;
    IlmThread::ThreadPool::addGlobalTask(new ChunkTask(
        tasks.get(), c, *scratch[static_cast<std::size_t>(k % static_cast<long long>(ring.size()))],
        progress, width));
  }

  // The chunks compressed so far written in order; every chunk before `until` written, waiting
  // for each.
  void write_done(long long until) {
    while (written < filling) {
      Chunk& c = slot(written);
      {
        std::unique_lock<std::mutex> lock(progress.m);
        if (!c.done && written >= until) return;
        progress.changed.wait(lock, [&] { return c.done; });
      }
      if (!c.error.empty()) throw std::runtime_error(c.error);
      check(exr_write_scanline_chunk(ctx, 0, c.y, c.packed.data(), c.packed.size()));
      c.filled = 0;
      c.n = nullptr;
      c.nf = nullptr;
      ++written;
    }
  }

  // Until no task reads the caller's rows (before write_rows returns, or throws).
  void wait_copied() {
    std::unique_lock<std::mutex> lock(progress.m);
    progress.changed.wait(lock, [&] {
      for (long long k = written; k < filling; ++k)
        if (!slot(k).copied) return false;
      return true;
    });
  }
};

namespace {

// Through the stream, which keeps the reason of its first failure for the caller.
std::int64_t write_to_file(exr_const_context_t, void* user, const void* buffer, std::uint64_t size,
                           std::uint64_t offset, exr_stream_error_func_ptr_t) {
  Imf::OStream& out = *static_cast<ExrZipWriter::State*>(user)->out;
  if (size > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) return -1;
  try {
    if (out.tellp() != offset) out.seekp(offset);
    out.write(static_cast<const char*>(buffer), static_cast<int>(size));
  } catch (const std::exception&) {
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

ExrZipWriter::ExrZipWriter(Imf::OStream& out, const std::string& name, const Imf::Header& header)
    : s_(std::make_unique<State>()) {
  State& s = *s_;
  s.out = &out;
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
      std::min(ring_chunks(s.width, IlmThread::ThreadPool::globalThreadPool().numThreads()),
               static_cast<std::size_t>((s.height + kLinesPerChunk - 1) / kLinesPerChunk));
  s.ring.resize(chunks);
  for (std::size_t i = 0; i < chunks; ++i) s.scratch.push_back(std::make_unique<Scratch>());
}

std::size_t exr_writer_working_bytes(int width, int threads) {
  // Each slot of the ring: its lines, their split and differenced copies and its stored form (at
  // most the lines and the deflater's margin), and its deflater.
  const std::size_t chunk = chunk_bytes(width);
  return ring_chunks(width, threads) * (3 * chunk + FastDeflate::bound(chunk) + (1 << 20));
}

ExrZipWriter::~ExrZipWriter() = default;

void ExrZipWriter::write_rows(const std::uint32_t* n, const float* nf, int rows) {
  State& s = *s_;
  try {
    for (int r = 0; r < rows;) {
      // The chunk's slot is the one ring.size() before it's, written first.
      s.write_done(s.filling - static_cast<long long>(s.ring.size()) + 1);
      Chunk& c = s.slot(s.filling);
      if (c.filled == 0) {
        c.y = s.next_y;
        c.lines = std::min(kLinesPerChunk, s.height - s.next_y);
        c.error.clear();
        s.next_y += c.lines;
      }
      const std::size_t at = static_cast<std::size_t>(r) * s.width;
      const int take = std::min(c.lines - c.filled, rows - r);
      if (take == c.lines) {  // its task reads them from these rows
        c.n = n + at;
        c.nf = nf + at;
      } else {
        if (c.filled == 0) c.raw.resize(s.line_bytes * static_cast<std::size_t>(c.lines));
        lay_out(c, s.width, n + at, nf + at, c.filled, take);
      }
      r += take;
      if ((c.filled += take) == c.lines) s.submit(s.filling++);
      s.write_done(0);
    }
    s.wait_copied();
  } catch (...) {
    s.wait_copied();
    throw;
  }
}

void ExrZipWriter::finish() {
  State& s = *s_;
  s.write_done(s.filling);
  const exr_result_t r = exr_finish(&s.ctx);
  s.ctx = nullptr;
  s.check(r);
}

}  // namespace mp
