// A GPU frame rendered in launches of bounded length, resumable between calls, so that the
// window draws and answers input between them: CpuSlicedFrame's twin for the CUDA path.
#pragma once

#include <optional>

#include "device_buffer.h"
#include "gpu_renderer.h"
#include "kernel_params.h"
#include "launch_plan.h"
#include "variants.h"

namespace mp {

class GpuSlicedFrame {
 public:
  // Drops any unfinished frame and starts this one.
  void start(VariantId variant, const PixelGrid& grid, unsigned max_iter);
  bool done() const { return passes_.done(); }
  // The share of the frame's pixels finished.
  double progress() const;
  // Passes over the tiles so far (launch_plan.h: LaunchPasses); more than one where orbits were
  // cut.
  int passes() const { return passes_.pass() + 1; }
  // Launches the next range of tiles, sized (launch_plan.h) to take about target_ms of GPU time
  // (0: all that is left), into the whole frame's outputs, and waits for it. Returns the frame's
  // stats so far, summed over its launches.
  const GpuFrameStats& step(GpuRenderer& r, float* out, unsigned* counts, float* warp_efficiency,
                            double target_ms);
  const GpuFrameStats& stats() const { return stats_; }

 private:
  // Slots for the frame's orbits: false where the GPU has no room for them.
  bool make_slots();

  VariantId variant_{};
  PixelGrid grid_;
  unsigned max_iter_ = 0;
  unsigned long long pixels_ = 0;
  LaunchPasses passes_;
  bool split_ = false;  // a launch of this frame has cut orbits: every later one goes on from slots
  unsigned full_tiles_ = 0;          // the variant's full wave (0: not asked yet)
  unsigned long long finished_ = 0;  // pixels finished so far
  GpuFrameStats stats_;
  // The last frame finished: one as cheap at the same size, limit and variant goes in one launch.
  struct Finished {
    VariantId variant;
    int width, height;
    unsigned max_iter;
    double ms;
  };
  std::optional<Finished> finished_frame_;
  // The orbits waiting between launches and the tiles' steps so far (OrbitSplit), made when a
  // frame first cuts orbits and kept for the next frames.
  DeviceBuffer<OrbitSlot> slots_;
  DeviceBuffer<unsigned long long> tile_steps_;
};

}  // namespace mp
