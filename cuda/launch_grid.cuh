// Shape::Grid, a launch shape of render_kernel.cu: a plain launch, one warp per tile.
#pragma once

#include "render_tile.cuh"

namespace mp {
namespace render_shapes {

// Shape::Grid: block b is 16x16 pixel block b of the range (rows of blocks_across), warp w its
// tile w.
template <class V, bool kRecord, bool kResume>
__device__ __forceinline__ void render_grid(const RenderLaunch& a) {
  __shared__ BlockTally tally;
  tally_start(tally);
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  const unsigned block = blockIdx.x + a.tile_begin / kWarpsPerBlock;
  const unsigned bx = block % a.blocks_across, by = block / a.blocks_across;
  const unsigned ref = (by * kBlockH + warp * (32 / kBlockW)) << 16 | bx * kBlockW;
  const TileSteps w = render_tile<V, kRecord, kResume>(a, ref, lane);
  if (kResume && lane == 0) count_orbits(a, w.finished, w.pending);
  tally_block(tally, a, w.sum, w.warp_max);
}

}  // namespace render_shapes
}  // namespace mp
