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
  std::uint64_t pixel_iters = 0;
  unsigned threads = 0;
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

 private:
  unsigned threads_;
};

}  // namespace mp
