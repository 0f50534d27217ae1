// What the render kernel's launch shapes share (render_kernel.cu): the block size, warp sums,
// the queue's take, a tile's pixels and steps (render_tile), a frame cut by steps' resumption,
// and a plain launch's per-SM figures (BlockTally).
#pragma once

#include <type_traits>

#include "pixel.h"
#include "render_kernel.cuh"
#include "sm_id.cuh"

namespace mp {
namespace render_shapes {

constexpr int kRenderThreads = 256;
constexpr unsigned kRenderWarps = kRenderThreads / 32;
constexpr unsigned kAll = 0xffffffffu;

// One REDUX instruction from sm_80 on; shuffles on sm_75.
__device__ __forceinline__ unsigned warp_max(unsigned v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_max_sync(0xffffffffu, v);
#else
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
#endif
}
__device__ __forceinline__ unsigned long long warp_sum64(unsigned long long v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ unsigned warp_sum(unsigned v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync(0xffffffffu, v);
#else
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
#endif
}

// One lane's atomic add, in PTX. ptxas still wraps it in a warp-aggregated sequence (a vote, two
// population counts and a shuffle) though a single lane is active, but atomicAdd changes the
// code around the queue, and with it, possibly, the step loops' registers.
__device__ __forceinline__ unsigned take(unsigned* counter) {
  unsigned old;
  asm volatile("atom.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(counter) : "memory");
  return old;
}

// A tile's steps: the slowest lane's (what the warp issued) and all lanes' together; in a launch
// cut by steps also its pixels finished and left unfinished, which the warp reports once.
struct TileSteps {
  unsigned warp_max, sum, finished = 0, pending = 0;
};
// The tile's number (kernel_params.h) from its packed form, as tile_of_ref() computes it.
__device__ __forceinline__ unsigned tile_number(const RenderLaunch& a, unsigned ref) {
  const unsigned row = ref >> 17, column = (ref & 0xffffu) / kBlockW;
  return (row / kWarpsPerBlock * a.blocks_across + column) * kWarpsPerBlock + row % kWarpsPerBlock;
}
// A frame cut by steps: the tile's steps so far with this launch's, and the divergence view's
// share of lanes stepping over all of them. One lane per tile; each tile is one warp's per launch,
// `lanes` of them on the tile (16 where a warp is a row's 32 pixels: Shape::Rows). A later launch
// in which the tile's warp took no step leaves its figures as they were.
__device__ __forceinline__ void add_tile_steps(const RenderLaunch& a, unsigned t,
                                               unsigned long long warp_steps,
                                               unsigned long long lane_steps, float lanes = 32) {
  if (a.split.resume && !warp_steps) return;
  unsigned long long* s = a.split.tile_steps + 2ull * t;
  if (a.split.resume) {
    warp_steps += s[0];
    lane_steps += s[1];
  }
  s[0] = warp_steps;
  s[1] = lane_steps;
  a.warp_efficiency[t] = warp_steps ? lane_steps / (lanes * warp_steps) : 1.0f;
}
// Pixels a warp finished and left unfinished in a launch cut by steps, to the per-SM counters.
__device__ __forceinline__ void count_orbits(const RenderLaunch& a, unsigned finished,
                                             unsigned pending) {
  const unsigned sm = sm_id();
  if (finished) atomicAdd(&a.sm_finished[sm], static_cast<unsigned long long>(finished));
  if (pending) atomicAdd(&a.sm_pending[sm], static_cast<unsigned long long>(pending));
}

// A pixel's orbit in a launch cut by steps: on from its slot (or from 0 on the frame's first
// pass) to an escape, max_iter, or the launch's budget; a finished pixel is written out, an
// unfinished one waits in its slot. Returns the steps run in this launch.
template <class V, bool kRecord>
__device__ __forceinline__ unsigned resume_pixel(const RenderLaunch& a, typename V::Real cx,
                                                 typename V::Real cy, unsigned i, bool& finished,
                                                 bool& pending) {
  using R = typename V::Real;
  OrbitSlot& slot = a.split.slots[i];
  Orbit<R> o;
  if (a.split.resume) {
    const OrbitSlot s = slot;
    o = from_slot<R>(s);
    if (s.n & kOrbitDone) return 0;
  }
  const unsigned from = o.n, limit = min(a.max_iter, from + a.split.budget);
  const bool inside = iterate_orbit<V>(cx, cy, o, limit);
  const unsigned ran = o.n - from;
  o.n = counted_steps(o, a.max_iter);
  pending = inside && o.n < a.max_iter;
  finished = !pending;
  slot = to_slot(o, finished);
  if (finished) {
    const PixelResult r = pixel_result<V>(o.n, o.x, o.y, inside, o.acc);
    reinterpret_cast<float2*>(a.out)[i] = make_float2(r.smooth, r.aux);
    if (kRecord && a.counts) a.counts[i] = o.n;
  }
  return ran;
}

// Tile `ref` (packed as in kernel_params.h): its pixels and its steps: the slowest lane's (what
// the warp issued) and all lanes' together. kRecord: also its cost for the next frame's order
// and the optional per-pixel counts and per-tile efficiencies. A frame whose view's tile costs
// are known (the kernels are deterministic) and that wants neither runs the kernel without
// them: fifteen instructions per tile fewer on sm_90, a point and more of the bound at view B.
// kResume: the launch is one of a frame cut by steps (resume_pixel); it records no tile costs.
template <class V, bool kRecord, bool kResume>
__device__ __forceinline__ TileSteps render_tile(const RenderLaunch& a, unsigned ref,
                                                 unsigned lane) {
  const int px = (ref & 0xffffu) | lane % kBlockW, py = ref >> 16 | lane / kBlockW;
  unsigned n = 0;
  bool finished = false, pending = false;
  if (px < a.grid.width && py < a.grid.height) {
    if constexpr (kResume) {
      using R = typename V::Real;
      n = resume_pixel<V, kRecord>(
          a, pixel_coord<R>(px, a.grid.dx, a.grid.x0), pixel_coord<R>(py, a.grid.dy, a.grid.y0),
          static_cast<unsigned>(py) * a.grid.width + px, finished, pending);
    } else {
      const PixelResult r = pixel_at<V>(a.grid, px, py, a.max_iter);
      n = r.run;
      const unsigned i = static_cast<unsigned>(py) * a.grid.width + px;  // < 2^32: launch checks
      reinterpret_cast<float2*>(a.out)[i] = make_float2(r.smooth, r.aux);
      if (kRecord && a.counts) a.counts[i] = r.iters;
    }
  }
  // What the pipes executed: a warp runs its loop until its slowest lane is done.
  const unsigned wmax = warp_max(n);
  const unsigned wsum = warp_sum(n);
  if constexpr (kResume) {
    if (kRecord && a.warp_efficiency && lane == 0)
      add_tile_steps(a, tile_number(a, ref), wmax, wsum);
    const unsigned done = __popc(__ballot_sync(kAll, finished));
    const unsigned left = __popc(__ballot_sync(kAll, pending));
    return {wmax, wsum, done, left};
  } else if (kRecord && lane == 0) {
    const unsigned t = tile_number(a, ref);
    if (a.tile_cost) a.tile_cost[t] = wmax;
    if (a.warp_efficiency) a.warp_efficiency[t] = wmax ? wsum / (32.0f * wmax) : 1.0f;
  }
  return {wmax, wsum};
}

// A plain launch's per-SM figures: each warp leaves its own in the block's slots, and once every
// warp is done the block's first thread hands their sum to the per-SM counters, four atomics a
// block (each warp's own would queue at those counters in short frames). The block waits at its
// end, not at its start, so that no warp waits for its siblings before stepping; the slots need
// no shared-memory atomics, which are compare-and-swap loops at 64 bits (docs/measurements.md).
// Each warp's start goes to its slot at once, so no register holds it.
struct BlockTally {
  unsigned long long pixel_iters[kRenderWarps], warp_iters[kRenderWarps], first[kRenderWarps];
};
__device__ __forceinline__ void tally_start(BlockTally& t) {
  if (threadIdx.x % 32 == 0) t.first[threadIdx.x / 32] = clock64();
}
__device__ __forceinline__ void tally_block(BlockTally& t, const RenderLaunch& a,
                                            unsigned long long pixel_iters,
                                            unsigned long long warp_iters) {
  const unsigned warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0) {
    t.pixel_iters[warp] = pixel_iters;
    t.warp_iters[warp] = warp_iters;
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned long long pixels = 0, warps = 0, first = ~0ull;
  // One slot at a time: unrolled, the loads took more registers than the step loop does.
#pragma unroll 1
  for (unsigned w = 0; w < kRenderWarps; ++w) {
    pixels += t.pixel_iters[w];
    warps += t.warp_iters[w];
    first = min(first, t.first[w]);
  }
  const unsigned sm = sm_id();
  atomicAdd(&a.sm_pixel_iters[sm], pixels);
  atomicAdd(&a.sm_warp_iters[sm], warps);
  atomicMin(&a.sm_first[sm], first);
  atomicMax(&a.sm_last[sm], static_cast<unsigned long long>(clock64()));
}

}  // namespace render_shapes
}  // namespace mp
