#include "session/deep_sliced_frame.h"

#include <algorithm>
#include <cmath>

#include "kernel_params.h"

namespace mp {

DeepSlicedFrame::DeepSlicedFrame(DeltaFormat format, const View& view, int width, int height,
                                 double ms_per_row, std::vector<float> row_ms)
    : format_(format),
      view_(view),
      width_(width),
      height_(height),
      hint_ms_per_row_(ms_per_row),
      expected_ms_(std::move(row_ms)),
      row_ms_(static_cast<std::size_t>(std::max(height, 0)), 0.0f) {
  stats_.format = format;
  if (expected_ms_.size() != row_ms_.size()) expected_ms_.clear();
  // A first band sized by the last frame's rate (the same reference) is cut by the earlier
  // times at that rate: their mean is the frame's.
  double sum = 0;
  for (float ms : expected_ms_) sum += ms;
  if (hint_ms_per_row_ > 0 && sum > 0) expected_scale_ = hint_ms_per_row_ * height / sum;
}

int rows_within(const std::vector<float>& row_ms, int from, double scale, double target_ms) {
  const int height = static_cast<int>(row_ms.size());
  int n = 0;
  double sum = 0;
  for (; from + n < height; ++n) {
    const double row = row_ms[from + n] * scale;
    if (n >= 2 && sum + row > target_ms) break;
    sum += row;
  }
  return n;
}

int fill_rows(int warps, int width) {
  if (warps <= 0 || width <= 0) return 0;
  const int across = blocks_across(width), tile_rows = 32 / kBlockW;  // 16x2 tiles
  return tile_rows * ((warps + across - 1) / across);
}

const DeepStats& DeepSlicedFrame::step(DeepRenderer& renderer, float* out, double target_ms,
                                       float* warp_efficiency) {
  if (done()) return stats_;
  int rows = height_ - next_row_;
  if (target_ms > 0) {
    // A view's first band is a few rows (on the GPU, those that fill it: below), whose time per
    // row sizes the next; a band at most doubles, since a band of cheap rows says little about
    // costly ones below it. With a frame
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
    // Cut short where an earlier frame says costlier rows come.
    if (!expected_ms_.empty() && expected_scale_ > 0)
      rows = std::min(rows, rows_within(expected_ms_, next_row_, expected_scale_, target_ms));
    // No fewer than fill the GPU: fewer rows would not take less time, only leave it idle.
    rows = std::max(rows, std::min(fill_rows(renderer.fill_warps(), width_), height_ - next_row_));
  }
  if (rows < height_ - next_row_) rows = std::max(2, rows & ~1);
  const PixelRect rect{0, next_row_, width_, rows};
  const DeepStats s =
      renderer.render(format_, view_, width_, height_, rect,
                      out + static_cast<std::size_t>(next_row_) * width_ * kFloatsPerPixel, nullptr,
                      warp_efficiency);
  ms_per_row_ = s.ms / rows;
  last_rows_ = rows;
  double expected = 0;
  for (int y = next_row_; y < next_row_ + rows; ++y) {
    row_ms_[y] = static_cast<float>(ms_per_row_);
    if (!expected_ms_.empty()) expected += expected_ms_[y];
  }
  // An earlier frame's times are those of another limit or reference, whose cost a step may not
  // follow (the approximation skips more or less): their shape is kept and their scale measured,
  // the larger of the last band's and all bands' so far.
  if (expected > 0) {
    measured_ms_ += s.ms;
    expected_sum_ms_ += expected;
    expected_scale_ = std::max(s.ms / expected, measured_ms_ / expected_sum_ms_);
  }
  stats_ += s;
  stats_.gpu = s.gpu;
  next_row_ += rows;
  return stats_;
}

}  // namespace mp
