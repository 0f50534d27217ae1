// Shape::Queue, the default launch shape of render_kernel.cu: persistent warps on a tile queue.
#pragma once

#include "render_tile.cuh"

namespace mp {
namespace render_shapes {

// Persistent warps: as many as fit on the GPU at once, each taking 16x2-pixel tiles from a
// queue until none are left. A warp that drew short orbits takes more tiles instead of
// waiting for the slowest warp of its block, so the SMs stay full to the end of the frame.
template <class V, bool kRecord, bool kResume>
__device__ __forceinline__ void render_warps(const RenderLaunch& a) {
  const unsigned long long t_start = clock64();
  const unsigned lane = threadIdx.x & 31;
  unsigned long long pixel_iters = 0, warp_iters = 0;
  unsigned finished = 0, pending = 0;  // kResume: the warp's pixels, for count_orbits
  // Lane k holds rank k of the plan.
  const unsigned unit_start = a.plan->unit_start[lane], place_start = a.plan->place_start[lane],
                 place_end = a.plan->place_end[lane], group = a.plan->group[lane];
  const unsigned costly = a.plan->costly_units;
  // The queue's segments, in the order a warp goes through them: the costly queue (the seniors
  // only: the first waves of blocks, until it runs out), the main queue, the rest of the
  // costly queue, then the block's share of the tail, one tile at a time. Each warp's first
  // unit is given, not taken (block b's warps get units 8b..8b+7 of their segment): at launch
  // every warp on the GPU would meet at the counters at once. The counters count the units
  // past the given ones.
  const unsigned senior_blocks = costly > 0 ? min(a.senior_blocks, gridDim.x) : 0;
  const unsigned warp = threadIdx.x / 32, seniors = senior_blocks * kRenderWarps;
  const unsigned juniors = gridDim.x * kRenderWarps - seniors;
  const bool senior = blockIdx.x < senior_blocks;
  __shared__ unsigned tail_taken;
  if (threadIdx.x == 0) tail_taken = 0;
  __syncthreads();
  enum Segment { kCostlyFirst, kMain, kCostlyRest, kTail };
  int segment = senior ? kCostlyFirst : kMain;
  unsigned base = senior ? seniors : costly + juniors, end = senior ? costly : a.plan->units;
  // The same in every lane; the reduction tells ptxas so (from sm_80 on its result is in a
  // uniform register, and so is the queue's state that follows from it: fewer registers).
  unsigned u = warp_max(senior ? blockIdx.x * kRenderWarps + warp
                               : costly + (blockIdx.x - senior_blocks) * kRenderWarps + warp);
  for (;;) {
    if (u < end) {
      unsigned first = u, n_tiles = 1;  // the tail's units are places
      if (segment < kTail) {
        // The unit's rank: the last one that starts at or before it (empty ranks start where
        // the next one does).
        const int k = __popc(__ballot_sync(kAll, u >= unit_start)) - 1;
        const unsigned g = __shfl_sync(kAll, group, k);
        first = __shfl_sync(kAll, place_start, k) + (u - __shfl_sync(kAll, unit_start, k)) * g;
        n_tiles = min(g, __shfl_sync(kAll, place_end, k) - first);
      }
      const unsigned my_tile = lane < n_tiles ? a.order[first + lane] : 0;
      for (unsigned j = 0; j < n_tiles; ++j) {
        const TileSteps w =
            render_tile<V, kRecord, kResume>(a, __shfl_sync(kAll, my_tile, j), lane);
        pixel_iters += w.sum;
        warp_iters += w.warp_max;
        finished += w.finished;
        pending += w.pending;
      }
    } else if (segment == kCostlyFirst) {
      segment = kMain;
      base = costly + juniors;
      end = a.plan->units;
    } else if (segment == kMain && costly > 0) {
      segment = kCostlyRest;
      base = seniors;
      end = costly;
    } else if (segment < kTail) {
      segment = kTail;
      base = a.plan->tail_start + blockIdx.x;
      end = a.plan->tail_end;
    } else {
      break;
    }
    unsigned taken = 0;  // lane 0 takes the next unit, the sum hands it to the warp
    if (lane == 0)
      taken = segment == kTail ? atomicAdd(&tail_taken, 1u)
                               : take(segment == kMain ? a.next_unit : a.next_costly_unit);
    u = base + warp_sum(taken) * (segment == kTail ? gridDim.x : 1u);
  }
  // Each warp reports once, to per-SM counters: the atomics spread over the SMs instead of
  // meeting at one address.
  if (lane == 0) {
    if constexpr (kResume) count_orbits(a, finished, pending);
    const unsigned sm = sm_id();
    atomicAdd(&a.sm_pixel_iters[sm], pixel_iters);
    atomicAdd(&a.sm_warp_iters[sm], warp_iters);
    atomicMin(&a.sm_first[sm], t_start);
    atomicMax(&a.sm_last[sm], static_cast<unsigned long long>(clock64()));
  }
}

}  // namespace render_shapes
}  // namespace mp
