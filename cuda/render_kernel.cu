#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cuda_check.h"
#include "pixel.h"
#include "render_kernel.cuh"
#include "sm_id.cuh"

namespace mp {
namespace {

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

// Shape::Refill: persistent warps, each lane on a pixel of its own. A warp starts on one 16x2 tile
// (the range's tiles in numbering order; warp k is given its k-th, later ones come from
// refill_units). The tiles are taken one at a time, so that the frame's last ones are spread over
// many warps, and from several counters, since the atomics on one were most of a short frame's time
// (docs/measurements.md, 2026-11-25 morning). The running lanes step in trips of two K-step blocks
// with an escape test after each (each block starts from the last one's result, as in
// iterate_paired). A lane whose pixel escaped in a trip, or cannot run another whole trip before
// its limit, waits, z at the start of the block it escaped in. Once kRefillWait lanes wait (all of
// them when the range has no tile left), the warp stops its trips: the waiting lanes replay that
// block one step at a time to the exact count, write their pixels and take the warp's next pixels,
// ranked by ballot, a new tile when the warp's runs out. Waiting for several lanes pays the
// refill's own instructions once for all of them; a trip costs iterate_paired's, a vote and two
// counts. A warp ends with its last long pixel: the frame's tail is the slowest pixel, not the
// slowest tile.
// kResume: a launch of a frame cut by steps; a lane's pixel runs at most split.budget steps on from
// its slot, and one left unfinished goes back to it.
constexpr unsigned kRefillWait = 8;
template <class V, bool kRecord, bool kResume>
__device__ __forceinline__ void render_refill(const RenderLaunch& a) {
  static_assert(V::kPaired && !V::kCycles && !V::kAux, "the trips are iterate_paired's blocks");
  using R = typename V::Real;
  constexpr int K = V::kStepsPerCheck;
  __shared__ BlockTally tally;
  tally_start(tally);
  const unsigned lane = threadIdx.x & 31, below = (1u << lane) - 1;
  const unsigned tiles = a.tile_end;  // the range's end: prepare keeps it within the frame
  const unsigned given = a.tile_begin + gridDim.x * kRenderWarps;
  // The warp's counter: it takes tiles given + group, given + group + kRefillCounters, ...
  // Every block holds warps of every group, so no counter's tiles are left without warps.
  static_assert(kRenderWarps % kRefillCounters == 0, "a block's warps cover the counters");
  const unsigned group = warp_max((blockIdx.x * kRenderWarps + threadIdx.x / 32) % kRefillCounters);
  unsigned* const counter = a.refill_units + group * kRefillCounterStride;
  // Steps run: the warp's (its trips and each round's longest replay) and the lane's own (the
  // trips it stepped in and its replays); pixel_iters: the counts of the lane's pixels. Trips are
  // counted in 32 bits between rounds and added to the 64-bit sums at each round.
  unsigned long long pixel_iters = 0, warp_iters = 0, lane_steps = 0;
  unsigned trips = 0, lane_trips = 0;
  unsigned finished = 0, pending = 0;  // kResume: the lane's pixels, for count_orbits
  // The warp's current tile and the next of its 32 pixels to hand out; a tile past the last one
  // means there is no more work.
  unsigned tile = warp_max(a.tile_begin + blockIdx.x * kRenderWarps + threadIdx.x / 32), next = 0;
  // The divergence view: each tile's share of lanes stepping while it was the warp's current one.
  unsigned long long tile_warp_iters = 0, tile_lane_steps = 0;
  auto leave_tile = [&]() {
    if (!kRecord || !a.warp_efficiency) return;
    const unsigned long long all_lanes = warp_sum64(lane_steps);
    if (lane == 0 && tile < tiles) {
      const unsigned long long w = warp_iters - tile_warp_iters, l = all_lanes - tile_lane_steps;
      if constexpr (kResume) {
        add_tile_steps(a, tile, w, l);
      } else {
        a.warp_efficiency[tile] = w ? l / (32.0f * w) : 1.0f;
      }
    }
    tile_warp_iters = warp_iters;
    tile_lane_steps = all_lanes;
  };
  R cx = 0, cy = 0, x = 0, y = 0;
  float acc = 0.0f;
  unsigned n = 0, ref = 0;  // the lane's pixel: its tile (packed) and its place in the tile, q
  unsigned q = 0;
  // kResume: the pixel's steps when this launch took it up, and where the launch stops it.
  unsigned from = 0, limit = a.max_iter;
  bool has = false;  // the lane holds a pixel of the image
  // Gives the lane pixel `place` of the warp's tiles from the current one on: its c.
  auto start = [&](unsigned t, unsigned place) {
    has = false;
    if (t >= tiles) return;
    ref = tile_ref(t, a.grid.width);
    q = place;
    const int px = static_cast<int>((ref & 0xffffu) | q % kBlockW);
    const int py = static_cast<int>(ref >> 16 | q / kBlockW);
    if (px >= a.grid.width || py >= a.grid.height) return;
    cx = pixel_coord<R>(px, a.grid.dx, a.grid.x0);
    cy = pixel_coord<R>(py, a.grid.dy, a.grid.y0);
    x = y = 0;
    acc = 0.0f;
    n = 0;
    if constexpr (kResume) {
      if (a.split.resume) {
        const OrbitSlot s = a.split.slots[py * static_cast<unsigned>(a.grid.width) + px];
        if (s.n & kOrbitDone) return;
        const Orbit<R> o = from_slot<R>(s);
        x = o.x;
        y = o.y;
        acc = o.acc;
        n = o.n;
      }
      from = n;
      limit = min(a.max_iter, n + a.split.budget);
    }
    has = true;
  };
  // A lane whose pixel cannot run another whole trip waits to be replayed (n <= limit always).
  auto blocked = [&]() { return limit - n < 2 * K; };
  start(tile, lane);
  next = 32;
  bool wait = !has || blocked();
  bool holds = has;  // the lane has a pixel to finish (running or waiting)
  for (;;) {
    const unsigned quorum = tile < tiles ? kRefillWait : 32;
    while (__popc(__ballot_sync(kAll, wait)) < quorum) {
      ++trips;
      if (!wait) {
        ++lane_trips;
        R x1 = x, y1 = y;
#pragma unroll
        for (int i = 0; i < K; ++i) V::step(x1, y1, cx, cy, acc);
        const bool in1 = within_bailout<V>(x1, y1);
        R x2 = x1, y2 = y1;
#pragma unroll
        for (int i = 0; i < K; ++i) V::step(x2, y2, cx, cy, acc);
        if (in1 && within_bailout<V>(x2, y2)) {
          x = x2;
          y = y2;
          n += 2 * K;
          wait = blocked();
        } else {  // escaped in a block: kept at its start, to be replayed
          if (in1) {
            x = x1;
            y = y1;
            n += K;
          }
          wait = true;
        }
      }
    }
    // Lanes that need a new pixel: waiting, or holding none while tiles remain.
    const unsigned waiting = __ballot_sync(kAll, wait);
    const bool more = tile < tiles;
    if (!more && !__any_sync(kAll, holds)) break;
    unsigned replayed = 0;
    if (wait && holds) {
      // One step at a time: under 2K steps are left, and every step replayed is one run, so
      // the tallies count what the warp issued.
      Orbit<R> o{x, y, acc, n};
      const bool inside = single_steps<V>(o.x, o.y, cx, cy, o.acc, o.n, limit);
      replayed = o.n - n;
      const unsigned px = (ref & 0xffffu) | q % kBlockW, py = ref >> 16 | q / kBlockW;
      const unsigned i = py * static_cast<unsigned>(a.grid.width) + px;
      const bool unfinished = kResume && inside && o.n < a.max_iter;
      if (!unfinished) {
        const PixelResult r = pixel_result<V>(o.n, o.x, o.y, inside, o.acc);
        reinterpret_cast<float2*>(a.out)[i] = make_float2(r.smooth, r.aux);
        if (kRecord && a.counts) a.counts[i] = o.n;
      }
      if constexpr (kResume) {
        a.split.slots[i] = to_slot(o, !unfinished);
        ++(unfinished ? pending : finished);
      }
      pixel_iters += o.n - from;
      holds = false;
    }
    warp_iters += static_cast<unsigned long long>(trips) * (2 * K) + warp_max(replayed);
    lane_steps += static_cast<unsigned long long>(lane_trips) * (2 * K) + replayed;
    trips = lane_trips = 0;
    // New pixels for the waiting lanes, in rank order: the rest of the current tile, then the
    // start of the next one.
    const unsigned need = __popc(waiting), rank = __popc(waiting & below), left = 32 - next;
    unsigned fresh = tile;
    if (more && need > left) {
      unsigned taken = 0;
      if (lane == 0) taken = take(counter);
      fresh = given + group + warp_sum(taken) * kRefillCounters;
    }
    if (wait) {
      if (rank < left)
        start(tile, next + rank);
      else
        start(fresh, rank - left);
      holds = has;
      wait = !has || blocked();
    }
    if (more && need > left) {
      leave_tile();
      tile = fresh;
      next = need - left;
    } else {
      next += need;
    }
  }
  leave_tile();
  pixel_iters = warp_sum64(pixel_iters);
  if constexpr (kResume) {
    finished = warp_sum(finished);
    pending = warp_sum(pending);
    if (lane == 0) count_orbits(a, finished, pending);
  }
  tally_block(tally, a, pixel_iters, warp_iters);
}

// The register cap (V::kRegCap) applies on sm_90 only, where it was measured; other
// architectures keep the compiler's own choice, which fits there without spilling.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define MANDELPIPE_RENDER_REGS(V) __maxnreg__(V::kRegCap)
#else
#define MANDELPIPE_RENDER_REGS(V) __launch_bounds__(kRenderThreads)
#endif
template <class V, bool kRecord, bool kResume>
__device__ __forceinline__ void render_shape(const RenderLaunch& a) {
  if constexpr (V::kShape == variants::Shape::Grid)
    render_grid<V, kRecord, kResume>(a);
  else if constexpr (V::kShape == variants::Shape::Rows)
    render_rows<V, kRecord, kResume>(a);
  else if constexpr (V::kShape == variants::Shape::Refill)
    render_refill<V, kRecord, kResume>(a);
  else
    render_warps<V, kRecord, kResume>(a);
}
template <class V, bool kRecord>
__global__ void MANDELPIPE_RENDER_REGS(V) render_kernel(RenderLaunch a) {
  render_shape<V, kRecord, false>(a);
}
#undef MANDELPIPE_RENDER_REGS
// A frame cut by steps: the same shapes and step loops, resumable, recording what the launch asks
// for. The compiler's own register choice: the cap was measured for the render kernel.
template <class V>
__global__ void __launch_bounds__(kRenderThreads) resumable_kernel(RenderLaunch a) {
  render_shape<V, true, true>(a);
}

template <class V, bool kRecord, bool kResume = false>
RenderStart prepare(const RenderLaunch& args) {
  RenderStart r;
  if (args.grid.width <= 0 || args.grid.height <= 0) return r;
  // The queue's packed tiles and the 32-bit pixel index set the largest image.
  if (args.grid.width > kMaxTileRefSize || args.grid.height > kMaxTileRefSize ||
      static_cast<unsigned long long>(args.grid.width) * args.grid.height >= 1ull << 32)
    throw std::invalid_argument("render: " + std::to_string(args.grid.width) + "x" +
                                std::to_string(args.grid.height) +
                                " pixels is more than the kernel can address");
  const unsigned tiles = static_cast<unsigned>(warp_count(args.grid.width, args.grid.height));
  const unsigned end = std::min(args.tile_end, tiles), begin = std::min(args.tile_begin, end);
  if (begin % kWarpsPerBlock != 0 || end % kWarpsPerBlock != 0)
    throw std::invalid_argument("render: tiles " + std::to_string(args.tile_begin) + ".." +
                                std::to_string(args.tile_end) + " are not whole 16x16 blocks");
  if (begin == end) return r;
  if constexpr (kResume) {
    r.kernel = resumable_kernel<V>;
  } else {
    r.kernel = render_kernel<V, kRecord>;
  }
  r.args = args;
  r.args.tile_begin = begin;
  r.args.tile_end = end;
  r.args.blocks_across = blocks_across(args.grid.width);
  r.recording = kRecord;
  if constexpr (V::kShape == variants::Shape::Grid) {
    r.blocks = static_cast<int>((end - begin) / kWarpsPerBlock);
    r.args.tile_cost = nullptr;
    return r;
  }
  if constexpr (V::kShape == variants::Shape::Rows) {
    const unsigned across = r.args.blocks_across;
    const unsigned first_row = begin / kWarpsPerBlock / across,
                   rows_of_blocks = (end / kWarpsPerBlock - 1) / across + 1 - first_row;
    const unsigned row_end =
        std::min(static_cast<unsigned>(args.grid.height), (first_row + rows_of_blocks) * kBlockH);
    r.args.row_base = first_row * kBlockH;
    if (rows_of_blocks * kBlockH > static_cast<unsigned>(kMaxTableRows))
      throw std::invalid_argument(std::string("render: ") + V::kName + " takes at most " +
                                  std::to_string(kMaxTableRows) + " rows in a launch");
    r.row_cy.resize(row_end - r.args.row_base);
    for (unsigned y = 0; y < r.row_cy.size(); ++y)
      r.row_cy[y] =
          pixel_coord<float>(static_cast<int>(r.args.row_base + y), args.grid.dy, args.grid.y0);
    r.blocks = (args.grid.width + kRowsBlockW - 1) / kRowsBlockW;
    r.block_rows = static_cast<int>(rows_of_blocks * kBlockH / 2);
    r.args.tile_cost = nullptr;
    return r;
  }
  int device = 0, sms = 0, blocks_per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, r.kernel, kRenderThreads, 0));
  // A range smaller than the GPU holds gets a block per 8 of its tiles: the spare blocks would
  // crowd the working ones onto fewer SMs.
  r.blocks = std::min(std::max(1, blocks_per_sm) * sms,
                      static_cast<int>((end - begin + kWarpsPerBlock - 1) / kWarpsPerBlock));
  if constexpr (V::kShape == variants::Shape::Refill) {
    r.args.tile_cost = nullptr;  // the tiles go in numbering order, each lane at its own pace
    return r;
  }
  r.args.senior_blocks = sms * kSeniorBlocksPerSm;
  r.queue = true;
  return r;
}

// The ordering's two passes, one thread per tile: count the tiles of each cost bucket, then
// give each tile its place. Within a bucket the tiles are in no set order (blocks claim their
// places as they get there): enough to start the costly tiles early. The first block on each
// SM stamps sm_first, so that SM spans count the ordering as part of the frame.
constexpr int kOrderThreads = 1024;
__device__ __forceinline__ void stamp_first(const OrderLaunch& a) {
  if (threadIdx.x == 0) atomicMin(&a.sm_first[sm_id()], static_cast<unsigned long long>(clock64()));
}

__global__ void __launch_bounds__(kOrderThreads) count_buckets(OrderLaunch a) {
  __shared__ unsigned count[kCostBuckets];
  const unsigned tid = threadIdx.x, t = blockIdx.x * kOrderThreads + tid;
  stamp_first(a);
  if (tid < kCostBuckets) count[tid] = 0;
  __syncthreads();
  if (t < a.tiles) atomicAdd(&count[cost_bucket(a.tile_cost[a.first + t])], 1u);
  __syncthreads();
  if (tid < kCostBuckets && count[tid]) atomicAdd(&a.histogram[tid], count[tid]);
}

__global__ void __launch_bounds__(kOrderThreads) order_tiles(OrderLaunch a) {
  __shared__ unsigned place[kCostBuckets], in_block[kCostBuckets];
  const unsigned tid = threadIdx.x, t = blockIdx.x * kOrderThreads + tid;
  stamp_first(a);
  if (tid < kCostBuckets) {
    // Thread k: rank k of the queue, cost bucket kCostBuckets-1-k.
    const int k = tid, bucket = kCostBuckets - 1 - k;
    unsigned count = 0, group = 1;
    if (a.by_cost) {
      count = a.histogram[bucket];
      if (bucket < kUnitBucket) group = min(32u, 1u << (kUnitBucket - bucket));
    } else if (k == 0) {
      count = a.tiles;
    }
    unsigned places = count;  // inclusive prefix sum over the ranks
    for (int o = 1; o < kCostBuckets; o <<= 1) {
      const unsigned p = __shfl_up_sync(kAll, places, o);
      if (k >= o) places += p;
    }
    place[bucket] = places - count;
    in_block[bucket] = 0;
    // The units stop where the tail starts.
    const unsigned tail_start = a.tiles - (a.by_cost ? min(a.tail, a.tiles) : 0);
    const unsigned unit_places = min(places, tail_start) - min(places - count, tail_start);
    const unsigned units = (unit_places + group - 1) / group;
    unsigned unit_end = units;
    for (int o = 1; o < kCostBuckets; o <<= 1) {
      const unsigned u = __shfl_up_sync(kAll, unit_end, o);
      if (k >= o) unit_end += u;
    }
    // The costly queue ends at the first rank kCostlyBuckets below the costliest non-empty.
    const unsigned all_units = __shfl_sync(kAll, unit_end, kCostBuckets - 1);
    const int top = __ffs(__ballot_sync(kAll, count > 0)) - 1;  // -1 when there are no tiles
    const int cut = top + kCostlyBuckets;
    const unsigned cut_start = __shfl_sync(kAll, unit_end - units, min(cut, kCostBuckets - 1));
    if (blockIdx.x == 0) {
      if (k == 0)
        a.plan->costly_units = !a.by_cost ? 0 : cut < kCostBuckets ? cut_start : all_units;
      a.plan->unit_start[k] = unit_end - units;
      a.plan->place_start[k] = places - count;
      a.plan->place_end[k] = places - count + unit_places;
      a.plan->group[k] = group;
      if (k == kCostBuckets - 1) {
        a.plan->units = unit_end;
        a.plan->tail_start = tail_start;
        a.plan->tail_end = a.tiles;
      }
    }
  }
  if (!a.by_cost) {
    if (t < a.tiles) a.order[t] = tile_ref(a.first + t, a.width);
    return;
  }
  __syncthreads();
  unsigned bucket = 0, rank = 0;
  if (t < a.tiles) {
    bucket = cost_bucket(a.tile_cost[a.first + t]);
    rank = atomicAdd(&in_block[bucket], 1u);
  }
  __syncthreads();
  if (tid < kCostBuckets && in_block[tid]) place[tid] += atomicAdd(&a.fill[tid], in_block[tid]);
  __syncthreads();
  if (t < a.tiles) a.order[place[bucket] + rank] = tile_ref(a.first + t, a.width);
}

}  // namespace

void launch_tile_order(const OrderLaunch& args, cudaStream_t stream) {
  if (args.tiles == 0) return;
  // At least one block per SM (the spare ones only stamp sm_first), so that every SM's span
  // starts with the ordering, not just the spans of the SMs that had tiles to sort.
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const unsigned blocks = std::max<unsigned>((args.tiles + kOrderThreads - 1) / kOrderThreads, sms);
  OrderLaunch a = args;
  if (a.by_cost) {
    int threads_per_sm = 0;
    CUDA_CHECK(
        cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    a.tail = std::min(a.tiles / kTailShare,
                      static_cast<unsigned>(kTailTilesPerWarp * sms * (threads_per_sm / 32)));
    count_buckets<<<blocks, kOrderThreads, 0, stream>>>(a);
    CUDA_CHECK(cudaGetLastError());
  }
  order_tiles<<<blocks, kOrderThreads, 0, stream>>>(a);
  CUDA_CHECK(cudaGetLastError());
}

// The recording kernel where the frame records anything (tile costs, counts, efficiencies).
template <class V>
RenderStart prepare_either(const RenderLaunch& args) {
  if (args.split.slots) {  // a frame cut by steps records no tile costs (its orbits are cut too)
    RenderLaunch a = args;
    a.tile_cost = nullptr;
    return prepare<V, true, true>(a);
  }
  // Only the queue orders tiles by cost: the other shapes record nothing a frame did not ask for.
  const bool costs = args.tile_cost && V::kShape == variants::Shape::Queue;
  if (costs || args.counts || args.warp_efficiency) return prepare<V, true>(args);
  return prepare<V, false>(args);
}

RenderStart prepare_render(VariantId variant, const RenderLaunch& args) {
  return with_plain_variant(variant, [&](auto v) { return prepare_either<decltype(v)>(args); });
}

template <class V>
int resident_blocks(bool resumable) {
  int blocks = 0;
  if (resumable)
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, resumable_kernel<V>,
                                                             kRenderThreads, 0));
  else
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, render_kernel<V, false>,
                                                             kRenderThreads, 0));
  return std::max(1, blocks);
}

int resident_tiles_per_sm(VariantId variant, bool resumable) {
  return with_plain_variant(variant, [&](auto v) {
    using V = decltype(v);
    // A block of Shape::Rows holds 256 pixels of each of two rows: 16 tiles' worth.
    const int tiles = V::kShape == variants::Shape::Rows ? 2 * kRowsBlockW / 32 : kWarpsPerBlock;
    return resident_blocks<V>(resumable) * tiles;
  });
}

RenderStart prepare_sin_balance(int sines, const RenderLaunch& args) {
  if (args.counts || args.warp_efficiency || args.split.slots)
    throw std::invalid_argument(
        "prepare_sin_balance: the sweep renders whole frames with no per-pixel outputs");
  switch (sines) {
    case 1: return prepare_either<variants::SinBalance<1>>(args);
    case 2: return prepare_either<variants::SinBalance<2>>(args);
    case 3: return prepare_either<variants::SinBalance<3>>(args);
    case 4: return prepare_either<variants::SinBalance<4>>(args);
    default: throw std::invalid_argument("prepare_sin_balance: sines must be 1..4");
  }
}

void start_render(const RenderStart& start, cudaStream_t stream) {
  if (!start.kernel) return;
  // The table in constant memory is the module's, one for every renderer: a launch puts its rows
  // there on its own stream, just before it, and renders are waited for (GpuRenderer), so no
  // launch reads another's rows. The copy is part of the launch's work and of its time.
  if (!start.row_cy.empty())
    CUDA_CHECK(cudaMemcpyToSymbolAsync(c_row_cy, start.row_cy.data(),
                                       start.row_cy.size() * sizeof(float), 0,
                                       cudaMemcpyHostToDevice, stream));
  start.kernel<<<dim3(start.blocks, start.block_rows), kRenderThreads, 0, stream>>>(start.args);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace mp
