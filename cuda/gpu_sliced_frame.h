// A GPU frame rendered in launches of bounded length, resumable between calls, so that the
// window draws and answers input between them: CpuSlicedFrame's twin for the CUDA path.
#pragma once

#include <optional>

#include "gpu_renderer.h"
#include "kernel_params.h"
#include "variants.h"

namespace mp {

class GpuSlicedFrame {
 public:
  // Drops any unfinished frame and starts this one.
  void start(VariantId variant, const PixelGrid& grid, unsigned max_iter);
  bool done() const { return next_ >= total_; }
  double progress() const { return total_ ? static_cast<double>(next_) / total_ : 1.0; }
  // Launches the next range of tiles, sized (launch_plan.h) to take about target_ms of GPU time
  // (0: all that is left), into the whole frame's outputs, and waits for it. Returns the frame's
  // stats so far, summed over its launches.
  const GpuFrameStats& step(GpuRenderer& r, float* out, unsigned* counts, float* warp_efficiency,
                            double target_ms);
  const GpuFrameStats& stats() const { return stats_; }

 private:
  VariantId variant_{};
  PixelGrid grid_;
  unsigned max_iter_ = 0;
  unsigned total_ = 0, next_ = 0;  // tiles
  GpuFrameStats stats_;
  // The last frame finished: one as cheap at the same size, limit and variant goes in one launch.
  struct Finished {
    VariantId variant;
    int width, height;
    unsigned max_iter;
    double ms;
  };
  std::optional<Finished> finished_;
  unsigned last_tiles_ = 0;  // the frame's previous launch
  double last_ms_ = 0;
};

}  // namespace mp
