// Launch interface of the render kernel (one template instance per variant).
#pragma once

#include <cuda_runtime.h>

#include "kernel_params.h"
#include "variants.h"

namespace mp {

struct RenderLaunch {
  PixelGrid grid;
  unsigned max_iter = 0;
  float* out = nullptr;        // kFloatsPerPixel floats per pixel
  unsigned* counts = nullptr;  // optional: per-pixel step count
  // Per SM (indexed by %smid): earliest warp start and latest warp end (clock64), and the
  // pixel-iterations and warp-issued iterations of the warps that ran there.
  unsigned long long* sm_first = nullptr;
  unsigned long long* sm_last = nullptr;
  unsigned long long* sm_pixel_iters = nullptr;
  unsigned long long* sm_warp_iters = nullptr;
  // Optional: per tile (layout in kernel_params.h), pixel-iterations / (32 x the tile's max):
  // the share of lanes that did useful steps.
  float* warp_efficiency = nullptr;
  // The tile queue: a counter that must be zero at launch; launch_render fills the rest.
  unsigned* next_tile = nullptr;
  unsigned tiles = 0;
  unsigned blocks_across = 0;
  unsigned blocks_across_inverse = 0;  // (2^32 - 1) / blocks_across: division by multiply
};

void launch_render(VariantId variant, const RenderLaunch& args, cudaStream_t stream);

// The sine-balance sweep behind the sin-ratio variant: fma4 plus `sines` (1..4) __sinf per
// step (variants::SinBalance), so the balance point can be measured on the GPU at hand.
void launch_sin_balance(int sines, const RenderLaunch& args, cudaStream_t stream);

}  // namespace mp
