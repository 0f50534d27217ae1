#include "session/deep_sliced_frame.h"

#include <algorithm>
#include <cmath>

#include "kernel_params.h"

namespace mp {

DeepSlicedFrame::DeepSlicedFrame(DeltaFormat format, const View& view, int width, int height,
                                 double ms_per_row)
    : format_(format), view_(view), width_(width), height_(height), hint_ms_per_row_(ms_per_row) {
  stats_.format = format;
}

const DeepStats& DeepSlicedFrame::step(DeepRenderer& renderer, float* out, double target_ms,
                                       float* warp_efficiency) {
  if (done()) return stats_;
  int rows = height_ - next_row_;
  if (target_ms > 0) {
    // A view's first band is a few rows, whose time per row sizes the next; a band at most
    // doubles, since a band of cheap rows says little about costly ones below it. With a frame
    // before it from the same reference, the first band takes half the target by its rows' time:
    // bands of a few rows leave most of the GPU idle, and the next view is mostly the last one.
    const int first = std::max(1, 4096 / std::max(width_, 1));
    if (!stats_.launches && hint_ms_per_row_ > 0) {
      rows = std::min(rows, std::max(first, static_cast<int>(target_ms / 2 / hint_ms_per_row_)));
    } else {
      const int last = stats_.launches ? last_rows_ : first;
      int want = ms_per_row_ > 0 ? static_cast<int>(target_ms / ms_per_row_) : first;
      rows = std::min(rows, std::clamp(want, 1, stats_.launches ? 2 * last : first));
    }
  }
  if (rows < height_ - next_row_) rows = std::max(2, rows & ~1);
  const PixelRect rect{0, next_row_, width_, rows};
  const DeepStats s =
      renderer.render(format_, view_, width_, height_, rect,
                      out + static_cast<std::size_t>(next_row_) * width_ * kFloatsPerPixel, nullptr,
                      warp_efficiency);
  ms_per_row_ = s.ms / rows;
  last_rows_ = rows;
  stats_ += s;
  stats_.gpu = s.gpu;
  next_row_ += rows;
  return stats_;
}

}  // namespace mp
