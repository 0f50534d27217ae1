#include <algorithm>
#include <stdexcept>
#include <string>

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

// Tile `ref` (packed as in kernel_params.h): its pixels and its steps: the slowest lane's (what
// the warp issued) and all lanes' together. kRecord: also its cost for the next frame's order
// and the optional per-pixel counts and per-tile efficiencies. A frame whose view's tile costs
// are known (the kernels are deterministic) and that wants neither runs the kernel without
// them: fifteen instructions per tile fewer on sm_90, a point and more of the bound at view B.
struct TileSteps {
  unsigned warp_max, sum;
};
template <class V, bool kRecord>
__device__ __forceinline__ TileSteps render_tile(const RenderLaunch& a, unsigned ref,
                                                 unsigned lane) {
  const int px = (ref & 0xffffu) | lane % kBlockW, py = ref >> 16 | lane / kBlockW;
  unsigned n = 0;
  if (px < a.grid.width && py < a.grid.height) {
    const PixelResult r = pixel_at<V>(a.grid, px, py, a.max_iter);
    n = r.iters;
    const unsigned i = static_cast<unsigned>(py) * a.grid.width + px;  // < 2^32: launch checks
    reinterpret_cast<float2*>(a.out)[i] = make_float2(r.smooth, r.aux);
    if (kRecord && a.counts) a.counts[i] = n;
  }
  // What the pipes executed: a warp runs its loop until its slowest lane is done.
  const unsigned wmax = warp_max(n);
  const unsigned wsum = warp_sum(n);
  if (kRecord && lane == 0) {
    const unsigned row = ref >> 17, column = (ref & 0xffffu) / kBlockW;  // as tile_of_ref()
    const unsigned t =
        (row / kWarpsPerBlock * a.blocks_across + column) * kWarpsPerBlock + row % kWarpsPerBlock;
    if (a.tile_cost) a.tile_cost[t] = wmax;
    if (a.warp_efficiency) a.warp_efficiency[t] = wmax ? wsum / (32.0f * wmax) : 1.0f;
  }
  return {wmax, wsum};
}

// Persistent warps: as many as fit on the GPU at once, each taking 16x2-pixel tiles from a
// queue until none are left. A warp that drew short orbits takes more tiles instead of
// waiting for the slowest warp of its block, so the SMs stay full to the end of the frame.
template <class V, bool kRecord>
__device__ __forceinline__ void render_warps(const RenderLaunch& a) {
  const unsigned long long t_start = clock64();
  const unsigned lane = threadIdx.x & 31;
  unsigned long long pixel_iters = 0, warp_iters = 0;
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
        const TileSteps w = render_tile<V, kRecord>(a, __shfl_sync(kAll, my_tile, j), lane);
        pixel_iters += w.sum;
        warp_iters += w.warp_max;
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
    const unsigned sm = sm_id();
    atomicAdd(&a.sm_pixel_iters[sm], pixel_iters);
    atomicAdd(&a.sm_warp_iters[sm], warp_iters);
    atomicMin(&a.sm_first[sm], t_start);
    atomicMax(&a.sm_last[sm], static_cast<unsigned long long>(clock64()));
  }
}

// ptxas puts a kernel's step loop on registers of its own choosing, and on sm_90 that choice
// alone moves a variant's bound by up to 14 points (README: a loop that reads the even and the
// odd registers alike runs fastest). A cap on the registers changes the choice: kRegCap<V> is
// the cap measured best for each variant (H200, 2026-11-21: caps 29 to 32 and none, all seven
// variants at the three bench views). At most 32 keeps eight blocks on an SM. The caps were
// measured on sm_90 only; other architectures keep the compiler's own choice, which fits there
// without spilling.
template <class V>
inline constexpr int kRegCap = 32;
template <>
inline constexpr int kRegCap<variants::Fma5> = 29;
template <>
inline constexpr int kRegCap<variants::Fma4> = 29;
template <>
inline constexpr int kRegCap<variants::Fma4Esc4> = 31;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define MANDELPIPE_RENDER_REGS(V) __maxnreg__(kRegCap<V>)
#else
#define MANDELPIPE_RENDER_REGS(V) __launch_bounds__(kRenderThreads)
#endif
template <class V, bool kRecord>
__global__ void MANDELPIPE_RENDER_REGS(V) render_kernel(RenderLaunch a) {
  render_warps<V, kRecord>(a);
}
#undef MANDELPIPE_RENDER_REGS

template <class V, bool kRecord>
RenderStart prepare(const RenderLaunch& args) {
  RenderStart r;
  if (args.grid.width <= 0 || args.grid.height <= 0) return r;
  // The queue's packed tiles and the 32-bit pixel index set the largest image.
  if (args.grid.width > kMaxTileRefSize || args.grid.height > kMaxTileRefSize ||
      static_cast<unsigned long long>(args.grid.width) * args.grid.height >= 1ull << 32)
    throw std::invalid_argument("render: " + std::to_string(args.grid.width) + "x" +
                                std::to_string(args.grid.height) +
                                " pixels is more than the kernel can address");
  r.kernel = render_kernel<V, kRecord>;
  int device = 0, sms = 0, blocks_per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, r.kernel, kRenderThreads, 0));
  r.blocks = std::max(1, blocks_per_sm) * sms;
  r.args = args;
  r.args.senior_blocks = sms * kSeniorBlocksPerSm;
  r.args.blocks_across = blocks_across(args.grid.width);
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
  if (t < a.tiles) atomicAdd(&count[cost_bucket(a.tile_cost[t])], 1u);
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
    if (t < a.tiles) a.order[t] = tile_ref(t, a.width);
    return;
  }
  __syncthreads();
  unsigned bucket = 0, rank = 0;
  if (t < a.tiles) {
    bucket = cost_bucket(a.tile_cost[t]);
    rank = atomicAdd(&in_block[bucket], 1u);
  }
  __syncthreads();
  if (tid < kCostBuckets && in_block[tid]) place[tid] += atomicAdd(&a.fill[tid], in_block[tid]);
  __syncthreads();
  if (t < a.tiles) a.order[place[bucket] + rank] = tile_ref(t, a.width);
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
  if (args.tile_cost || args.counts || args.warp_efficiency) return prepare<V, true>(args);
  return prepare<V, false>(args);
}

RenderStart prepare_render(VariantId variant, const RenderLaunch& args) {
  switch (variant) {
#define MP_PREPARE_CASE(V) \
  case VariantId::V: return prepare_either<variants::V>(args);
    MANDELPIPE_VARIANTS(MP_PREPARE_CASE)
#undef MP_PREPARE_CASE
  }
  throw std::invalid_argument("prepare_render: no such variant");
}

RenderStart prepare_sin_balance(int sines, const RenderLaunch& args) {
  if (args.counts || args.warp_efficiency)
    throw std::invalid_argument("prepare_sin_balance: the sweep writes no per-pixel outputs");
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
  start.kernel<<<start.blocks, kRenderThreads, 0, stream>>>(start.args);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace mp
