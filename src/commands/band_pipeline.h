// render's pipeline: the images (a still, or a zoom sequence's frames) cut into bands, which the
// render workers (one per GPU, each with its own renderer, or one on the CPU reference) take
// from one queue and compute into a few band buffers while a pool of threads, one per core,
// colours and compresses the bands before them, and the calling thread writes them in order. A
// still is encoded in blocks of rows (png_stream.h) that the writer streams into its one PNG, so
// that memory is the band buffers and the blocks in flight, whatever the image's size. A
// sequence's frames, where a frame is small enough to hold whole, are each encoded whole by one
// pool thread (png_frame.h: one stream a frame, faster a core than blocks), which writes it into
// its file too, frames side by side; the writer then only commits them in order. Memory is then
// the frames in flight, a few more than the pool's threads. A worker whose GPU fails leaves its
// band to the others.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "colour_kernel.h"
#include "commands/render_plan.h"
#include "gpu_renderer.h"
#include "io/exr_file.h"
#include "io/files.h"
#include "io/png_stream.h"
#include "model/palette.h"
#include "model/precision_choice.h"
#include "render/cpu_renderer.h"
#include "session/deep_renderer.h"

namespace mp {

struct Look {
  std::vector<std::uint8_t> lut;  // kLutSize RGBA8 texels
  ColourParams colour;
};

struct PipelineImage {
  View view;
  PrecisionChoice choice;
  std::filesystem::path png;
  std::filesystem::path exr;  // "" for none
  std::map<std::string, std::string> exr_attributes;
  std::string label;  // for progress ("frame 3/120"); "" for a still
  ExrCompression exr_compression = kDefaultExrCompression;
};

// What one worker rendered of an image, and its launches' figures.
struct WorkerShare {
  std::vector<int> bands;
  int launches = 0;
  GpuFrameStats gpu;
  CpuFrameStats cpu;
  DeepStats deep;
  double render_ms = 0;
  double colour_ms = 0;  // the colour kernel's time on its bands (GPU workers)
};

// What an image took, measured.
struct ImageRecord {
  std::map<int, WorkerShare> by_worker;  // by the worker's place in workers()
  int launches = 0;
  GpuFrameStats gpu;  // summed over its launches (plain variants on the GPU)
  CpuFrameStats cpu;  // ... on the CPU
  DeepStats deep;     // ... by perturbation
  std::shared_ptr<const DeepReference> reference;  // the deep view's, where one rendered it
  double render_ms = 0;  // the render worker's wall time on its bands: launches, colour, copies
  double colour_ms = 0;  // on the GPU: the colour kernel's time (CUDA events), in render_ms
  double encode_ms = 0;  // the pool's: colouring (on the CPU path) and compression, summed
  double write_ms = 0;   // its blocks written to its file
  double wall_ms = 0;    // from its first band's start to its files written whole
  // When its first band started rendering, and when the first of its bands was rendered.
  std::chrono::steady_clock::time_point started, first_rendered;
  // The GPU's kernel time (CUDA events) or, on the CPU, the CPU reference's wall time.
  double compute_ms() const { return gpu.kernel_ms + cpu.ms + deep.ms; }
};

// A render worker over the run: a GPU, or the CPU reference.
struct WorkerReport {
  std::string name;  // "GPU 0 (NVIDIA H100 80GB HBM3)", "CPU reference (16 threads)"
  std::optional<DeviceInfo> device;
  int bands = 0;                    // bands it rendered
  double compute_ms = 0;            // its kernels' time (the CPU reference's wall time)
  std::string failed;               // why it stopped rendering; "" where it did not
  std::vector<std::string> redone;  // its bands the others rendered again ("frame 3, band 2")
  std::chrono::steady_clock::time_point ready;  // its renderer made (the GPU's context, buffers)
};

// Test hooks (render reads them from MANDELPIPE_TEST_CPU_WORKERS and MANDELPIPE_TEST_FAIL_WORKER,
// docs/architecture.md): several CPU workers, so that the queue's sharing and hand-over run
// without GPUs, and a worker that fails as a GPU does once it has rendered `fail_after` bands.
struct PipelineHooks {
  int cpu_workers = 1;
  int fail_worker = -1;
  int fail_after = 0;
};

// A band's blocks and EXR rows as they leave the process that encoded them.
struct EncodedBand {
  int rows = 0;
  std::vector<PngBlock> blocks;
  std::vector<std::uint32_t> exr_n;
  std::vector<float> exr_nf;
};

// How a run's bands are shared among processes (render's MPI ranks): which ones this process
// renders, and how the others' blocks reach the process that writes the files. A band is
// numbered image * bands + band, in the order written. The writer (the calling thread of run())
// makes every call.
class BandExchange {
 public:
  virtual ~BandExchange() = default;
  virtual bool renders(long long band) const = 0;
  virtual bool writes() const = 0;  // this process writes the files
  // The writer's: a band encoded elsewhere, the next in order.
  virtual EncodedBand receive(long long band) = 0;
  // A band encoded here, for the process that writes.
  virtual void send(long long band, EncodedBand&& encoded) = 0;
};

// What the pipeline writes: one image (a still), or several as a sequence's frames.
enum class PipelineOutput { kStill, kSequence };

class BandPipeline {
 public:
  // A worker per device, each rendering on its own; none: the CPU reference. `threads`: the
  // pool's (usable_cores() where 0).
  BandPipeline(const Plan& plan, const Look& look, PipelineOutput output, int png_level,
               const std::vector<DeviceInfo>& devices, bool approximate,
               const PipelineHooks& hooks = {}, int threads = 0);
  ~BandPipeline();
  BandPipeline(const BandPipeline&) = delete;
  BandPipeline& operator=(const BandPipeline&) = delete;

  std::string renderer_description() const;
  bool gpu() const { return !devices_.empty(); }
  // Where the bands are coloured: by the colour kernel on the GPU that rendered them (the pool
  // then only filters and deflates), or by the pool on the CPU path.
  bool colours_on_gpu() const { return gpu(); }
  // After run(): each worker's part, failures included.
  const std::vector<WorkerReport>& workers() const { return workers_; }
  int threads() const { return threads_; }
  // The band buffers a run uses (a frame's bands each, for whole frames), with an EXR or not.
  int band_buffers(bool exr) const;
  // Each frame encoded whole by one thread (a sequence's frames of at most kMaxWholeFrameBytes),
  // rather than in blocks of rows streamed by the writer.
  bool whole_frames() const { return whole_frames_; }
  // The encoder, in a phrase for the sidecar and frames.json.
  std::string encoder_description() const;
  // The last run()'s start, and when its pool of encoding threads was ready (the band buffers
  // are made by the workers as each first renders into one).
  std::chrono::steady_clock::time_point run_entered() const { return run_entered_; }
  std::chrono::steady_clock::time_point buffers_ready() const { return buffers_ready_; }
  // Host memory in flight at most: the band buffers, their blocks, the threads' rows.
  double working_mib(bool exr) const;
  // For a process whose CUDA work ends with the next run() (render's): once every worker has
  // ended well, the band buffers are unpinned and the devices' contexts released
  // (release_contexts) while the pool and the writer finish, so that the driver's teardown is
  // not all left to the process's exit. No CUDA call may follow that run.
  void release_devices_after_run() { release_devices_ = true; }
  // When the last run() released them; the clock's epoch where it did not.
  std::chrono::steady_clock::time_point contexts_released() const { return contexts_released_; }
  // A deep view's reference made before the run (a preview's): the run's first, used by every
  // image it serves instead of one made again.
  void start_from(std::shared_ptr<const DeepReference> ref) { start_reference_ = std::move(ref); }

  // Renders `images` in order. Once an image's PNG is written whole (and its EXR finished and
  // renamed into place), `done(k, png, record)` runs on the calling thread, which commits the PNG.
  // A GPU that fails (a CUDA error) stops its worker, says so on stderr, and its band goes to the
  // others. Throws what failed first (a CUDA error where every worker failed, as CudaError; a file
  // as "cannot write ..."), after which no temporary file is left.
  // With `exchange`, only the bands it says render here, and the others come from it (where this
  // process writes) or this one's go to it (where it does not: then no file is made, and `done`
  // is not called). `idle`, where given, runs on the calling thread about every 100 ms while the
  // writer waits (what else the process must answer). Returns each image's record (on a process
  // that does not write, its part).
  using Done = std::function<void(int image, StreamedFile& png, const ImageRecord& record)>;
  std::vector<ImageRecord> run(const std::vector<PipelineImage>& images, Progress& progress,
                               const Done& done, BandExchange* exchange = nullptr,
                               const std::function<void()>& idle = {});

 private:
  struct Run;
  // Whole frames: one in flight's memory, and how many are (0 for blocks).
  double frame_mib(bool exr) const;
  int frames_in_flight(bool exr) const;
  Plan plan_;
  Look look_;
  ColourLook device_look_;
  int png_level_;
  std::vector<DeviceInfo> devices_;
  bool approximate_;
  PipelineHooks hooks_;
  int threads_, block_rows_, slots_;
  bool whole_frames_ = false;
  std::vector<WorkerReport> workers_;
  bool release_devices_ = false;
  std::shared_ptr<const DeepReference> start_reference_;
  std::chrono::steady_clock::time_point run_entered_, buffers_ready_, contexts_released_;
};

}  // namespace mp
