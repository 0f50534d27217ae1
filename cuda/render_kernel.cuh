// Launch interface of the render kernel (one template instance per variant).
#pragma once

#include <cuda_runtime.h>

#include <vector>

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
  // Optional: per tile (layout in kernel_params.h), the share of lanes that did useful steps:
  // pixel-iterations / (32 x the tile's max), or for Shape::Rows, whose half warps are tiles,
  // / (16 x the warp's max on each of its two rows, summed).
  float* warp_efficiency = nullptr;
  // The tile queue: a counter of units taken, zero at launch; the tiles in queue order (a
  // permutation, packed as tile_ref() does) and how they are cut into units, both from
  // launch_tile_order.
  unsigned* next_unit = nullptr;
  unsigned* next_costly_unit = nullptr;
  const unsigned* order = nullptr;
  const struct TilePlan* plan = nullptr;
  // What the next frame's order is made of: each tile's cost (its slowest pixel's steps); null
  // where it already holds this kernel's costs on this view.
  unsigned* tile_cost = nullptr;
  // The tiles this launch renders, [tile_begin, tile_end) in the numbering of kernel_params.h:
  // whole 16x16 blocks (multiples of kWarpsPerBlock); an end past the last tile is the frame's
  // end. Per-tile outputs keep their places in the whole frame, so a frame made of ranges leaves
  // exactly what one launch does. The queue takes its order and plan for the range only.
  unsigned tile_begin = 0;
  unsigned tile_end = ~0u;
  unsigned senior_blocks = 0;  // the first kSeniorBlocksPerSm waves; prepare_render fills it
  unsigned blocks_across = 0;  // prepare_render fills it
  // A frame cut by steps too (kernel_params.h): the resumable kernel runs each pixel of the range
  // at most split.budget steps on and counts, per SM, the pixels it finished and those it left
  // unfinished. Null slots: the render kernel, whole orbits. (Last, so that the fields before
  // keep their places in the render kernels' parameters.)
  OrbitSplit split;
  unsigned long long* sm_finished = nullptr;
  unsigned long long* sm_pending = nullptr;
  // Shape::Rows (prepare_render fills it): the image row that the launch's first blocks start at,
  // and its row table (RenderStart::row_cy).
  unsigned row_base = 0;
  // Shape::Refill: kRefillCounters counters of tiles taken, each on its own 128 bytes, zero at
  // launch; warp k takes from counter k % kRefillCounters the tiles that follow the ones given at
  // the start, kRefillCounters apart (render_kernel.cu says why more than one).
  unsigned* refill_units = nullptr;
};
inline constexpr int kRefillCounterStride = 32;  // unsigned words: 128 bytes

// The queue, bucket by bucket, costliest first: rank k holds cost bucket kCostBuckets-1-k, at
// places [place_start, place_end) of the order. A warp takes one unit per atomic: `group`
// tiles of a bucket, as many as make about 2^kUnitBucket steps, so that cheap tiles, which
// come last, don't queue up at the counter (it serves about one warp per nanosecond).
//
// The SMSP's scheduler favours the warps of the oldest blocks on the SM: with 16 warps, those
// of the youngest blocks may wait most of a frame for issue slots. So the costly units (the
// kCostlyBuckets costliest buckets: tiles down to 1/32 of the costliest one's cost) have a
// queue of their own, which the first kSeniorBlocksPerSm waves of blocks take from first; the
// others take it up only when the rest is done. Both numbers were picked by measurement at
// bench view B (docs/measurements.md: tile order and the queue). kUnitBucket and the tail's
// sizes are in kernel_params.h, where the whole-kernel model reads them too.
inline constexpr int kCostlyBuckets = 5;
inline constexpr int kSeniorBlocksPerSm = 3;
struct TilePlan {
  unsigned unit_start[kCostBuckets];
  unsigned place_start[kCostBuckets];
  unsigned place_end[kCostBuckets];
  unsigned group[kCostBuckets];
  unsigned units;
  unsigned costly_units;  // units [0, costly_units) form the costly queue
  // Places [tail_start, tail_end) are not in units: block b takes places tail_start + b,
  // tail_start + b + blocks, ... one at a time, from a counter in its shared memory.
  unsigned tail_start, tail_end;
};

// A render kernel picked and sized for one frame. Sizing it asks the runtime for the kernel's
// occupancy, which takes host time: prepared before a frame's timing starts, that time stays
// out of the frame's milliseconds. No kernel where the grid has no pixels (a minimised window).
struct RenderStart {
  void (*kernel)(RenderLaunch) = nullptr;
  int blocks = 0;
  int block_rows = 1;  // the grid's second dimension (Shape::Rows: pairs of rows)
  RenderLaunch args;
  bool queue = false;      // the kernel takes its tiles from the queue: it needs an order
  bool recording = false;  // the kernel writes what args asks it to record
  // Shape::Rows: c's imaginary part of each row of the range, from args.row_base on; start_render
  // puts it in constant memory, on the stream, just before the kernel.
  std::vector<float> row_cy;
};
RenderStart prepare_render(VariantId variant, const RenderLaunch& args);
// Tiles' worth of pixels in the blocks of the variant's kernel (the resumable build or the plain
// one) that an SM holds at once.
int resident_tiles_per_sm(VariantId variant, bool resumable);

// The sine-balance sweep behind the sin-ratio variant: fma4 plus `sines` (1..4) __sinf per
// step (variants::SinBalance), so the balance point can be measured on the GPU at hand.
RenderStart prepare_sin_balance(int sines, const RenderLaunch& args);

void start_render(const RenderStart& start, cudaStream_t stream);

// Writes the tile order and plan of the next launch: with `by_cost`, the tiles by cost bucket,
// costliest first, from the tile costs a launch wrote (the buckets counted first, into
// `histogram`), else the tiles in their numbering (rows of 16x16 blocks), one per unit.
// `histogram` and `fill` (kCostBuckets counters each) must be zero. The first block to run on
// each SM lowers `sm_first` like the render kernel does, so that SM spans count the ordering
// as part of the frame.
struct OrderLaunch {
  unsigned first = 0;  // the range's first tile: the order holds tiles [first, first + tiles)
  unsigned tiles = 0;
  int width = 0;  // of the image, for the packed tiles
  bool by_cost = false;
  unsigned tail = 0;  // with by_cost, launch_tile_order sets it: the tail's places
  const unsigned* tile_cost = nullptr;
  unsigned* histogram = nullptr;
  unsigned* fill = nullptr;
  unsigned* order = nullptr;
  TilePlan* plan = nullptr;
  unsigned long long* sm_first = nullptr;
};
void launch_tile_order(const OrderLaunch& args, cudaStream_t stream);

}  // namespace mp
