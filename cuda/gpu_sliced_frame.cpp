#include "gpu_sliced_frame.h"

#include "launch_plan.h"

namespace mp {

void GpuSlicedFrame::start(VariantId variant, const PixelGrid& grid, unsigned max_iter) {
  variant_ = variant;
  grid_ = grid;
  max_iter_ = max_iter;
  total_ = grid.width > 0 && grid.height > 0
               ? static_cast<unsigned>(warp_count(grid.width, grid.height))
               : 0;
  next_ = 0;
  stats_ = GpuFrameStats();
  last_tiles_ = 0;
  last_ms_ = 0;
}

const GpuFrameStats& GpuSlicedFrame::step(GpuRenderer& r, float* out, unsigned* counts,
                                          float* warp_efficiency, double target_ms) {
  if (done()) return stats_;
  LaunchSizing s;
  s.left = total_ - next_;
  s.min_tiles = static_cast<unsigned>(r.device().sm_count) * kWarpsPerBlock;
  s.target_ms = target_ms;
  s.last_tiles = last_tiles_;
  s.last_ms = last_ms_;
  if (finished_ && finished_->variant == variant_ && finished_->width == grid_.width &&
      finished_->height == grid_.height && finished_->max_iter == max_iter_)
    s.previous_frame_ms = finished_->ms;
  const unsigned n = next_launch_tiles(s);
  const GpuFrameStats launch =
      r.render_tiles(variant_, grid_, max_iter_, next_, next_ + n, out, counts, warp_efficiency);
  next_ += n;
  last_tiles_ = n;
  last_ms_ = launch.kernel_ms;
  stats_ += launch;
  if (done())
    finished_ = Finished{variant_, grid_.width, grid_.height, max_iter_, stats_.kernel_ms};
  return stats_;
}

}  // namespace mp
