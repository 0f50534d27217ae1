// Shape::Refill, a launch shape of render_kernel.cu: persistent warps whose lanes refill
// themselves with new pixels.
#pragma once

#include "render_tile.cuh"

namespace mp {
namespace render_shapes {

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
// kRefillWait: kernel_params.h (the whole-kernel model's simulation of the warps reads it too).

// A lane's pixel in a refill launch: its c and orbit so far, where it is in the image, and
// (kResume) the steps it had when this launch took it up and where the launch stops it.
template <class V, bool kResume>
struct RefillPixel {
  using R = typename V::Real;
  static constexpr int K = V::kStepsPerCheck;
  R cx = 0, cy = 0, x = 0, y = 0;
  float acc = 0.0f;
  unsigned n = 0, ref = 0;  // its tile (packed) and its place in the tile, q
  unsigned q = 0;
  unsigned from = 0, limit = 0;
  bool has = false;  // the lane holds a pixel of the image

  // Pixel `place` of tile t, where it is in the image (`tiles`: the range's end).
  __device__ __forceinline__ void start(const RenderLaunch& a, unsigned tiles, unsigned t,
                                        unsigned place) {
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
  }
  // Whether it cannot run another whole trip and waits to be replayed (n <= limit always).
  __device__ __forceinline__ bool blocked() const { return limit - n < 2 * K; }
  // A trip of two K-step blocks with an escape test after each. Returns whether it now waits:
  // it escaped in a block (kept at the block's start, to be replayed) or is blocked.
  __device__ __forceinline__ bool trip() {
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
      return blocked();
    }
    if (in1) {
      x = x1;
      y = y1;
      n += K;
    }
    return true;
  }
  // Replayed one step at a time to its exact count (under 2K steps are left, and every step
  // replayed is one run, so the tallies count what the warp issued), then written out, or (a
  // launch cut by steps) left in its slot unfinished. Returns the steps replayed.
  template <bool kRecord>
  __device__ __forceinline__ unsigned finish(const RenderLaunch& a, unsigned long long& pixel_iters,
                                             unsigned& finished, unsigned& pending) const {
    Orbit<R> o{x, y, acc, n};
    const bool inside = single_steps<V>(o.x, o.y, cx, cy, o.acc, o.n, limit);
    const unsigned replayed = o.n - n;
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
    return replayed;
  }
};

// The divergence view's figure of the warp's current tile: its share of lanes stepping while it
// was the warp's, written when the warp leaves it.
struct RefillTileShare {
  unsigned long long warp_iters = 0, lane_steps = 0;  // the warp's sums when the tile began

  template <bool kRecord, bool kResume>
  __device__ __forceinline__ void leave(const RenderLaunch& a, unsigned tile, unsigned tiles,
                                        unsigned lane, unsigned long long warp_total,
                                        unsigned long long lane_total) {
    if (!kRecord || !a.warp_efficiency) return;
    const unsigned long long all_lanes = warp_sum64(lane_total);
    if (lane == 0 && tile < tiles) {
      const unsigned long long w = warp_total - warp_iters, l = all_lanes - lane_steps;
      if constexpr (kResume) {
        add_tile_steps(a, tile, w, l);
      } else {
        a.warp_efficiency[tile] = w ? l / (32.0f * w) : 1.0f;
      }
    }
    warp_iters = warp_total;
    lane_steps = all_lanes;
  }
};

template <class V, bool kRecord, bool kResume>
__device__ __forceinline__ void render_refill(const RenderLaunch& a) {
  static_assert(V::kPaired && !V::kCycles && !V::kAux, "the trips are iterate_paired's blocks");
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
  RefillTileShare share;
  RefillPixel<V, kResume> p;
  p.limit = a.max_iter;
  p.start(a, tiles, tile, lane);
  next = 32;
  bool wait = !p.has || p.blocked();
  bool holds = p.has;  // the lane has a pixel to finish (running or waiting)
  for (;;) {
    const unsigned quorum = tile < tiles ? kRefillWait : 32;
    while (__popc(__ballot_sync(kAll, wait)) < quorum) {
      ++trips;
      if (!wait) {
        ++lane_trips;
        wait = p.trip();
      }
    }
    // Lanes that need a new pixel: waiting, or holding none while tiles remain.
    const unsigned waiting = __ballot_sync(kAll, wait);
    const bool more = tile < tiles;
    if (!more && !__any_sync(kAll, holds)) break;
    unsigned replayed = 0;
    if (wait && holds) {
      replayed = p.template finish<kRecord>(a, pixel_iters, finished, pending);
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
        p.start(a, tiles, tile, next + rank);
      else
        p.start(a, tiles, fresh, rank - left);
      holds = p.has;
      wait = !p.has || p.blocked();
    }
    if (more && need > left) {
      share.leave<kRecord, kResume>(a, tile, tiles, lane, warp_iters, lane_steps);
      tile = fresh;
      next = need - left;
    } else {
      next += need;
    }
  }
  share.leave<kRecord, kResume>(a, tile, tiles, lane, warp_iters, lane_steps);
  pixel_iters = warp_sum64(pixel_iters);
  if constexpr (kResume) {
    finished = warp_sum(finished);
    pending = warp_sum(pending);
    if (lane == 0) count_orbits(a, finished, pending);
  }
  tally_block(tally, a, pixel_iters, warp_iters);
}

}  // namespace render_shapes
}  // namespace mp
