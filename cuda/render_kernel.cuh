// Launch interface of the render kernel (one template instance per variant).
#pragma once

#include <cuda_runtime.h>

#include "kernel_params.h"
#include "variants.h"

namespace mp {

struct RenderLaunch {
  PixelGrid grid;
  unsigned max_iter = 0;
  float* out = nullptr;                    // kFloatsPerPixel floats per pixel
  unsigned* counts = nullptr;              // optional: per-pixel step count
  unsigned long long* sm_first = nullptr;  // per SM: earliest block start (clock64)
  unsigned long long* sm_last = nullptr;   // per SM: latest block end (clock64)
  unsigned long long* work = nullptr;      // [0] pixel iterations, [1] warp-issued iterations
};

inline constexpr int kBlockW = 16;
inline constexpr int kBlockH = 16;

void launch_render(VariantId variant, const RenderLaunch& args, cudaStream_t stream);

}  // namespace mp
