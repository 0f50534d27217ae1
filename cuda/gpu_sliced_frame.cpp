#include "gpu_sliced_frame.h"

#include <algorithm>

#include "cuda_check.h"

namespace mp {

void GpuSlicedFrame::start(VariantId variant, const PixelGrid& grid, unsigned max_iter) {
  if (variant != variant_) full_tiles_ = 0;  // the occupancy query is the variant's: asked once
  variant_ = variant;
  grid_ = grid;
  max_iter_ = max_iter;
  const bool empty = grid.width <= 0 || grid.height <= 0;
  pixels_ = empty ? 0 : static_cast<unsigned long long>(grid.width) * grid.height;
  passes_ = LaunchPasses(empty ? 0 : static_cast<unsigned>(warp_count(grid.width, grid.height)),
                         max_iter);
  split_ = false;
  finished_ = 0;
  stats_ = GpuFrameStats();
}

double GpuSlicedFrame::progress() const {
  if (done() || pixels_ == 0) return 1.0;
  return std::min(1.0, static_cast<double>(finished_) / static_cast<double>(pixels_));
}

bool GpuSlicedFrame::make_slots() {
  const unsigned long long tiles =
      static_cast<unsigned long long>(warp_count(grid_.width, grid_.height));
  try {
    if (slots_.size() < pixels_) slots_ = DeviceBuffer<OrbitSlot>(pixels_);
    if (tile_steps_.size() < 2 * tiles) tile_steps_ = DeviceBuffer<unsigned long long>(2 * tiles);
    return true;
  } catch (const CudaError&) {
    cudaGetLastError();  // out of memory is not sticky: the frame goes on with whole orbits
    return false;
  }
}

const GpuFrameStats& GpuSlicedFrame::step(GpuRenderer& r, float* out, unsigned* counts,
                                          float* warp_efficiency, double target_ms) {
  if (done()) return stats_;
  double previous_ms = -1;
  if (finished_frame_ && finished_frame_->variant == variant_ &&
      finished_frame_->width == grid_.width && finished_frame_->height == grid_.height &&
      finished_frame_->max_iter == max_iter_)
    previous_ms = finished_frame_->ms;
  // A full wave of the resumable build, which runs wherever the work is heavy enough to matter.
  if (full_tiles_ == 0) full_tiles_ = r.resident_tiles(variant_, true);
  LaunchSize l = passes_.next(static_cast<unsigned>(r.device().sm_count) * kWarpsPerBlock,
                              full_tiles_, target_ms, previous_ms);
  // The first cut makes slots for every pixel (24 bytes each) and two counters per tile; where
  // the GPU has no room for them, orbits stay whole and launches as long as they are.
  if (!split_ && l.budget < max_iter_) {
    split_ = make_slots();
    if (!split_) l.budget = max_iter_;
  }
  OrbitSplit split;
  if (split_) {
    split.slots = slots_.get();
    split.tile_steps = tile_steps_.get();
    split.budget = l.budget;
    split.resume = passes_.pass() > 0;
  }
  const unsigned begin = passes_.next_tile(), end = begin + l.tiles;
  const GpuFrameStats launch =
      r.render_tiles(variant_, grid_, max_iter_, begin, end, out, counts, warp_efficiency, split);
  finished_ += split_ ? launch.pixels_finished : pixels_in_tiles(grid_, begin, end);
  passes_.launched(l, launch.kernel_ms, static_cast<double>(launch.warp_iters),
                   launch.pixels_pending > 0);
  stats_ += launch;
  stats_.passes = passes();
  if (done())
    finished_frame_ = Finished{variant_, grid_.width, grid_.height, max_iter_, stats_.kernel_ms};
  return stats_;
}

}  // namespace mp
