// The CPU reference renderer (threaded): the same per-pixel code as the kernel, evaluated
// without FMA contraction. Used for tests and as the fallback when there is no CUDA device.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel_params.h"
#include "variants.h"

namespace mp {

struct CpuFrameStats {
  double ms = 0;
  std::uint64_t pixel_iters = 0;    // steps run
  std::uint64_t pixel_counted = 0;  // steps counted: more where an orbit was found periodic
  std::uint64_t pixels = 0;         // pixels computed
  unsigned threads = 0;
  unsigned slices = 0;  // calls that computed them
  CpuFrameStats& operator+=(const CpuFrameStats& s);
};

// Per-warp SIMT efficiency from per-pixel counts, with the GPU's warp layout
// (kernel_params.h): lanes outside the image count as idle, as on the GPU. `out` holds
// warp_count(width, height) floats.
void warp_efficiency_from_counts(const unsigned* counts, int width, int height, float* out);

class CpuRenderer {
 public:
  explicit CpuRenderer(unsigned threads = 0);  // 0: one per hardware thread
  unsigned threads() const { return threads_; }

  // out: grid.width * grid.height * kFloatsPerPixel floats; counts: optional, one per pixel.
  CpuFrameStats render(VariantId variant, const PixelGrid& grid, unsigned max_iter, float* out,
                       unsigned* counts = nullptr) const;
  // Pixels [begin, end) in row-major order, into their places in the whole frame's `out` and
  // `counts`. With stop_after_ms > 0 no work is taken up once that much wall time has passed:
  // the pixels done are [begin, begin + returned pixels), each computed once.
  CpuFrameStats render_pixels(VariantId variant, const PixelGrid& grid, unsigned max_iter,
                              std::uint64_t begin, std::uint64_t end, float* out,
                              unsigned* counts = nullptr, double stop_after_ms = 0) const;

 private:
  unsigned threads_;
};

// One frame rendered a slice at a time, resumable between calls, so that a caller can do
// other work (draw a window, take input) between slices. Each slice is sized from the previous
// one's measured rate to take about the target wall time, and stops at it should it run long.
class CpuSlicedFrame {
 public:
  CpuSlicedFrame() = default;  // nothing to render: done()
  CpuSlicedFrame(VariantId variant, const PixelGrid& grid, unsigned max_iter);

  bool done() const { return next_ >= total_; }
  double progress() const { return total_ ? static_cast<double>(next_) / total_ : 1.0; }
  // How many pixels the next slice asks for, for `target_ms` of wall time (0: all left).
  std::uint64_t next_slice_pixels(double target_ms) const;
  // Renders the next slice, about target_ms of wall time (0: all that is left), into the whole
  // frame's `out` (and `counts`); returns the frame's stats so far, summed over its slices.
  const CpuFrameStats& step(const CpuRenderer& r, float* out, unsigned* counts, double target_ms);
  const CpuFrameStats& stats() const { return stats_; }

 private:
  VariantId variant_{};
  PixelGrid grid_;
  unsigned max_iter_ = 0;
  std::uint64_t total_ = 0, next_ = 0;
  std::uint64_t last_pixels_ = 0;  // the previous slice's size and rate
  double pixels_per_ms_ = 0;
  CpuFrameStats stats_;
};

}  // namespace mp
