// A deep frame rendered a band of rows at a time across calls, as the plain frames are
// (gpu_sliced_frame.h, CpuSlicedFrame), so that the window keeps drawing and answering while it
// refines: each band is sized from the last one's time per row to take about the target, and on
// the GPU is no shorter than fills it (fill_rows).
#pragma once

#include <vector>

#include "session/deep_renderer.h"

namespace mp {

// The most rows from `from` whose times (row_ms, times scale) fit target_ms, at least two (or
// those left).
int rows_within(const std::vector<float>& row_ms, int from, double scale, double target_ms);

// The rows of a `width`-pixel band whose 16x2 tiles make `warps` warps (0: none).
int fill_rows(int warps, int width);

class DeepSlicedFrame {
 public:
  DeepSlicedFrame() = default;  // nothing to render: done()
  // ms_per_row: a row's time in a frame before it from the same reference at this size, which
  // sizes the first band (0: none; the first band is then a few rows). row_ms: each row's time
  // in an earlier frame of the same place, whose shape cuts a band short where costlier rows
  // come (a band of cheap rows says nothing of the costly ones below it), at the scale the bands
  // before it measured.
  DeepSlicedFrame(DeltaFormat format, const View& view, int width, int height,
                  double ms_per_row = 0, std::vector<float> row_ms = {});

  bool done() const { return next_row_ >= height_; }
  double progress() const { return height_ ? static_cast<double>(next_row_) / height_ : 1.0; }
  DeltaFormat format() const { return format_; }
  // The next band, about target_ms (0: all rows left) and at least the renderer's fill_rows, into
  // the whole frame's `out` (device
  // memory on the GPU path, host memory on the CPU's), and on the GPU path its warps' share of
  // steps run into `warp_efficiency` where given; the frame's stats so far. Bands start on
  // even rows, so that the kernels' 16x2 tiles are the divergence view's.
  const DeepStats& step(DeepRenderer& renderer, float* out, double target_ms,
                        float* warp_efficiency = nullptr);
  const DeepStats& stats() const { return stats_; }
  // Each rendered row's time: its band's over its rows.
  const std::vector<float>& row_ms() const { return row_ms_; }

 private:
  DeltaFormat format_ = DeltaFormat::Double;
  View view_;
  int width_ = 0, height_ = 0, next_row_ = 0;
  double hint_ms_per_row_ = 0;  // an earlier frame's
  double ms_per_row_ = 0;       // the last band's
  int last_rows_ = 0;
  std::vector<float> expected_ms_;  // per row, from an earlier frame; empty: none
  // Their scale: what the bands so far took over what expected_ms_ said of them (before the first
  // band, the hint's over their mean; 0: neither).
  double expected_scale_ = 0, measured_ms_ = 0, expected_sum_ms_ = 0;
  std::vector<float> row_ms_;
  DeepStats stats_;
};

}  // namespace mp
