// The tile queue's order for the next launch of render_kernel.cu: two passes over the tiles'
// last costs, one thread per tile.
#pragma once

#include "render_tile.cuh"

namespace mp {
namespace render_shapes {

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

}  // namespace render_shapes
}  // namespace mp
