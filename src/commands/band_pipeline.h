// render's pipeline: the images (a still, or a zoom sequence's frames) cut into bands, which a
// render worker computes (on the GPU, or the CPU reference) into one of a few band buffers while
// a pool of threads, one per core, colours and compresses the bands before it, each in blocks of
// rows (png_stream.h), and the calling thread writes the blocks in order: each image one PNG,
// streamed, with its EXR beside it where asked. Memory is the band buffers and the blocks in
// flight, whatever the image's size.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands/render_plan.h"
#include "gpu_renderer.h"
#include "io/files.h"
#include "model/palette.h"
#include "model/precision_choice.h"
#include "render/cpu_renderer.h"
#include "session/deep_renderer.h"

namespace mp {

struct Look {
  std::vector<std::uint8_t> lut;
  ColourParams colour;
};

struct PipelineImage {
  View view;
  PrecisionChoice choice;
  std::filesystem::path png;
  std::filesystem::path exr;  // "" for none
  std::map<std::string, std::string> exr_attributes;
  std::string label;  // for progress ("frame 3/120"); "" for a still
};

// What an image took, measured.
struct ImageRecord {
  int launches = 0;
  GpuFrameStats gpu;  // summed over its launches (plain variants on the GPU)
  CpuFrameStats cpu;  // ... on the CPU
  DeepStats deep;     // ... by perturbation
  std::shared_ptr<const DeepReference> reference;  // the deep view's, where one rendered it
  double render_ms = 0;  // the render worker's wall time on its bands: launches and copies
  double encode_ms = 0;  // colouring and compression, summed over the pool's threads
  double write_ms = 0;   // its blocks written to its file
  double wall_ms = 0;    // from its first band's start to its files written whole
  // The GPU's kernel time (CUDA events) or, on the CPU, the CPU reference's wall time.
  double compute_ms() const { return deep.launches ? deep.ms : gpu.kernel_ms + cpu.ms; }
};

class BandPipeline {
 public:
  // With a device, the GPU renders on it; otherwise the CPU reference. `threads`: the pool's
  // (usable_cores() where 0).
  BandPipeline(const Plan& plan, const Look& look, int png_level,
               const std::optional<DeviceInfo>& device, bool approximate, int threads = 0);
  ~BandPipeline();
  BandPipeline(const BandPipeline&) = delete;
  BandPipeline& operator=(const BandPipeline&) = delete;

  std::string renderer_description() const;
  bool gpu() const { return device_.has_value(); }
  int threads() const { return threads_; }
  int band_buffers() const { return slots_; }
  // Host memory in flight at most: the band buffers, their blocks, the threads' rows.
  double working_mib(bool exr) const;

  // Renders `images` in order. Once an image's PNG is written whole (and its EXR finished and
  // renamed into place), `done(k, png, record)` runs on the calling thread, which commits the PNG.
  // Throws what failed first (a CUDA error as CudaError, a file as "cannot write ..."), after
  // which no temporary file is left.
  using Done = std::function<void(int image, StreamedFile& png, const ImageRecord& record)>;
  void run(const std::vector<PipelineImage>& images, Progress& progress, const Done& done);

 private:
  struct Run;
  Plan plan_;
  Look look_;
  int png_level_;
  std::optional<DeviceInfo> device_;
  bool approximate_;
  int threads_, block_rows_, slots_;
};

}  // namespace mp
