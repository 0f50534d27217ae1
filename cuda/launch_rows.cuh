// Shape::Rows, a launch shape of render_kernel.cu: blocks of a pair of rows, cy from constant
// memory.
#pragma once

#include "render_tile.cuh"

namespace mp {
namespace render_shapes {

// Shape::Rows: block (c, k) is pixels [256 c, 256 c + 256) of the launch's rows 2k and 2k+1 (from
// row_base on); each lane runs its pixel of the first row, then of the second, and lanes outside
// the range's 16x16 blocks idle. A block's cy comes from c_row_cy by its index, the same in every
// lane (variants.h, Fma4Rows, says what that does to the step loop on sm_90). Half a warp's lanes
// are one 16x2 tile: its share of lanes stepping is over the warp's steps on both rows.
constexpr int kRowsBlockW = kRenderThreads;
// A launch's rows, up to the largest image's: the 64 KiB are all of the module's constant space,
// so another __constant__ in this file needs the table made smaller.
constexpr int kMaxTableRows = 16384;
__constant__ float c_row_cy[kMaxTableRows];
template <class V, bool kRecord, bool kResume>
__device__ __forceinline__ void render_rows(const RenderLaunch& a) {
  static_assert(std::is_same_v<typename V::Real, float>, "the row table holds floats");
  const unsigned across = a.blocks_across;
  const unsigned b0 = a.tile_begin / kWarpsPerBlock, b1 = a.tile_end / kWarpsPerBlock;
  const unsigned py = a.row_base + 2 * blockIdx.y, by = py / kBlockH;
  // The range's columns in this row of blocks.
  const unsigned row_start = by * across;
  const unsigned c0 = (max(b0, row_start) - row_start) * kBlockW;
  const unsigned c1 =
      min((min(b1, row_start + across) - row_start) * kBlockW, static_cast<unsigned>(a.grid.width));
  const unsigned x0 = blockIdx.x * kRowsBlockW;
  if (py >= static_cast<unsigned>(a.grid.height) || x0 >= c1 || x0 + kRowsBlockW <= c0) return;
  __shared__ BlockTally tally;
  tally_start(tally);
  // Read before any lane branches off: a build that read it in the branch had its step loop
  // stall at dispatch as fma4-x16's does (docs/measurements.md).
  const float cys[2] = {c_row_cy[2 * blockIdx.y], c_row_cy[2 * blockIdx.y + 1]};
  const unsigned lane = threadIdx.x & 31, px = x0 + threadIdx.x;
  const bool mine = px >= c0 && px < c1;
  const float cx = pixel_coord<float>(static_cast<int>(px), a.grid.dx, a.grid.x0);
  unsigned warp_steps = 0, lane_steps = 0, finished_here = 0, pending_here = 0;
#pragma unroll
  for (unsigned r = 0; r < 2; ++r) {
    const unsigned y = py + r;
    unsigned n = 0;
    if (mine && y < static_cast<unsigned>(a.grid.height)) {
      const float cy = cys[r];
      const unsigned i = y * static_cast<unsigned>(a.grid.width) + px;
      if constexpr (kResume) {
        bool finished = false, pending = false;
        n = resume_pixel<V, kRecord>(a, cx, cy, i, finished, pending);
        finished_here += finished;
        pending_here += pending;
      } else {
        const PixelResult p = iterate<V>(cx, cy, a.max_iter);
        n = p.run;
        reinterpret_cast<float2*>(a.out)[i] = make_float2(p.smooth, p.aux);
        if (kRecord && a.counts) a.counts[i] = p.iters;
      }
    }
    warp_steps += warp_max(n);
    lane_steps += n;
  }
  if constexpr (kResume) {
    const unsigned done = warp_sum(finished_here), left = warp_sum(pending_here);
    if (lane == 0) count_orbits(a, done, left);
  }
  // Each half of the warp is a tile: its lanes' steps, summed over the half.
  unsigned tile_steps = lane_steps;
  for (int o = kBlockW / 2; o > 0; o >>= 1) tile_steps += __shfl_xor_sync(kAll, tile_steps, o);
  const bool tile_mine = __shfl_sync(kAll, mine, lane & ~(kBlockW - 1u));
  if (kRecord && a.warp_efficiency && lane % kBlockW == 0 && tile_mine) {
    const unsigned t = (row_start + px / kBlockW) * kWarpsPerBlock + py % kBlockH / 2;
    if constexpr (kResume) {
      add_tile_steps(a, t, warp_steps, tile_steps, kBlockW);
    } else {
      a.warp_efficiency[t] = warp_steps ? tile_steps / (16.0f * warp_steps) : 1.0f;
    }
  }
  tally_block(tally, a, warp_sum(lane_steps), warp_steps);
}

}  // namespace render_shapes
}  // namespace mp
