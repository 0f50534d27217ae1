// Plain-data description of one render launch; host code fills it without CUDA headers.
#pragma once

#include "hd.h"

namespace mp {

// Pixel (px, py) samples c = (x0 + px*dx, y0 + py*dy); py = 0 is the top row. Kept in
// double: float variants round it to float (pixel.h), the fp64 variant uses it as it is.
struct PixelGrid {
  int width = 0;
  int height = 0;
  double x0 = 0, y0 = 0, dx = 0, dy = 0;
};

// Per-pixel output layout: two floats per pixel (smooth value, aux), row-major, top row first.
inline constexpr int kFloatsPerPixel = 2;

// A frame cut into launches by steps as well as by tiles: a launch runs each pixel at most
// `budget` steps on from where the last one left it, so that no launch is longer than a warp's
// share of that budget, however long the orbits. Between launches a pixel's orbit waits in its
// slot: z's two parts as stored bits (a float, a double or a double-float each fit in 8 bytes),
// the colouring term's sum so far and the steps taken, with kOrbitDone set once the pixel is
// finished (iteration limits stay below 2^31).
struct OrbitSlot {
  unsigned long long x = 0, y = 0;
  float acc = 0;
  unsigned n = 0;
};
inline constexpr unsigned kOrbitDone = 0x80000000u;
struct OrbitSplit {
  OrbitSlot* slots = nullptr;  // one per pixel, row-major; null: whole orbits in one launch
  // Two per tile: the warp's steps (its slowest lane's) and all lanes' steps, summed over the
  // frame's launches so far, for the divergence view of a frame made of several.
  unsigned long long* tile_steps = nullptr;
  unsigned budget = 0;  // steps a pixel may take in this launch
  bool resume = false;  // false: the frame's first pass over these tiles, every orbit at 0
};

// The image is cut into tiles of 16x2 pixels, one warp's work, grouped by 16x16 pixel blocks:
// tile w of a block covers its rows 2w and 2w+1. Tiles are numbered block by block (row-major
// over blocks), 8 tiles each; per-warp data (the divergence view) uses the same numbering.
inline constexpr int kBlockW = 16;
inline constexpr int kBlockH = 16;
inline constexpr int kWarpsPerBlock = kBlockW * kBlockH / 32;
MP_HD_CONSTEXPR int blocks_across(int width) {
  return (width + kBlockW - 1) / kBlockW;
}
MP_HD_CONSTEXPR long long warp_count(int width, int height) {
  return static_cast<long long>(blocks_across(width)) * ((height + kBlockH - 1) / kBlockH) *
         kWarpsPerBlock;
}
// The tile (warp-sized piece of work) that holds pixel (px, py).
MP_HD_CONSTEXPR long long warp_of(int px, int py, int width) {
  return (static_cast<long long>(py / kBlockH) * blocks_across(width) + px / kBlockW) *
             kWarpsPerBlock +
         (py % kBlockH) / 2;
}

// A tile as the queue holds it: its top-left pixel, row (py) in the high 16 bits and column (px,
// a multiple of 16) in the low 16, so that a lane finds its pixel with two ORs: the tile's
// row is even and its column a multiple of 16. It holds images up to kMaxTileRefSize pixels
// on a side; its number is a multiply-add away.
inline constexpr int kMaxTileRefSize = 65536;
// In 32 bits (the kernel takes at most 2^32 pixels: 2^27 tiles): the ordering kernel calls this
// once per tile, and a 64-bit division would be a call to a software routine there.
MP_HD_CONSTEXPR unsigned tile_ref(unsigned tile, int width) {
  const unsigned block = tile / kWarpsPerBlock, across = blocks_across(width);
  const unsigned py = block / across * kBlockH + tile % kWarpsPerBlock * (32 / kBlockW);
  return py << 16 | block % across * kBlockW;
}
MP_HD_CONSTEXPR long long tile_of_ref(unsigned ref, int width) {
  const long long row = (ref >> 16) / (32 / kBlockW), column = (ref & 0xffffu) / kBlockW;
  return (row / kWarpsPerBlock * blocks_across(width) + column) * kWarpsPerBlock +
         row % kWarpsPerBlock;
}

// Tiles are ordered for the next frame of the same view by the power of two of their cost (the
// slowest pixel's steps), costliest first: a tile that runs thousands of steps must not start
// near the end of a frame, where it would run alone. Bucket b holds costs [2^b, 2^(b+1)).
inline constexpr int kCostBuckets = 32;
MP_HD int cost_bucket(unsigned steps) {
#ifdef __CUDA_ARCH__
  return 31 - __clz(steps | 1u);
#else
  int b = 0;
  while (b < kCostBuckets - 1 && (steps >> (b + 1)) != 0) ++b;
  return b;
#endif
}
// A unit of the queue (render_kernel.cuh) is as many tiles of a bucket as make about
// 2^kUnitBucket steps.
inline constexpr int kUnitBucket = 7;
// The tail: the cheapest places of an order by cost, kTailTilesPerWarp for each warp the GPU
// holds (at most 1/kTailShare of the tiles), handed out by block, one tile at a time from a
// counter in shared memory. A warp that finds the queue empty near the frame's end takes
// them while the warps beside it finish their last units, instead of waiting, which evens out
// the SMs' ends (docs/measurements.md).
inline constexpr int kTailTilesPerWarp = 2;
inline constexpr unsigned kTailShare = 4;

// Shape::Refill (launch_refill.cuh): a warp stops its trips for a round of replays and new pixels
// once this many of its lanes wait; it takes tiles from one of kRefillCounters counters (warp k
// from counter k % kRefillCounters). model/refill_rounds.cpp simulates the same.
inline constexpr unsigned kRefillWait = 8;
inline constexpr int kRefillCounters = 8;

}  // namespace mp
