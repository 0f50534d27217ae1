#include "commands/band_pipeline.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <iostream>
#include <mutex>
#include <queue>
#include <thread>

#include <libdeflate.h>
#include <zlib.h>

#include "commands/piece_renderer.h"
#include "commands/work_pool.h"
#include "cuda_check.h"
#include "host_buffer.h"
#include "io/exr_file.h"
#include "io/fast_deflate.h"
#include "io/png_frame.h"
#include "io/png_stream.h"

namespace mp {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

int ceil_div(long long a, long long b) {
  return static_cast<int>((a + b - 1) / b);
}

// A sequence's frame is encoded whole (png_frame.h) where its rows take at most this: a 4K
// frame's 25 MB, an 8K one's 100 MB; larger frames go in blocks as a still does.
constexpr std::size_t kMaxWholeFrameBytes = std::size_t{256} << 20;
// The frames in flight's bytes together at most, beyond the fewest the workers need.
constexpr double kWholeFramesMib = 512;
// The same where each frame also holds its samples and its EXR's values (a 4K frame's 157 MB, six
// times its rows): the EXRs' compression then takes about nine frames at once to keep the cores
// busy (docs/measurements.md).
constexpr double kWholeExrFramesMib = 1536;

// A band's launches' figures into its image's, and into the share of the worker that rendered it.
void add_stats(ImageRecord& rec, WorkerShare& share, const PieceRenderer& r) {
  for (auto [launches, gpu, cpu, deep, colour] :
       {std::tie(rec.launches, rec.gpu, rec.cpu, rec.deep, rec.colour_ms),
        std::tie(share.launches, share.gpu, share.cpu, share.deep, share.colour_ms)}) {
    launches += r.launches;
    colour += r.colour_ms;
    if (r.gpu_stats.launches) gpu += r.gpu_stats;
    if (r.cpu.slices) cpu += r.cpu;
    if (r.deep_stats.launches) deep += r.deep_stats;
  }
}

}  // namespace

BandPipeline::BandPipeline(const Plan& plan, const Look& look, PipelineOutput output, int png_level,
                           const std::vector<DeviceInfo>& devices, bool approximate,
                           const PipelineHooks& hooks, int threads)
    : plan_(plan),
      look_(look),
      png_level_(png_level),
      devices_(devices),
      approximate_(approximate),
      hooks_(hooks),
      threads_(threads > 0 ? threads : usable_cores()),
      block_rows_(png_block_rows(plan.width)) {
  std::copy_n(look_.lut.begin(), std::min<std::size_t>(look_.lut.size(), kLutSize * 4),
              device_look_.lut);
  device_look_.params = look_.colour;
  const int workers =
      devices_.empty() ? std::max(1, hooks_.cpu_workers) : static_cast<int>(devices_.size());
  // Enough band buffers that the pool has twice its threads' blocks to take while each worker
  // renders its next band.
  const int blocks = ceil_div(plan_.band_rows, block_rows_);
  slots_ = std::clamp(ceil_div(2LL * threads_, blocks) + workers, 2, 8 + workers);
  const std::size_t frame_bytes =
      png_row_bytes(plan_.width) * static_cast<std::size_t>(plan_.height);
  whole_frames_ = output == PipelineOutput::kSequence && frame_bytes <= kMaxWholeFrameBytes;
  for (int w = 0; w < workers; ++w) {
    WorkerReport r;
    if (devices_.empty()) {
      r.name = "CPU reference (" + std::to_string(CpuRenderer().threads()) + " threads)";
      if (workers > 1) r.name += " " + std::to_string(w + 1) + " of " + std::to_string(workers);
    } else {
      r.device = devices_[static_cast<std::size_t>(w)];
      r.name = "GPU " + std::to_string(r.device->index) + " (" + r.device->name + ")";
    }
    workers_.push_back(std::move(r));
  }
}

BandPipeline::~BandPipeline() = default;

std::string BandPipeline::renderer_description() const {
  if (devices_.empty())
    return workers_.size() == 1 ? workers_.front().name
                                : std::to_string(workers_.size()) + " CPU reference workers (" +
                                      std::to_string(CpuRenderer().threads()) + " threads each)";
  if (devices_.size() == 1) return "CUDA on " + devices_.front().name;
  std::string names;
  for (const DeviceInfo& d : devices_)
    names += (names.empty() ? "" : ", ") + std::to_string(d.index) + ": " + d.name;
  return "CUDA on " + std::to_string(devices_.size()) + " GPUs (" + names + ")";
}

std::string BandPipeline::encoder_description() const {
  // Level 1 is ISA-L's in both shapes; the others are libdeflate's (frames) and zlib's (blocks).
  const std::string name = png_level_ == 1  ? FastDeflate::name()
                           : whole_frames() ? "libdeflate " LIBDEFLATE_VERSION_STRING
                                            : "zlib " ZLIB_VERSION;
  if (whole_frames())
    return name +
           ", each frame whole on one of the pool's threads, rows filtered by the row above "
           "(none at level 0)";
  return name + " in blocks of " + std::to_string(block_rows_) +
         " rows on the pool's threads, joined by flushes into one stream, rows filtered by the "
         "row above";
}

int BandPipeline::frames_in_flight(bool exr) const {
  if (!whole_frames_) return 0;
  // A frame for each thread to encode and one for each worker to render into, where memory
  // allows; at least one more than the workers, so that one is always being encoded.
  const int workers = static_cast<int>(workers_.size());
  const int most = static_cast<int>((exr ? kWholeExrFramesMib : kWholeFramesMib) / frame_mib(exr));
  return std::max(workers + 1, std::min(threads_ + workers, most));
}

int BandPipeline::band_buffers(bool exr) const {
  return whole_frames_ ? frames_in_flight(exr) * plan_.bands() : slots_;
}

double BandPipeline::frame_mib(bool exr) const {
  const double pixels = static_cast<double>(plan_.width) * plan_.height;
  // Its rows, the samples where the pool colours them or the EXR takes them, the EXR's values.
  return (static_cast<double>(png_row_bytes(plan_.width)) * plan_.height +
          (!colours_on_gpu() || exr ? plan_.band_bytes() * plan_.bands() : 0.0) +
          (exr ? 8.0 * pixels : 0.0)) /
         (1 << 20);
}

double BandPipeline::working_mib(bool exr) const {
  // An EXR writer's chunks being compressed (ZIP's; OpenEXR's own for the other compressions,
  // taken as the same): one a frame being written, one for a still.
  const double exr_writer =
      exr ? static_cast<double>(exr_writer_working_bytes(plan_.width, threads_)) / (1 << 20) : 0.0;
  if (whole_frames()) {
    // The frames in flight, and a thread's PNG (the compressed frame, taken as half the rows; a
    // chunk of a mebibyte where stored) and the deflater's state.
    const double rows = static_cast<double>(png_row_bytes(plan_.width)) * plan_.height;
    const double per_thread = (png_level_ == 0 ? 1 << 20 : rows / 2) + (1 << 20);
    return frames_in_flight(exr) * frame_mib(exr) + threads_ * per_thread / (1 << 20) +
           std::min(frames_in_flight(exr), threads_) * exr_writer;
  }
  const double band_rgb = 3.0 * plan_.width * plan_.band_rows;
  // A band's RGB (coloured on the GPU) or its samples (on the CPU), the samples too where the EXR
  // needs them; its blocks deflated; the EXR's values.
  const double per_slot = (colours_on_gpu() ? band_rgb : 0.0) +
                          (!colours_on_gpu() || exr ? plan_.band_bytes() : 0.0) + band_rgb * 1.01 +
                          (exr ? 8.0 : 0.0) * plan_.width * plan_.band_rows;
  // A thread's rows: the block's RGB (coloured on the CPU) and its filtered copy, and the
  // deflater's state.
  const double per_thread = 2 * 3.0 * plan_.width * block_rows_ + (512 << 10);
  return (slots_ * per_slot + threads_ * per_thread) / (1 << 20) + exr_writer;
}

struct BandPipeline::Run {
  struct Slot {
    long long free_for = 0;  // the job (a band rendered here, numbered in order) it takes next
    long long job = -1;      // the job it holds, once rendered
    bool ready = false;      // its buffers made
    HostBuffer<float> data;  // every piece's samples, one after another (CPU colouring, EXR)
    HostBuffer<std::uint8_t> rgb;  // the band's rows coloured on the GPU, 3 bytes a pixel
    // Where its rows' RGB go (in `rgb`, or in its frame's buffer for whole frames) and a row's
    // bytes there; none where the pool colours blocks of the band in its own rows.
    std::uint8_t* rgb_rows = nullptr;
    std::size_t rgb_pitch = 0;
    int image = 0, band = 0, row0 = 0, rows = 0;
    std::vector<PngBlock> blocks;
    std::vector<char> done;
    std::vector<std::uint32_t> exr_n;
    std::vector<float> exr_nf;
    double encode_ms = 0;
  };
  struct Scratch {
    std::vector<std::uint8_t> rgb;
  };
  // An image's files while it is written: made as its first band starts rendering (so that a
  // file that cannot be made fails early, and the file is there from the start of the work),
  // written by the writer, committed by `done`.
  struct Files {
    std::optional<StreamedFile> png;
    std::optional<PngBlockWriter> writer;  // blocks only: whole frames are written by the pool
    std::unique_ptr<ExrStream> exr;
  };

  Run(BandPipeline& pipeline, const std::vector<PipelineImage>& imgs, Progress& prog,
      BandExchange* ex, const std::function<void()>& on_idle)
      : p(pipeline),
        images(imgs),
        progress(prog),
        exchange(ex),
        idle(on_idle),
        bands(pipeline.plan_.bands()),
        reference(pipeline.start_reference_) {
    tickets = static_cast<long long>(images.size()) * bands;
    for (long long t = 0; t < tickets; ++t) {
      if (exchange && !exchange->renders(t)) continue;
      jobs.push_back(t);
      rows_to_render += rows_of(t);
    }
    writes = !exchange || exchange->writes();
    rows_to_write =
        writes ? static_cast<long long>(images.size()) * p.plan_.height : rows_to_render;
    in_flight.assign(p.workers_.size(), 0.0);
    const bool exr = std::any_of(images.begin(), images.end(),
                                 [](const PipelineImage& img) { return !img.exr.empty(); });
    // Whole frames: every band of a frame renders here, so the jobs come in whole frames.
    const long long n = std::min<long long>(
        p.band_buffers(exr), std::max<long long>(1, static_cast<long long>(jobs.size())));
    if (!p.colours_on_gpu() || exr)
      slot_floats = static_cast<std::size_t>(p.plan_.piece_pixels()) * p.plan_.pieces_across() *
                    kFloatsPerPixel;
    if (p.colours_on_gpu() && !p.whole_frames_)
      slot_rgb = 3 * static_cast<std::size_t>(p.plan_.width) * p.plan_.band_rows;
    slots.resize(static_cast<std::size_t>(n));
    if (p.whole_frames_) {
      frame_rows.resize(slots.size() / static_cast<std::size_t>(bands));
      bands_rendered.assign(images.size(), 0);
      frame_written.assign(images.size(), 0);
    }
    for (long long i = 0; i < n; ++i) slots[i].free_for = i;
    records.resize(images.size());
    starts.resize(images.size());
    files.resize(images.size());
    for (int t = 0; t < p.threads_; ++t)
      if (p.whole_frames_)
        frame_encoders.push_back(std::make_unique<PngFrameEncoder>(p.png_level_));
      else
        encoders.push_back(std::make_unique<PngBlockEncoder>(p.png_level_));
    scratch.resize(static_cast<std::size_t>(p.threads_));
    pool = std::make_unique<WorkPool>(p.threads_);
    live = static_cast<int>(p.workers_.size());
    // The band buffers, made by the pool (idle until the first band is rendered) while the
    // workers make their renderers: page-locking takes milliseconds a buffer, which no GPU
    // should wait for. On the first GPU asked for, not on device 0 unasked.
    // Whole frames: a task a frame buffer, which makes its bands' slots' buffers too. The first
    // group alone, the rest once it is made and every worker's renderer too: page-locking holds
    // the driver, which the first buffer and a renderer's allocations otherwise waited for, so
    // that a sequence's first band started late (docs/measurements.md).
    group = p.whole_frames_ ? static_cast<std::size_t>(bands) : 1;
    pool->submit([this](int) {
      make_group(0);
      {
        // A timed wait: stop() sets `stopping` outside the lock.
        std::unique_lock<std::mutex> lock(m);
        while (!stopping.load() && !failed &&
               renderers_settled < static_cast<int>(p.workers_.size()))
          changed.wait_for(lock, std::chrono::milliseconds(20));
      }
      for (std::size_t first = group; first < slots.size(); first += group)
        pool->submit([this, first](int) { make_group(first); });
    });
  }
  // The buffers of slots first..first+group, then those slots ready.
  void make_group(std::size_t first) {
    try {
      if (p.gpu()) CUDA_CHECK(cudaSetDevice(p.devices_.front().index));
      if (p.whole_frames_) make_frame_rows(first / group);
      for (std::size_t i = first; i < first + group && i < slots.size(); ++i) make_buffers(i);
    } catch (...) {
      fail(std::current_exception());
    }
    {
      std::lock_guard<std::mutex> lock(m);
      for (std::size_t i = first; i < first + group && i < slots.size(); ++i) slots[i].ready = true;
    }
    changed.notify_all();
  }
  ~Run() { stop(); }

  void renderer_settled() {
    {
      std::lock_guard<std::mutex> lock(m);
      ++renderers_settled;
    }
    changed.notify_all();
  }

  void fail(std::exception_ptr e) {
    {
      std::lock_guard<std::mutex> lock(m);
      if (!failed) error = e;
      failed = true;
    }
    stopping.store(true);
    changed.notify_all();
  }
  // The workers ended and the pool's tasks run out (they skip their work once stopping), so that
  // nothing touches the buffers after this.
  void stop() {
    stopping.store(true);
    changed.notify_all();
    for (std::thread& w : threads) w.join();
    threads.clear();
    pool.reset();
  }

  // Slot i's buffers (page-locked where a GPU copies into them); for whole frames, its rows in
  // its frame's buffer, at its band's place.
  void make_buffers(std::size_t i) {
    Slot& s = slots[i];
    if (slot_floats && !s.data.get()) s.data = HostBuffer<float>(slot_floats, p.gpu());
    if (slot_rgb && !s.rgb.get()) s.rgb = HostBuffer<std::uint8_t>(slot_rgb, true);
    if (p.whole_frames_) {
      s.rgb_pitch = png_row_bytes(p.plan_.width);
      // A byte before each row for its PNG filter type.
      s.rgb_rows = frame_rows[i / static_cast<std::size_t>(bands)].get() + 1 +
                   s.rgb_pitch * static_cast<std::size_t>(i % static_cast<std::size_t>(bands)) *
                       static_cast<std::size_t>(p.plan_.band_rows);
    } else if (s.rgb.get()) {
      s.rgb_rows = s.rgb.get();
      s.rgb_pitch = 3 * static_cast<std::size_t>(p.plan_.width);
    }
  }
  // Frame buffer f: a whole frame's rows as the PNG encoder reads them (png_frame.h).
  void make_frame_rows(std::size_t f) {
    if (!frame_rows[f].get())
      frame_rows[f] = HostBuffer<std::uint8_t>(
          png_row_bytes(p.plan_.width) * static_cast<std::size_t>(p.plan_.height), p.gpu());
  }
  Slot& slot_of(long long job) {
    return slots[static_cast<std::size_t>(job % static_cast<long long>(slots.size()))];
  }
  int rows_of(long long ticket) const {
    const int row0 = static_cast<int>(ticket % bands) * p.plan_.band_rows;
    return std::min(p.plan_.band_rows, p.plan_.height - row0);
  }
  std::string band_name(long long ticket) const {
    const PipelineImage& img = images[static_cast<std::size_t>(ticket / bands)];
    const std::string band =
        "band " + std::to_string(ticket % bands + 1) + "/" + std::to_string(bands);
    return img.label.empty() ? band : img.label + ", " + band;
  }
  // How far the run is, for the progress line: "rendering" for a still of one band, else the
  // band (and the frame) as `ticket` names it.
  std::string progress_name(long long ticket) const {
    const PipelineImage& img = images[static_cast<std::size_t>(ticket / bands)];
    if (bands > 1) return band_name(ticket);
    return img.label.empty() ? "rendering" : img.label;
  }
  // A progress line where one is due, under the lock: the share of this process's rows
  // rendered (runs of bands in flight included) or written, whichever is further, never less
  // than the last said, and the furthest band reported (workers' bands finish out of order).
  void report_locked(long long ticket) {
    furthest_ticket = std::max(furthest_ticket, ticket);
    double rendered = static_cast<double>(rows_rendered);
    for (const double rows : in_flight) rendered += rows;
    const double fraction =
        std::max({last_fraction, rows_to_render ? rendered / rows_to_render : 0.0,
                  rows_to_write ? static_cast<double>(rows_written) / rows_to_write : 0.0});
    last_fraction = std::min(fraction, 1.0);
    progress.report(progress_name(furthest_ticket), last_fraction);
  }
  // The writer's wait, under the lock, until `ready`; `idle` runs about every 100 ms meanwhile.
  template <class Ready>
  void wait_writer(std::unique_lock<std::mutex>& lock, Ready ready) {
    while (!ready()) {
      if (!idle) {
        changed.wait(lock);
        continue;
      }
      lock.unlock();
      idle();
      lock.lock();
      if (!ready()) changed.wait_for(lock, std::chrono::milliseconds(100));
    }
  }

  bool take_job(std::unique_lock<std::mutex>& lock, long long& job);
  void work(int w);
  void worker_failed(int w, const std::string& why, long long job, std::exception_ptr e);
  Files& files_for(int image);
  std::shared_ptr<const DeepReference> reference_for(int image);
  void render_band(PieceRenderer& r, Slot& s, long long ticket, int worker);
  void colour_block(Slot& s, int r0, int rows, std::uint8_t* rgb, std::size_t pitch);
  void encode(Slot& s, int block, int thread);
  void encode_frame(long long first_job, int thread);
  void write_frame_exr(long long first_job);
  void write(const Done& done);
  void write_frames(const Done& done);
  void free_frame(long long first);
  void release_devices();
  bool put_band(long long ticket, long long job, EncodedBand* remote, Slot* s, const Done& done);
  bool send_band(long long ticket, long long job, Slot& s);

  BandPipeline& p;
  const std::vector<PipelineImage>& images;
  Progress& progress;
  BandExchange* exchange;
  const std::function<void()>& idle;
  const int bands;
  long long tickets = 0;
  bool writes = true;
  std::vector<long long> jobs;  // the bands (tickets) rendered here, in order
  long long next_job = 0;
  // Jobs a failed worker left, for the others to render first (the oldest first).
  std::priority_queue<long long, std::vector<long long>, std::greater<long long>> retry;
  int live = 0;               // workers still rendering
  int renderers_settled = 0;  // workers whose renderer is made, or failed to be
  int exited = 0;             // worker threads that have ended, whatever the reason
  long long rendering = 0;    // jobs taken and not yet rendered
  // Progress: rows of this process's bands rendered, and of the bands in flight (by worker);
  // rows written (or sent, where another process writes); the last share said.
  long long rows_to_render = 0, rows_rendered = 0, rows_to_write = 0, rows_written = 0;
  std::vector<double> in_flight;
  double last_fraction = 0;
  long long furthest_ticket = 0;  // the band the progress line names: never one before the last
  // What stopped the last worker, once every one has failed: the bands rendered before still go
  // out whole, and the run ends with it.
  std::exception_ptr render_error;

  std::mutex m;
  std::condition_variable changed;  // a band rendered, a block encoded, a buffer freed, a failure
  bool failed = false;
  std::exception_ptr error;
  std::atomic<bool> stopping{false};

  // The deep views' reference, made once by the first worker that needs it, for every worker.
  std::shared_ptr<const DeepReference> reference;
  bool making_reference = false;

  std::vector<Slot> slots;
  std::size_t slot_floats = 0, slot_rgb = 0;  // each slot's buffers' sizes (0: none)
  std::vector<ImageRecord> records;
  std::vector<std::optional<Clock::time_point>> starts;
  std::vector<std::unique_ptr<Files>> files;
  std::vector<std::unique_ptr<PngBlockEncoder>> encoders;        // one per pool thread (blocks)
  std::vector<std::unique_ptr<PngFrameEncoder>> frame_encoders;  // ... (whole frames)
  // Whole frames: the frame buffers (a slot's rows are in buffer slot / bands); each image's bands
  // rendered, and how many of its files (its PNG, its EXR) are written.
  std::vector<HostBuffer<std::uint8_t>> frame_rows;
  std::size_t group = 1;  // slots whose buffers are made together: a frame's bands, or one
  std::vector<int> bands_rendered;
  std::vector<char> frame_written;
  std::vector<Scratch> scratch;  // one per pool thread
  std::unique_ptr<WorkPool> pool;
  std::vector<std::thread> threads;  // the workers
  // Held while buffers are freed (free_frame) or unpinned (release_devices), on different threads.
  std::mutex buffers_m;
};

// The next job for a worker, under the lock: one a failed worker left, else the next in order;
// with none, it waits while others render (one may fail and leave its job). False: no more.
bool BandPipeline::Run::take_job(std::unique_lock<std::mutex>& lock, long long& job) {
  const long long count = static_cast<long long>(jobs.size());
  changed.wait(lock,
               [&] { return failed || !retry.empty() || next_job < count || rendering == 0; });
  if (failed) return false;
  if (!retry.empty()) {
    job = retry.top();
    retry.pop();
  } else if (next_job < count) {
    job = next_job++;
  } else {
    return false;
  }
  ++rendering;
  return true;
}

void BandPipeline::Run::work(int w) {
  WorkerReport& me = p.workers_[static_cast<std::size_t>(w)];
  std::unique_ptr<PieceRenderer> r;
  try {
    r = std::make_unique<PieceRenderer>(me.device, p.plan_.piece_pixels(), p.approximate_);
  } catch (const CudaError& e) {
    renderer_settled();
    return worker_failed(w, e.what(), -1, std::current_exception());
  } catch (...) {
    renderer_settled();
    return fail(std::current_exception());
  }
  {
    std::lock_guard<std::mutex> lock(m);
    me.ready = Clock::now();
  }
  renderer_settled();
  int rendered = 0;
  for (;;) {
    long long job = 0;
    Slot* s = nullptr;
    {
      std::unique_lock<std::mutex> lock(m);
      if (!take_job(lock, job)) return;
      s = &slot_of(job);
      // An older job left by a failed worker goes first: the writer waits for it, and its
      // buffer may be the one this job waits for.
      changed.wait(lock, [&] {
        return failed || (s->free_for == job && s->ready) || (!retry.empty() && retry.top() < job);
      });
      if (failed) return;
      if (s->free_for != job || !s->ready) {
        retry.push(job);
        --rendering;
        continue;
      }
    }
    const long long t = jobs[static_cast<std::size_t>(job)];
    const int k = static_cast<int>(t / bands), b = static_cast<int>(t % bands);
    const Clock::time_point start = Clock::now();
    try {
      {
        std::lock_guard<std::mutex> lock(m);
        if (!starts[k]) starts[k] = records[static_cast<std::size_t>(k)].started = start;
      }
      if (writes) files_for(k);
      try {
        if (w == p.hooks_.fail_worker && rendered == p.hooks_.fail_after)
          throw CudaError("injected failure (MANDELPIPE_TEST_FAIL_WORKER)");
        render_band(*r, *s, t, w);
      } catch (const CudaError& e) {
        return worker_failed(w, e.what(), job, std::current_exception());
      }
    } catch (...) {
      return fail(std::current_exception());
    }
    const double ms = ms_since(start);
    {
      std::lock_guard<std::mutex> lock(m);
      ImageRecord& rec = records[static_cast<std::size_t>(k)];
      if (rec.first_rendered == Clock::time_point{}) rec.first_rendered = Clock::now();
      WorkerShare& share = rec.by_worker[w];
      add_stats(rec, share, *r);
      share.bands.push_back(b);
      share.render_ms += ms;
      rec.render_ms += ms;
      ++me.bands;
      me.compute_ms += r->gpu_stats.kernel_ms + r->deep_stats.ms + r->cpu.ms;
      s->job = job;
      --rendering;
      rows_rendered += s->rows;
      in_flight[static_cast<std::size_t>(w)] = 0;
    }
    ++rendered;
    r->reset_stats();
    bool frame_whole = false;
    if (p.whole_frames_) {
      std::lock_guard<std::mutex> lock(m);
      frame_whole = ++bands_rendered[static_cast<std::size_t>(k)] == bands;
    }
    changed.notify_all();
    if (frame_whole) {
      const long long first = job - b;  // whole frames: every band renders here, in order
      pool->submit([this, first](int thread) { encode_frame(first, thread); });
    }
    for (int j = 0; j < static_cast<int>(s->blocks.size()); ++j)
      pool->submit([this, s, j](int thread) { encode(*s, j, thread); });
  }
}

// A worker's GPU failed at `job` (-1: before any): the job goes back to the queue for the
// others, and stderr says so; where none is left, the run fails with the error.
void BandPipeline::Run::worker_failed(int w, const std::string& why, long long job,
                                      std::exception_ptr e) {
  WorkerReport& me = p.workers_[static_cast<std::size_t>(w)];
  std::string line;
  {
    std::lock_guard<std::mutex> lock(m);
    me.failed = why;
    in_flight[static_cast<std::size_t>(w)] = 0;
    const bool last = --live == 0;
    if (job >= 0) --rendering;
    const std::string band = job >= 0 ? band_name(jobs[static_cast<std::size_t>(job)]) : "";
    if (last) {
      render_error = e;
    } else {
      if (job >= 0) {
        retry.push(job);
        me.redone.push_back(band);
      }
      line = "mandelpipe: " + me.name + " failed: " + why + "; " +
             (job >= 0 ? band + " and the rest go" : "its work goes") + " to the other " +
             (live == 1 ? "worker" : std::to_string(live) + " workers") + "\n";
    }
  }
  std::cerr << line << std::flush;
  changed.notify_all();
}

// Image `image`'s files, made by the first to need them (its first band's worker, or the writer
// where that band was rendered elsewhere).
BandPipeline::Run::Files& BandPipeline::Run::files_for(int image) {
  std::lock_guard<std::mutex> lock(m);
  std::unique_ptr<Files>& f = files[static_cast<std::size_t>(image)];
  if (f) return *f;
  const Plan& plan = p.plan_;
  const PipelineImage& img = images[static_cast<std::size_t>(image)];
  auto made = std::make_unique<Files>();
  made->png.emplace(img.png);
  if (!p.whole_frames_)
    made->writer.emplace(made->png->stream(), img.png.string(), plan.width, plan.height,
                         p.png_level_);
  if (!img.exr.empty())
    made->exr = std::make_unique<ExrStream>(img.exr, plan.width, plan.height, img.view.max_iter,
                                            img.exr_attributes, img.exr_compression);
  f = std::move(made);
  return *f;
}

// The reference for image `image`'s view: the one its other bands use, else the last one made
// where it serves, else a new one, made by this worker while the others needing one wait for it.
// An image keeps its reference until it is written, so that workers on neighbouring frames of a
// zoom do not make each other's again.
std::shared_ptr<const DeepReference> BandPipeline::Run::reference_for(int image) {
  const View& view = images[static_cast<std::size_t>(image)].view;
  const int w = p.plan_.width * p.plan_.ss, h = p.plan_.height * p.plan_.ss;
  std::unique_lock<std::mutex> lock(m);
  ImageRecord& rec = records[static_cast<std::size_t>(image)];
  for (;;) {
    if (rec.reference) return rec.reference;
    if (reference && serves(*reference, view, w, h)) return rec.reference = reference;
    if (!making_reference) break;
    changed.wait(lock, [&] { return !making_reference; });
  }
  making_reference = true;
  lock.unlock();
  std::shared_ptr<const DeepReference> made;
  try {
    made = make_reference_said(view, w, h, progress, p.approximate_);
  } catch (...) {
    lock.lock();
    making_reference = false;
    changed.notify_all();
    throw;
  }
  lock.lock();
  reference = made;
  rec.reference = made;
  making_reference = false;
  changed.notify_all();
  return made;
}

void BandPipeline::Run::render_band(PieceRenderer& r, Slot& s, long long ticket, int worker) {
  const int image = static_cast<int>(ticket / bands), band = static_cast<int>(ticket % bands);
  const Plan& plan = p.plan_;
  const PipelineImage& img = images[static_cast<std::size_t>(image)];
  const int ss = plan.ss;
  s.image = image;
  s.band = band;
  s.row0 = band * plan.band_rows;
  s.rows = std::min(plan.band_rows, plan.height - s.row0);
  const int blocks = p.whole_frames_ ? 0 : ceil_div(s.rows, p.block_rows_);
  s.blocks.resize(static_cast<std::size_t>(blocks));
  s.done.assign(static_cast<std::size_t>(blocks), 0);
  s.encode_ms = 0;
  if (!img.exr.empty()) {
    s.exr_n.resize(static_cast<std::size_t>(plan.width) * s.rows);
    s.exr_nf.resize(s.exr_n.size());
  }
  const int w = plan.width * ss, h = plan.height * ss;
  if (img.choice.perturbation) r.use_reference(reference_for(image));
  const PixelGrid whole = pixel_grid(img.view, w, h);
  for (int piece = 0; piece < plan.pieces_across(); ++piece) {
    const int col0 = piece * plan.piece_columns;
    PixelGrid g = whole;
    g.width = std::min(plan.piece_columns, plan.width - col0) * ss;
    g.height = s.rows * ss;
    // The piece's first sample where the whole image's grid has it.
    g.x0 = std::fma(static_cast<double>(col0) * ss, whole.dx, whole.x0);
    g.y0 = std::fma(static_cast<double>(s.row0) * ss, whole.dy, whole.y0);
    // The samples to the host where the pool colours them or the EXR takes them; on the GPU they
    // stay there to be coloured.
    float* out = p.colours_on_gpu() && img.exr.empty()
                     ? nullptr
                     : s.data.get() +
                           static_cast<std::size_t>(piece) * plan.piece_pixels() * kFloatsPerPixel;
    // Progress after each run of the piece (PieceRenderer: about Progress::kStep each).
    const auto run_done = [&](double fraction) {
      std::lock_guard<std::mutex> lock(m);
      in_flight[static_cast<std::size_t>(worker)] =
          s.rows * (piece + fraction) / plan.pieces_across();
      report_locked(ticket);
    };
    if (img.choice.perturbation)
      r.render_deep(*img.choice.perturbation, img.view, w, h,
                    {col0 * ss, s.row0 * ss, g.width, g.height}, out, run_done);
    else
      r.render(img.choice.variant, g, img.view.max_iter, out, run_done);
    if (p.colours_on_gpu())
      r.colour(p.device_look_, g.width, g.height, ss,
               s.rgb_rows + static_cast<std::size_t>(col0) * 3, s.rgb_pitch);
  }
}

// Rows r0.. of the band's pieces coloured into `rgb` (a row every `pitch` bytes) where the pool
// colours them (the CPU path; the GPU's come coloured), their samples averaged; the EXR's values
// of those rows too where asked.
void BandPipeline::Run::colour_block(Slot& s, int r0, int rows, std::uint8_t* rgb,
                                     std::size_t pitch) {
  const Plan& plan = p.plan_;
  const int ss = plan.ss, width = plan.width;
  const bool exr = !images[static_cast<std::size_t>(s.image)].exr.empty();
  const bool gpu = p.colours_on_gpu();
  for (int piece = 0; piece < plan.pieces_across() && (!gpu || exr); ++piece) {
    const int col0 = piece * plan.piece_columns;
    const int cols = std::min(plan.piece_columns, width - col0), gw = cols * ss;
    const float* d = s.data.get() + (static_cast<std::size_t>(piece) * plan.piece_pixels() +
                                     static_cast<std::size_t>(r0) * ss * gw) *
                                        kFloatsPerPixel;
    if (!gpu)
      colour_rows(d, gw, cols, rows, ss, p.look_.lut, p.look_.colour, rgb + col0 * 3, pitch);
    if (exr)  // one sample a pixel (--exr needs --ss 1)
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
          const float smooth = d[(static_cast<std::size_t>(r) * gw + c) * kFloatsPerPixel];
          const ExrSample e = exr_sample(smooth);
          const std::size_t at = static_cast<std::size_t>(r0 + r) * width + col0 + c;
          s.exr_n[at] = e.n;
          s.exr_nf[at] = e.nf;
        }
  }
}

// Block `block` of the band: coloured where the pool colours it, then filtered and deflated.
void BandPipeline::Run::encode(Slot& s, int block, int thread) {
  if (stopping.load()) return;
  try {
    const Clock::time_point start = Clock::now();
    const int width = p.plan_.width;
    const int r0 = block * p.block_rows_, rows = std::min(p.block_rows_, s.rows - r0);
    Scratch& sc = scratch[static_cast<std::size_t>(thread)];
    const bool gpu = p.colours_on_gpu();
    if (!gpu) sc.rgb.resize(static_cast<std::size_t>(width) * rows * 3);
    std::uint8_t* rgb =
        gpu ? s.rgb_rows + static_cast<std::size_t>(r0) * s.rgb_pitch : sc.rgb.data();
    colour_block(s, r0, rows, rgb, static_cast<std::size_t>(width) * 3);
    const bool last = s.band == bands - 1 && r0 + rows == s.rows;
    encoders[static_cast<std::size_t>(thread)]->encode(rgb, width, rows, last,
                                                       s.blocks[static_cast<std::size_t>(block)]);
    const double ms = ms_since(start);
    {
      std::lock_guard<std::mutex> lock(m);
      s.done[static_cast<std::size_t>(block)] = 1;
      s.encode_ms += ms;
    }
    changed.notify_all();
  } catch (...) {
    fail(std::current_exception());
  }
}

// A whole frame, its bands rendered (jobs first.. in its frame buffer): coloured where the pool
// colours it, encoded as one PNG and written into its file by this thread, beside the others'
// frames, while another pool thread writes its EXR; the writer commits it in order.
void BandPipeline::Run::encode_frame(long long first_job, int thread) {
  if (stopping.load()) return;
  try {
    const Clock::time_point start = Clock::now();
    const Plan& plan = p.plan_;
    const int image = slot_of(first_job).image;
    for (int b = 0; b < bands; ++b) {
      Slot& s = slot_of(first_job + b);
      colour_block(s, 0, s.rows, s.rgb_rows, s.rgb_pitch);
    }
    std::uint8_t* rows = slot_of(first_job).rgb_rows - 1;
    Files& f = files_for(image);
    if (f.exr) pool->submit([this, first_job](int) { write_frame_exr(first_job); });
    // The time in the encoder, less its writes (at level 0 they come in chunks as it goes).
    double write_ms = 0;
    frame_encoders[static_cast<std::size_t>(thread)]->encode(
        rows, plan.width, plan.height, [&](const std::uint8_t* data, std::size_t size) {
          const Clock::time_point t = Clock::now();
          errno = 0;
          if (std::fwrite(data, 1, size, f.png->stream()) != size)
            throw std::runtime_error("cannot write " +
                                     images[static_cast<std::size_t>(image)].png.string() + ": " +
                                     std::strerror(errno ? errno : EIO));
          write_ms += ms_since(t);
        });
    const double encode_ms = ms_since(start) - write_ms;
    {
      std::lock_guard<std::mutex> lock(m);
      ImageRecord& rec = records[static_cast<std::size_t>(image)];
      rec.encode_ms += encode_ms;
      rec.write_ms += write_ms;
      ++frame_written[static_cast<std::size_t>(image)];
    }
    changed.notify_all();
  } catch (...) {
    fail(std::current_exception());
  }
}

// A whole frame's EXR rows (their values made with its PNG's rows), compressed and written on a
// pool thread beside the other frames' PNGs and EXRs rather than one frame after another by the
// writer, which then only ends the file, in order.
void BandPipeline::Run::write_frame_exr(long long first_job) {
  if (stopping.load()) return;
  try {
    const Clock::time_point start = Clock::now();
    const int image = slot_of(first_job).image;
    ExrStream& exr = *files_for(image).exr;
    for (int b = 0; b < bands; ++b) {
      const Slot& s = slot_of(first_job + b);
      exr.write_rows(s.exr_n.data(), s.exr_nf.data(), s.rows);
    }
    const double ms = ms_since(start);
    {
      std::lock_guard<std::mutex> lock(m);
      records[static_cast<std::size_t>(image)].write_ms += ms;
      ++frame_written[static_cast<std::size_t>(image)];
    }
    changed.notify_all();
  } catch (...) {
    fail(std::current_exception());
  }
}

// Every band in order, on the calling thread: into each image's files where this process
// writes them (those rendered elsewhere as the exchange brings them), else to the exchange.
void BandPipeline::Run::write(const Done& done) {
  const int workers = static_cast<int>(p.workers_.size());
  long long job = 0;
  for (long long t = 0; t < tickets; ++t) {
    if (job == static_cast<long long>(jobs.size()) || jobs[static_cast<std::size_t>(job)] != t) {
      if (!writes) continue;
      EncodedBand band = exchange->receive(t);
      if (!put_band(t, -1, &band, nullptr, done)) return;
      continue;
    }
    Slot& s = slot_of(job);
    {
      std::unique_lock<std::mutex> lock(m);
      wait_writer(lock, [&] { return failed || s.job == job || exited == workers; });
      if (failed) return;
      if (s.job != job) {  // every worker has ended: this band will not come
        if (render_error) std::rethrow_exception(render_error);
        throw std::logic_error("render: " + band_name(t) + " was never rendered");
      }
    }
    if (!(writes ? put_band(t, job, nullptr, &s, done) : send_band(t, job, s))) return;
    ++job;
  }
}

// Whole frames, on the calling thread: each, once the pool has written it (and its EXR's rows),
// committed by `done` in order, its EXR ended beside it, and its buffers freed for the frames
// after.
void BandPipeline::Run::write_frames(const Done& done) {
  const int workers = static_cast<int>(p.workers_.size());
  const long long count = static_cast<long long>(slots.size());
  for (int k = 0; k < static_cast<int>(images.size()); ++k) {
    const std::size_t i = static_cast<std::size_t>(k);
    const long long first = static_cast<long long>(k) * bands;
    {
      std::unique_lock<std::mutex> lock(m);
      const int parts = images[i].exr.empty() ? 1 : 2;  // its PNG, and its EXR where asked
      wait_writer(lock, [&] {
        return failed || frame_written[i] == parts ||
               (exited == workers && bands_rendered[i] < bands);
      });
      if (failed) return;
      if (frame_written[i] != parts) {  // every worker has ended: this frame will not come
        if (render_error) std::rethrow_exception(render_error);
        throw std::logic_error("render: " + images[i].label + " was never rendered");
      }
    }
    Files& f = files_for(k);
    ImageRecord& rec = records[i];
    if (f.exr) {
      const Clock::time_point start = Clock::now();
      f.exr->finish();
      const double ms = ms_since(start);
      std::lock_guard<std::mutex> lock(m);
      rec.write_ms += ms;
    }
    ImageRecord copy;
    {
      std::lock_guard<std::mutex> lock(m);
      for (int b = 0; b < bands; ++b) {
        Slot& s = slot_of(first + b);
        s.job = -1;
        s.free_for = first + b + count;
      }
      rows_written += p.plan_.height;
      report_locked(first + bands - 1);
      rec.wall_ms = ms_since(*starts[i]);
      copy = rec;
    }
    changed.notify_all();
    // Buffers no later frame takes are given back now, by an idle pool thread, rather than all
    // at the end: page-locked memory is slow to free.
    if (first + count >= static_cast<long long>(jobs.size()))
      pool->submit([this, first](int) { free_frame(first); });
    done(k, *f.png, copy);
    std::lock_guard<std::mutex> lock(m);
    files[i].reset();
    rec.reference.reset();
  }
}

// The buffers of the frame at jobs `first`.., once no later frame will take them.
void BandPipeline::Run::free_frame(long long first) {
  std::lock_guard<std::mutex> lock(buffers_m);
  for (int b = 0; b < bands; ++b) {
    Slot& s = slot_of(first + b);
    s.data = {};
    s.rgb_rows = nullptr;
  }
  const std::size_t frame = static_cast<std::size_t>(first % static_cast<long long>(slots.size())) /
                            static_cast<std::size_t>(bands);
  frame_rows[frame] = {};
}

// Every worker has ended: where each ended well and every buffer is made (none is made or
// copied into after this), the buffers unpinned and the devices' contexts released, while the
// pool and the writer finish the last bands.
void BandPipeline::Run::release_devices() {
  {
    std::lock_guard<std::mutex> lock(m);
    if (failed || live < static_cast<int>(p.workers_.size()) ||
        !std::all_of(slots.begin(), slots.end(), [](const Slot& s) { return s.ready; }))
      return;
  }
  {
    std::lock_guard<std::mutex> lock(buffers_m);
    for (Slot& s : slots) {
      s.data.unpin();
      s.rgb.unpin();
    }
    for (HostBuffer<std::uint8_t>& rows : frame_rows) rows.unpin();
  }
  release_contexts(p.devices_);
  p.contexts_released_ = Clock::now();
}

// Band `ticket` into its image's files, its blocks from `remote` or, as they are encoded, from
// slot `s` (which is then freed for the job after `job`); the image committed by `done` once its
// last band is in. False where the run failed meanwhile.
bool BandPipeline::Run::put_band(long long ticket, long long job, EncodedBand* remote, Slot* s,
                                 const Done& done) {
  const int image = static_cast<int>(ticket / bands), band = static_cast<int>(ticket % bands);
  {
    std::lock_guard<std::mutex> lock(m);
    if (!starts[image])
      starts[image] = records[static_cast<std::size_t>(image)].started = Clock::now();
  }
  Files& f = files_for(image);
  ImageRecord& rec = records[static_cast<std::size_t>(image)];
  std::vector<PngBlock>& blocks = remote ? remote->blocks : s->blocks;
  double write_ms = 0;
  for (std::size_t j = 0; j < blocks.size(); ++j) {
    if (s) {
      std::unique_lock<std::mutex> lock(m);
      wait_writer(lock, [&] { return failed || s->done[j]; });
      if (failed) return false;
    }
    const Clock::time_point start = Clock::now();
    f.writer->write(blocks[j]);
    write_ms += ms_since(start);
    std::lock_guard<std::mutex> lock(m);
    rows_written += blocks[j].rows;
    report_locked(ticket);
    blocks[j].deflated = {};
  }
  const int rows = remote ? remote->rows : s->rows;
  if (f.exr) {
    const Clock::time_point start = Clock::now();
    f.exr->write_rows(remote ? remote->exr_n.data() : s->exr_n.data(),
                      remote ? remote->exr_nf.data() : s->exr_nf.data(), rows);
    write_ms += ms_since(start);
  }
  {
    std::lock_guard<std::mutex> lock(m);
    rec.write_ms += write_ms;
    if (s) {
      rec.encode_ms += s->encode_ms;
      s->job = -1;
      s->free_for = job + static_cast<long long>(slots.size());
    }
  }
  changed.notify_all();
  if (band + 1 < bands) return true;
  if (!f.writer->complete()) throw std::logic_error("PNG: an image ended short of its rows");
  if (f.exr) f.exr->finish();
  ImageRecord copy;
  {
    std::lock_guard<std::mutex> lock(m);
    rec.wall_ms = ms_since(*starts[static_cast<std::size_t>(image)]);
    copy = rec;
  }
  done(image, *f.png, copy);
  std::lock_guard<std::mutex> lock(m);
  files[static_cast<std::size_t>(image)].reset();
  rec.reference.reset();  // a deep frame's orbit and tables, no longer needed
  return true;
}

// Band `ticket`, rendered here, to the process that writes: its blocks once all are encoded.
bool BandPipeline::Run::send_band(long long ticket, long long job, Slot& s) {
  EncodedBand band;
  band.rows = s.rows;
  for (std::size_t j = 0; j < s.blocks.size(); ++j) {
    std::unique_lock<std::mutex> lock(m);
    wait_writer(lock, [&] { return failed || s.done[j]; });
    if (failed) return false;
    lock.unlock();
    band.blocks.push_back(std::move(s.blocks[j]));
  }
  if (!images[static_cast<std::size_t>(s.image)].exr.empty()) {
    band.exr_n = s.exr_n;
    band.exr_nf = s.exr_nf;
  }
  {
    std::lock_guard<std::mutex> lock(m);
    records[static_cast<std::size_t>(s.image)].encode_ms += s.encode_ms;
    s.job = -1;
    s.free_for = job + static_cast<long long>(slots.size());
    rows_written += s.rows;
    report_locked(ticket);
  }
  changed.notify_all();
  exchange->send(ticket, std::move(band));
  return true;
}

std::vector<ImageRecord> BandPipeline::run(const std::vector<PipelineImage>& images,
                                           Progress& progress, const Done& done,
                                           BandExchange* exchange,
                                           const std::function<void()>& idle) {
  if (images.empty()) return {};
  if (whole_frames() && exchange)
    throw std::logic_error("render: whole frames are written by the process that renders them");
  for (const PipelineImage& img : images)
    if (!img.exr.empty()) {
      set_exr_threads(threads_);
      break;
    }
  run_entered_ = Clock::now();
  contexts_released_ = {};
  Run run(*this, images, progress, exchange, idle);
  buffers_ready_ = Clock::now();
  const int workers = static_cast<int>(workers_.size());
  for (int w = 0; w < workers; ++w)
    run.threads.emplace_back([this, &run, w, workers] {
      run.work(w);
      bool last = false;
      {
        std::lock_guard<std::mutex> lock(run.m);
        last = ++run.exited == workers;
      }
      run.changed.notify_all();
      if (last && release_devices_ && gpu()) run.release_devices();
    });
  try {
    if (whole_frames())
      run.write_frames(done);
    else
      run.write(done);
  } catch (...) {
    run.fail(std::current_exception());
  }
  run.stop();
  if (run.error) std::rethrow_exception(run.error);
  return run.records;
}

}  // namespace mp
